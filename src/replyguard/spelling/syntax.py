"""Tier 2: the pattern rules and confusion sets of ``metta/spelling.metta`` applied to a sentence.

A rule's pattern is matched at every position of a segment's live slots; zero-width elements test
the position between two slots (or a segment edge), the others test one slot's current text. A
match applies the rule's action to its target slot through the journal, which refuses changes to
protected slots and logs why.
"""

from __future__ import annotations

import math
import re

from replyguard.spelling.protect import NOT_PROSE
from replyguard.spelling.ranking import Context, Ranker, posterior
from replyguard.spelling.rulebook import Element, RuleBook, SyntaxRule
from replyguard.spelling.slots import Journal, Slot, Step
from replyguard.spelling.tokens import Segment

_VOWEL_LETTER_NAMES = frozenset("aefhilmnorsx")  # "an FBI agent", "an MBA"
_ELEVEN_OR_EIGHTEEN = re.compile(r"1[18](?:[,.]?\d{3})*(?!\d)")


class SentenceView:
    """The live slots of one segment and the facts the zero-width elements ask about."""

    def __init__(self, slots: list[Slot], segment: Segment) -> None:
        self.all = slots
        self.slots = [s for s in slots if s.live]
        self.segment = segment
        self.words = sum(1 for s in self.slots if s.is_word)

    def drop(self, position: int) -> None:
        """The slot at ``position`` was deleted: the rules see the segment without it."""
        if self.slots.pop(position).is_word:
            self.words -= 1

    def first_word(self) -> Slot | None:
        return next((s for s in self.slots if s.token.kind != "punct"), None)


