"""The English lexicon: which words exist, how common each is, and which word pairs are common.

Two well-kept packages ship the data, and each brings what the other lacks:

* ``symspellpy`` bundles an 82,765-word frequency list (Google Books n-gram counts intersected
  with SCOWL) and 242,342 common bigrams — written-English frequencies and the context model;
* ``pyspellchecker`` bundles a 160,572-word list with OpenSubtitles counts — conversational
  frequencies and many valid words (``desiccate``) the first list lacks.

A word is known when either list has it. Its prior is a weighted geometric mean of its relative
frequency in the two corpora (a word missing from one counts once there), so a word common in
both books and speech outranks one common in only one of them: measured on the spelling lists and
Holbrook's sentences, this ranks intended words better than either list alone, best with the
conversational list weighted 0.7 (``written-weight`` 0.3; docs/spelling.md).

The lexicon is immutable and built once per process (:func:`english`); the words a knowledge base
and a dialogue add live in the corrector, not here.
"""

from __future__ import annotations

import gzip
import json
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources

from replyguard.spelling.candidates import bulk_allocation


@dataclass(frozen=True, slots=True)
class Lexicon:
    """Priors of known lower-case words and counts of common bigrams."""

    written: dict[str, int]
    spoken: dict[str, int]
    bigrams: dict[tuple[str, str], int]
    written_total: int
    spoken_total: int
    bigram_total: int
    bigram_floor: int

    def __contains__(self, word: str) -> bool:
        return word in self.written or word in self.spoken

    def words(self) -> set[str]:
        return self.written.keys() | self.spoken.keys()

    def prior(self, word: str, written_weight: float) -> float:
        """ln P(word): the weighted mean of its log relative frequencies in the two corpora (a
        word one corpus lacks counts once there)."""
        return written_weight * math.log(self.written.get(word, 1) / self.written_total) + (
            1 - written_weight
        ) * math.log(self.spoken.get(word, 1) / self.spoken_total)

    def association(self, first: str, second: str) -> float:
        """ln P(second | first) - ln P(second): how much likelier the pair is than chance.

        The bigram list keeps only pairs seen at least ``bigram_floor`` times, so an absent pair
        is estimated as if the words were independent, capped just below that floor: two common
        words that never appear together associate negatively. A word outside the written
        frequency list gives no evidence either way (0).
        """
        a = self.written.get(first)
        b = self.written.get(second)
        if a is None or b is None:
            return 0.0
        expected = a * b * self.bigram_total / self.written_total**2
        count = self.bigrams.get((first, second))
        if count is None:
            count = min(expected, self.bigram_floor * 0.5)
        return math.log(count / expected)


def _symspell_columns(name: str, width: int) -> list[list[str]]:
    """The whitespace-separated columns of one of symspellpy's frequency files."""
    fields = (resources.files("symspellpy") / name).read_text(encoding="utf-8").split()
    return [fields[i::width] for i in range(width)]


@cache
def english() -> Lexicon:
    """The shared English lexicon (built once per process)."""
    with bulk_allocation():
        words, counts = _symspell_columns("frequency_dictionary_en_82_765.txt", 2)
        written = dict(zip(words, map(int, counts), strict=True))
        blob = (resources.files("spellchecker") / "resources" / "en.json.gz").read_bytes()
        spoken: dict[str, int] = json.loads(gzip.decompress(blob))
        first, second, counts = _symspell_columns("frequency_bigramdictionary_en_243_342.txt", 3)
        bigrams = dict(zip(zip(first, second, strict=True), map(int, counts), strict=True))
    return Lexicon(
        written=written,
        spoken=spoken,
        bigrams=bigrams,
        written_total=sum(written.values()),
        spoken_total=sum(spoken.values()),
        bigram_total=sum(bigrams.values()),
        bigram_floor=min(bigrams.values()),
    )
