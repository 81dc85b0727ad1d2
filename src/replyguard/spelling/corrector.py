"""The spelling and grammar corrector: three tiers over one pass of slots.

1. **Lexical** — an unknown word is replaced by its likeliest intended word (noisy channel with
   bigram context, :mod:`ranking`) when that beats "the word is right as typed". A capitalised
   word inside a sentence is a name: only KB terms are candidates for it; at a sentence start it
   may be a name or a typo ("Teh"), so "right as typed" gets a bonus against English candidates.
2. **Syntactic** — the pattern rules, in file order, then confusion sets resolved by context.
3. **Semantic** — protection (:mod:`protect`): a change to a KB term, number, date, time, email,
   phone, URL, code or quoted text is refused and logged; a real-word error ("meting") is corrected
   only when the neighbouring words make a one-edit neighbour clearly likelier.

Corrections are span edits on the original text (:class:`TextEdit`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache
from importlib import resources

from hyperon import Atom, SExprParser, Tokenizer

from replyguard.spelling.edits import Rejection, TextEdit
from replyguard.spelling.errormodel import ErrorModel
from replyguard.spelling.protect import protected_tokens
from replyguard.spelling.ranking import Context, Ranker, posterior
from replyguard.spelling.rulebook import RuleBook, read_rulebook
from replyguard.spelling.slots import Journal, Slot, Step, edits_of
from replyguard.spelling.syntax import RuleEngine, SentenceView
from replyguard.spelling.tokens import segments, tokenize
from replyguard.spelling.vocabulary import Vocabulary

_PLAIN_WORD = re.compile(r"[a-z]+(?:'[a-z]+)*")


@cache
def shipped_atoms() -> tuple[Atom, ...]:
    """The atoms of the shipped ``metta/spelling.metta``."""
    text = (resources.files("replyguard.metta") / "spelling.metta").read_text(encoding="utf-8")
    parser, tokenizer = SExprParser(text), Tokenizer()
    atoms = []
    while (atom := parser.parse(tokenizer)) is not None:
        atoms.append(atom)
    return tuple(atoms)


class SpellingCorrector:
    """Build once per KB (about a second the first time in a process), then call :meth:`correct`.

    ``extra_words``: KB names, aliases, attribute values, cue phrases and dialogue words — known
    words that are never corrected away (multi-word terms are protected as phrases).
    ``rule_atoms``: the parsed spelling atoms (shipped plus a user's); the shipped file by default.
    ``rulebook``: those atoms already read (an engine reads them once per load of the rules).
    """

    def __init__(
        self,
        extra_words: Iterable[str] = (),
        rule_atoms: Sequence[Atom] | None = None,
        rulebook: RuleBook | None = None,
    ) -> None:
        if rulebook is None:
            rulebook = read_rulebook(shipped_atoms() if rule_atoms is None else rule_atoms)
        self.rules = rulebook
        setting = self.rules.setting
        self.vocabulary = Vocabulary(
            extra_words, kb_prior=setting("kb-word-prior"), written_weight=setting("written-weight")
        )
        self.ranker = Ranker(
            self.vocabulary,
            ErrorModel(self.rules.costs),
            nats_per_edit=setting("nats-per-edit"),
            context_weight=setting("context-weight"),
        )
        self.min_confidence = setting("min-confidence")
        self.engine = RuleEngine(self.rules, self.ranker, self.min_confidence)
        self._keep_score = setting("unknown-word-score")
        self._name_bonus = setting("capitalised-unknown-bonus")
        self._real_word_cost = setting("real-word-cost")
        self._real_word_max_prior = setting("real-word-max-prior")
        self._min_length = int(setting("min-word-length"))
        self._alternatives = int(setting("max-alternatives"))
        self._abbreviations = self.rules.word_class("abbreviation")

    # --- isolated words ---------------------------------------------------------------------
    def suggest(self, word: str, limit: int = 3) -> list[str]:
        """Likeliest intended words for one word out of context, best first; a known word is its
        own only suggestion."""
        lower = word.lower()
        if self.vocabulary.known(lower):
            return [lower]
        ranked = self.ranker.rank(lower, self.vocabulary.candidates(lower), Context(), limit)
        return [s.word for s in ranked] or [lower]

    # --- running text -----------------------------------------------------------------------
    def correct(self, text: str, protected: Sequence[tuple[int, int]] = ()) -> list[TextEdit]:
        return self.correct_with_log(text, protected)[0]

    def correct_with_log(
        self, text: str, protected: Sequence[tuple[int, int]] = ()
    ) -> tuple[list[TextEdit], list[Rejection]]:
        """The corrections (spans into ``text``, in order) and the corrections refused."""
        tokens = tokenize(text)
        reasons = protected_tokens(text, tokens, self.vocabulary, protected)
        slots = [Slot(token, reasons.get(i)) for i, token in enumerate(tokens)]
        journal = Journal()
        offset = 0
        for segment in segments(text, tokens, self._abbreviations):
            sentence = slots[offset : offset + len(segment.tokens)]
            offset += len(segment.tokens)
            self._correct_unknown_words(sentence, journal)
            self._correct_real_words(sentence, journal)
            self.engine.apply_rules(sentence, segment, journal)
            self.engine.resolve_confusions(SentenceView(sentence, segment), journal)
        return edits_of(slots, text), journal.rejections

    def _correct_unknown_words(self, sentence: list[Slot], journal: Journal) -> None:
        first_word = next((s for s in sentence if s.is_word), None)
        for i, slot in enumerate(sentence):
            word = slot.lower
            if (
                not slot.is_word
                or len(word) < self._min_length
                or not _PLAIN_WORD.fullmatch(word)
                or self.vocabulary.known(word)
            ):
                continue
            names_only = slot.text[:1].isupper() and slot is not first_word
            candidates = self.vocabulary.candidates(word, kb_only=names_only)
            if "'" in word:  # "does'nt" -> "doesn't", but "j'aime" is no misspelt English word
                candidates = {c for c in candidates if "'" in c}
            ranked = self.ranker.rank(
                word, candidates, self._context(sentence, i), self._alternatives + 1
            )
            if not ranked:
                continue
            best, others = ranked[0], ranked[1:]
            may_be_name = slot.text[:1].isupper() and not names_only
            keep = self._keep_score + (self._name_bonus if may_be_name else 0.0)
            confidence = posterior(best.score, [keep, *(s.score for s in others)])
            if confidence < self.min_confidence:
                continue
            step = Step(
                "lexical",
                None,
                f'"{slot.text}" is not a known word; "{best.word}" is the likeliest',
                confidence,
                tuple(s.word for s in others),
            )
            journal.change(slot, self._spell(slot.text, best.word), step)

    def _correct_real_words(self, sentence: list[Slot], journal: Journal) -> None:
        lexicon = self.vocabulary.lexicon
        for i, slot in enumerate(sentence):
            word = slot.lower
            if (
                not slot.is_word
                or slot.steps
                or len(word) < self._min_length
                or not _PLAIN_WORD.fullmatch(word)
                or word in self.vocabulary.extra
                or word not in lexicon
                or self.vocabulary.prior(word) > self._real_word_max_prior
            ):
                continue
            context = self._context(sentence, i)
            if context == Context() or self._supported(word, context):
                continue
            own = self.ranker.fit(word, context)
            candidates = self.vocabulary.neighbours(word)
            ranked = self.ranker.rank(
                word, candidates, context, self._alternatives + 1, extra_cost=self._real_word_cost
            )
            if not ranked:
                continue
            best, others = ranked[0], ranked[1:]
            confidence = posterior(best.score, [own, *(s.score for s in others)])
            if confidence < self.min_confidence:
                continue
            step = Step(
                "semantic",
                None,
                f'"{best.word}" fits the neighbouring words far better than "{slot.text}"',
                confidence,
                tuple(s.word for s in others),
            )
            journal.change(slot, self._spell(slot.text, best.word), step)

    def _supported(self, word: str, context: Context) -> bool:
        """A neighbour that often goes with ``word`` vouches for it."""
        lexicon = self.vocabulary.lexicon
        return (context.left is not None and lexicon.association(context.left, word) > 0) or (
            context.right is not None and lexicon.association(word, context.right) > 0
        )

    def _context(self, sentence: list[Slot], i: int) -> Context:
        def known(j: int) -> str | None:
            if 0 <= j < len(sentence) and sentence[j].is_word:
                word = sentence[j].lower
                return word if self.vocabulary.known(word) else None
            return None

        return Context(known(i - 1), known(i + 1))

    def _spell(self, typed: str, word: str) -> str:
        """``word`` as the KB spells it if it is a capitalised KB term, else in ``typed``'s case."""
        kb = self.vocabulary.kb_spelling(word)
        if kb is not None and kb != kb.lower():
            return kb
        if typed[:1].isupper():
            return word[:1].upper() + word[1:]
        return word
