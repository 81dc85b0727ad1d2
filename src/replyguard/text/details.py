"""Request details named by a phrase rather than by the KB: "with my aunt" names who comes along,
"a reminder for dinner" what the event is, and in "Dinner with Ana is set" the sentence's subject
is the event. A request and the confirmation that restates it can then be compared on details no
KB column lists.

The phrases and the slot each introduces are word lists in metta/lexicon.metta
(`detail-phrase`, `event-confirming`, `generic-detail`, `discourse-opener`); this module only
reads the words after a phrase.
"""

from __future__ import annotations

from collections.abc import Callable

from replyguard.models import ValueType
from replyguard.text.claims import PREPOSITIONS
from replyguard.text.lexer import LexedText, Lexeme
from replyguard.text.lexicon import past_openers
from replyguard.text.temporal import NUMBER_WORDS
from replyguard.text.words import content_stems

_MARKER = "detail-phrase:"
_SKIPPED = frozenset("a an the my your our his her their its this that some".split())
_BOUNDARIES = PREPOSITIONS | frozenset(
    "and or but so is are was were be been will would has have had who which that "
    "please if when then now".split()
)
_MAX_WORDS = 4
_BETWEEN_VALUES = frozenset("a an the at on in of , and".split())
# A person's name alone does not say what happens: in "Reminder set for Jon to take medicine"
# the phrase after "set for" is who the reminder is for, not the event.
_NOT_A_NAME = frozenset({"event", "agenda"})


def phrase_after(
    lexed: LexedText, i: int, kinds: Callable[[str], tuple[object, ...]]
) -> Lexeme | None:
    """The phrase from token i (past articles and possessives) to the next preposition,
    conjunction, verb of being, punctuation, KB value or date, as a DETAIL lexeme; None when it
    is empty or made only of generic words ("a reminder")."""
    tokens = lexed.tokens
    taken = {k for lx in lexed.lexemes if lx.cat == "VAL" for k in range(lx.start_tok, lx.end_tok)}
    while i < len(tokens) and tokens[i].lower in _SKIPPED:
        i += 1
    # "a reminder for the 8th at 5 pm for yoga": the detail follows the date and time
    k = i
    while k < len(tokens) and (k in taken or tokens[k].lower in _BETWEEN_VALUES):
        k += 1
    if k > i and k < len(tokens) and tokens[k].lower == "for":
        return phrase_after(lexed, k + 1, kinds)
    j = i
    while (
        j < len(tokens)
        and j - i < _MAX_WORDS
        and tokens[j].kind in ("word", "clitic")
        and j not in taken
        and tokens[j].lower not in _BOUNDARIES
    ):
        j += 1
    words = [t.lower for t in tokens[i:j] if t.kind == "word"]
    if not words or all("generic-detail" in kinds(w) for w in words):
        return None
    text = lexed.text[tokens[i].start : tokens[j - 1].end]
    return Lexeme("DETAIL", i, j, tokens[i].start, tokens[j - 1].end, text)


def request_details(
    lexed: LexedText,
    kinds: Callable[[str], tuple[object, ...]],
    is_person: Callable[[Lexeme], bool],
) -> dict[str, list[Lexeme]]:
    """Slot -> the detail phrases a text gives for it (`phrase_after` each detail phrase).

    `kinds` gives a word's word-list kinds and `is_person` whether a name lexeme names a
    person."""
    tokens = lexed.tokens
    names = {(lx.start_tok, lx.end_tok) for lx in lexed.lexemes if is_person(lx)}
    lowered = [t.lower for t in tokens]
    out: dict[str, list[Lexeme]] = {}
    for marker in lexed.markers:
        if marker.kind.startswith(_MARKER):
            i = next((k for k, t in enumerate(tokens) if t.start >= marker.end), len(tokens))
            slot = marker.kind[len(_MARKER) :]
        elif marker.kind == "event-confirming":
            sentence = next(s for s in lexed.sentences if s.start <= marker.start < s.end + 1)
            i = past_openers(lowered, kinds, sentence.start_token)
            slot = "event"
        else:
            continue
        found = phrase_after(lexed, i, kinds)
        if found is not None and not (
            slot in _NOT_A_NAME and (found.start_tok, found.end_tok) in names
        ):
            out.setdefault(slot, []).append(found)
    return out


def count_details(lexed: LexedText) -> dict[str, list[Lexeme]]:
    """How many of a thing a text asks for or restates: "4 tickets", "three tickets" give the
    slot "count of ticket" a COUNT lexeme (the number) whose value_key is its value. A number
    inside another value ("7 pm", "$40") counts nothing."""
    tokens = lexed.tokens
    taken = {
        k
        for lx in lexed.lexemes
        if lx.cat == "VAL" and lx.value_type != ValueType.number
        for k in range(lx.start_tok, lx.end_tok)
    }
    out: dict[str, list[Lexeme]] = {}
    for i in range(len(tokens) - 1):
        token, noun = tokens[i], tokens[i + 1]
        if i in taken or i + 1 in taken or noun.kind != "word":
            continue
        number = int(token.text) if token.kind == "num" and token.text.isdigit() else None
        number = NUMBER_WORDS.get(token.lower, number)
        if number is None or noun.lower in _BOUNDARIES or noun.lower in _SKIPPED:
            continue
        stems = content_stems([noun.text])
        if not stems:
            continue
        # the number is the detail said ("2" of "2 passes"): what a restatement must keep
        count = Lexeme("COUNT", i, i + 1, token.start, token.end, token.text, value_key=str(number))
        out.setdefault(f"count of {stems[0]}", []).append(count)
    return out
