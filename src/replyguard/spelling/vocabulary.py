"""What the corrector knows: English, plus every word the KB and the dialogue use.

KB names, aliases, attribute values and cue phrases, and the words of the dialogue, are known words
with the prior of a common word, so a name is never "corrected" into a dictionary word and a
misspelt name is corrected towards the KB's spelling.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from replyguard.spelling.candidates import DeleteIndex, SoundIndex, bulk_allocation
from replyguard.spelling.lexicon import Lexicon, english
from replyguard.spelling.tokens import tokenize

# Pieces of contractions as tokenised text writes them ("do n't", "it 's").
_CLITICS = frozenset({"n't", "'s", "'re", "'ll", "'ve", "'d", "'m"})
_LETTERS = "abcdefghijklmnopqrstuvwxyz'"


@cache
def english_words() -> frozenset[str]:
    with bulk_allocation():
        return frozenset(english().words())


@cache
def english_indexes() -> tuple[DeleteIndex, SoundIndex]:
    """Candidate indexes over the English lexicon, built once per process.

    Words of four letters or fewer stay out of the sound index: their misspellings are within two
    edits (measured: no loss on the word lists, a tenth of a second less to build).
    """
    lexicon = english()
    return DeleteIndex(english_words()), SoundIndex(w for w in lexicon.written if len(w) >= 5)


def one_edit(word: str) -> set[str]:
    """Every string one deletion, transposition, substitution or insertion away from ``word``."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    edits = {a + b[1:] for a, b in splits if b}
    edits.update(a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1)
    edits.update(a + ch + b[1:] for a, b in splits if b for ch in _LETTERS)
    edits.update(a + ch + b for a, b in splits for ch in _LETTERS)
    edits.discard(word)
    return edits


class Vocabulary:
    def __init__(self, extra_words: Iterable[str], kb_prior: float, written_weight: float) -> None:
        self.lexicon: Lexicon = english()
        self._english_index, self._sound_index = english_indexes()
        self.kb_prior = kb_prior
        self.written_weight = written_weight
        self.extra: dict[str, str] = {}  # lower-case word -> the KB's spelling
        self.phrases: set[tuple[str, ...]] = set()  # the multi-word terms, lower-case words
        self.phrase_lengths: dict[str, set[int]] = {}  # first word -> the lengths of its terms
        for term in extra_words:
            parts = [t for t in tokenize(term) if t.kind != "punct"]
            for part in parts:
                if part.kind == "word":
                    self.extra.setdefault(part.lower, part.text)
            if len(parts) > 1:
                self.phrases.add(tuple(t.lower for t in parts))
                self.phrase_lengths.setdefault(parts[0].lower, set()).add(len(parts))
        self._extra_index = DeleteIndex(self.extra)

    def known(self, word: str) -> bool:
        """``word`` is lower-case."""
        return (
            word in self.extra
            or word in self.lexicon
            or word in _CLITICS
            or (word.endswith("'s") and word[:-2] in self.lexicon)
        )

    def prior(self, word: str) -> float:
        english_prior = self.lexicon.prior(word, self.written_weight)
        return max(english_prior, self.kb_prior) if word in self.extra else english_prior

    def kb_spelling(self, word: str) -> str | None:
        return self.extra.get(word)

    def candidates(self, word: str, kb_only: bool = False) -> set[str]:
        """Known words within two edits, words that sound alike, and the splits of ``word`` into
        two common words ("alot" → "a lot"); only KB and dialogue words if ``kb_only``."""
        found = self._extra_index.lookup(word)
        if not kb_only:
            found.update(self._english_index.lookup(word))
            found.update(self._sound_index.lookup(word))
            found.update(self._splits(word))
        found.discard(word)
        return found

    def neighbours(self, word: str) -> set[str]:
        """Known words one edit from ``word`` (generated and looked up: faster than the index
        for a single edit)."""
        edits = one_edit(word)
        english = english_words()  # two lookups, not a union of 82,000 words per KB
        return {e for e in edits if e in english or e in self.extra}

    def _splits(self, word: str) -> list[str]:
        written = self.lexicon.written
        return [
            f"{word[:i]} {word[i:]}"
            for i in range(1, len(word))
            if (i > 1 or word[0] in "ai")
            and len(word) - i > 1
            and word[:i] in written
            and word[i:] in written
        ]