class RuleEngine:
    def __init__(self, book: RuleBook, ranker: Ranker, min_confidence: float) -> None:
        self.book = book
        self.ranker = ranker
        self.min_confidence = min_confidence
        self._vowel_prefixes = book.word_class("vowel-sound-prefixes")
        self._consonant_prefixes = book.word_class("consonant-sound-prefixes")
        self._sets = {w: s for s in book.confusion_sets for w in s.words}

    # --- confusion sets -------------------------------------------------------------------------
    def resolve_confusions(self, view: SentenceView, journal: Journal) -> None:
        for i, slot in enumerate(view.slots):
            confusion = self._sets.get(slot.lower)
            if confusion is None or not slot.is_word:
                continue
            context = Context(_neighbour(view.slots, i - 1), _neighbour(view.slots, i + 1))
            penalty = self.ranker.nats * confusion.cost
            scores = {
                word: self.ranker.phrase_fit(self.book.expansions.get(word, (word,)), context)
                - (0.0 if word == slot.lower else penalty)
                for word in confusion.words
            }
            best = max(scores, key=lambda w: scores[w])
            if best == slot.lower:
                continue
            confidence = posterior(scores[best], [s for w, s in scores.items() if w != best])
            if confidence >= self.min_confidence:
                step = Step(
                    "syntactic",
                    confusion.name,
                    f'"{best}" fits the neighbouring words better than "{slot.lower}"',
                    confidence,
                    tuple(w for w in confusion.words if w != best),
                )
                journal.change(slot, _match_case(slot.text, best), step)

    # --- pattern rules --------------------------------------------------------------------------
    def apply_rules(self, slots: list[Slot], segment: Segment, journal: Journal) -> None:
        view = SentenceView(slots, segment)  # kept in step with deletions by `drop`
        for rule in self.book.rules:
            confidence = math.exp(-rule.cost)
            if confidence < self.min_confidence:
                continue
            first = next(e for e in rule.pattern if e.consumes)
            trigger = frozenset(first.args) if first.op == "word" else None
            start = 0
            while True:
                starts = _starts(rule, view)
                start = max(start, starts.start)
                if start >= starts.stop:
                    break
                if trigger is not None and (
                    start == len(view.slots) or view.slots[start].lower not in trigger
                ):
                    start += 1
                    continue
                bound = self._match(rule.pattern, view, start)
                if (
                    bound is not None
                    and self._act(rule, confidence, view, bound, journal)
                    and rule.action.op == "delete"
                ):
                    continue  # "the the the": look again at the same position
                start += 1

    def _act(
        self,
        rule: SyntaxRule,
        confidence: float,
        view: SentenceView,
        bound: list[int | None],
        journal: Journal,
    ) -> bool:
        action = rule.action
        position = bound[action.target]
        assert position is not None  # the rule book only accepts word-matching targets
        slot = view.slots[position]
        step = Step("syntactic", rule.name, rule.reason, confidence)
        if action.op == "append":
            if slot.appended or slot.text.endswith(tuple(".!?")):
                return False
            if slot.protected in NOT_PROSE:  # no full stop after a tag, code or a URL
                journal.refuse(slot, "syntactic", action.text or "", rule.name)
                return False
            slot.appended, slot.append_step = action.text or "", step
            return True
        if action.op == "delete":
            if slot.protected is not None:
                journal.refuse(slot, "syntactic", "", rule.name)
                return False
            k = view.all.index(slot)  # delete back to the token before it, live or not
            slot.deleted_after = view.all[k - 1].token.end if k else slot.token.start
            slot.steps.append(step)
            view.drop(position)
            return True
        if action.op == "capitalise":
            new = slot.text[:1].upper() + slot.text[1:]
        elif action.map_name is not None:
            new = _match_case(slot.text, self.book.maps[action.map_name][slot.lower])
        else:
            new = _match_case(slot.text, action.text or "")
        if new == slot.text:
            return False
        return journal.change(slot, new, step)

    def _match(
        self, pattern: tuple[Element, ...], view: SentenceView, start: int
    ) -> list[int | None] | None:
        """Slot index per consuming element (None for zero-width ones), or None for no match.

        Positions are laid out first and tested after, so ``(same I)`` may name any consuming
        element, before or after it (``(not-after (same 1)) (class word) (same 1)``).
        """
        position = start
        bound: list[int | None] = []
        gaps: list[int] = []
        for element in pattern:
            if element.consumes:
                if position >= len(view.slots):
                    return None
                bound.append(position)
                position += 1
            else:
                bound.append(None)
            gaps.append(position)
        for element, slot, gap in zip(pattern, bound, gaps, strict=True):
            if slot is not None:
                if not self._test(element, view.slots[slot], view, bound):
                    return None
            elif not self._test_gap(element, view, gap, bound):
                return None
        return bound

    def _test_gap(
        self, element: Element, view: SentenceView, position: int, bound: list[int | None]
    ) -> bool:
        op = element.op
        if op == "start":
            return position == 0
        if op == "end":
            return position == len(view.slots)
        if op == "open-end":
            segment = view.segment
            return (
                position == len(view.slots)
                and not segment.terminated
                and segment.paragraph_end
                and not segment.list_item
                and view.words >= 3
            )
        if op in ("after", "not-after"):
            hit = position > 0 and self._test(
                element.parts[0], view.slots[position - 1], view, bound
            )
            return hit if op == "after" else not hit
        if op in ("before", "not-before"):
            hit = position < len(view.slots) and self._test(
                element.parts[0], view.slots[position], view, bound
            )
            return hit if op == "before" else not hit
        first = view.first_word()  # segment-starts-with
        return first is not None and self._test(element.parts[0], first, view, bound)

    def _test(
        self, element: Element, slot: Slot, view: SentenceView, bound: list[int | None]
    ) -> bool:
        op = element.op
        if op == "word":
            return slot.lower in element.args
        if op == "class":
            return any(self._in_class(name, slot) for name in element.args)
        if op == "key":
            return slot.lower in self.book.maps[element.args[0]]
        if op == "same":
            other = bound[int(element.args[0])]
            return other is not None and view.slots[other].lower == slot.lower and slot.is_word
        if op == "not":
            return not self._test(element.parts[0], slot, view, bound)
        return all(self._test(part, slot, view, bound) for part in element.parts)  # and

    def _in_class(self, name: str, slot: Slot) -> bool:
        text = slot.text
        if name == "word":
            return slot.is_word
        if name == "lowercase-word":
            return slot.is_word and text[:1].islower()
        if name == "capitalised":
            return text[:1].isupper()
        if name in ("vowel-sound", "consonant-sound"):
            sound = self._initial_sound(slot)
            return sound is not None and sound == (name == "vowel-sound")
        return slot.lower in self.book.word_class(name)

    def _initial_sound(self, slot: Slot) -> bool | None:
        """True for a vowel sound, False for a consonant sound, None when unsure."""
        text, kind = slot.text, slot.token.kind
        if kind == "number":
            digits = text.lstrip("$€£")
            return digits.startswith("8") or bool(_ELEVEN_OR_EIGHTEEN.match(digits))
        if kind == "code" and text[:2].isupper():
            spoken_as_word = len(text) >= 4 and text[1] in "AEIOU"
            if not spoken_as_word:
                return text[0].lower() in _VOWEL_LETTER_NAMES
        if not slot.is_word and kind != "code":
            return None
        lower = slot.lower
        longest_vowel = max(
            (len(p) for p in self._vowel_prefixes if lower.startswith(p)), default=0
        )
        longest_consonant = max(
            (len(p) for p in self._consonant_prefixes if lower.startswith(p)), default=0
        )
        if longest_vowel or longest_consonant:
            return longest_vowel > longest_consonant
        return lower[:1] in ("a", "e", "i", "o", "u")


def _starts(rule: SyntaxRule, view: SentenceView) -> range:
    """Where the rule's match can begin: anywhere, or only at an anchored edge."""
    if rule.pattern[0].op == "start":
        return range(0, 1)
    if rule.pattern[-1].op in ("end", "open-end"):
        first = len(view.slots) - sum(e.consumes for e in rule.pattern)
        return range(first, first + 1) if first >= 0 else range(0)
    return range(len(view.slots) + 1)


def _neighbour(slots: list[Slot], i: int) -> str | None:
    if 0 <= i < len(slots) and slots[i].is_word:
        return slots[i].lower
    return None


def _match_case(model: str, word: str) -> str:
    """``word`` in the case pattern of ``model`` (Title, UPPER or as given)."""
    if model.isupper() and len(model) > 1:
        return word.upper()
    if model[:1].isupper():
        return word[:1].upper() + word[1:]
    return word
