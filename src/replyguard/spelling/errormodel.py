"""The error model: how costly it is to have typed one word when another was meant.

A weighted optimal-string-alignment distance. People misspell by sound and by doubling, so the
edits they make most are cheap: a vowel for a vowel, a letter of the same sound class (c/k/s,
i/y, f/v, …), a doubled or undoubled letter, a vowel dropped from a vowel pair or a silent final
"e", a silent "h" after a consonant or a silent initial letter (wr-, kn-, gn-, ps-), and two
neighbouring letters swapped; a dropped apostrophe ("dont") and a missing space ("alot") are
cheaper still. Any other edit costs 1.
A changed first letter costs extra (people rarely get it wrong) unless it sounds the same, and the
distance between the two words' sound keys is added, weighted, so that spellings which sound like
the word win ties.

The weights are data: ``(edit-cost NAME VALUE)`` atoms in ``metta/spelling.metta``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import lru_cache

from rapidfuzz.distance import Levenshtein

from replyguard.spelling.candidates import sound_key

_VOWELS = frozenset("aeiou")
_SOUND_CLASSES = (
    frozenset("ckqsxz"),
    frozenset("iy"),
    frozenset("fv"),
    frozenset("gj"),
    frozenset("mn"),
    frozenset("dt"),
    frozenset("bp"),
)
_KEYBOARD = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_KEY_POSITION = {
    ch: (row, col) for row, keys in enumerate(_KEYBOARD) for col, ch in enumerate(keys)
}
_SILENT_H_AFTER = frozenset("cgpstwr")
_SILENT_BEFORE = {"w": "r", "k": "n", "g": "n", "p": "s"}  # initial wr-, kn-, gn-, ps-


@dataclass(frozen=True, slots=True)
class EditCosts:
    """Cost of each kind of edit, in units of one ordinary edit."""

    vowel_substitution: float = 0.6
    sound_substitution: float = 0.7
    keyboard_substitution: float = 0.9
    doubled_letter: float = 0.4
    vowel: float = 0.7
    vowel_pair: float = 0.5
    silent_letter: float = 0.4
    transposition: float = 0.6
    apostrophe: float = 0.2
    word_split: float = 0.6
    first_letter: float = 0.3
    sound_distance: float = 0.5

    @classmethod
    def names(cls) -> dict[str, str]:
        """MeTTa atom name (``vowel-substitution``) → field name."""
        return {f.name.replace("_", "-"): f.name for f in fields(cls)}


def _adjacent_keys(a: str, b: str) -> bool:
    pa, pb = _KEY_POSITION.get(a), _KEY_POSITION.get(b)
    return pa is not None and pb is not None and abs(pa[0] - pb[0]) <= 1 and abs(pa[1] - pb[1]) <= 1


class ErrorModel:
    """``cost(intended, typed)``: lower means the typo is more likely."""

    def __init__(self, costs: EditCosts) -> None:
        self.costs = costs
        self._substitution = lru_cache(maxsize=4096)(self._substitution_cost)

    def _substitution_cost(self, a: str, b: str) -> float:
        c = self.costs
        if a in _VOWELS and b in _VOWELS:
            return c.vowel_substitution
        if any(a in group and b in group for group in _SOUND_CLASSES):
            return c.sound_substitution
        if _adjacent_keys(a, b):
            return c.keyboard_substitution
        return 1.0

    def _indel(self, word: str, i: int) -> float:
        """Cost of the letter ``word[i]`` being inserted or dropped."""
        c = self.costs
        ch = word[i]
        before = word[i - 1] if i else ""
        after = word[i + 1] if i + 1 < len(word) else ""
        if ch == "'":
            return c.apostrophe
        if ch == " ":
            return c.word_split
        if ch in (before, after):
            return c.doubled_letter
        if ch in _VOWELS:
            if before in _VOWELS or after in _VOWELS or (ch == "e" and not after):
                return c.vowel_pair
            return c.vowel
        silent_initial = i == 0 and _SILENT_BEFORE.get(ch) == after
        if (ch == "h" and before in _SILENT_H_AFTER) or silent_initial:
            return c.silent_letter
        return 1.0

    def edit_cost(self, intended: str, typed: str) -> float:
        """Weighted optimal-string-alignment distance."""
        n, m = len(intended), len(typed)
        drop = [self._indel(intended, i) for i in range(n)]
        extra = [self._indel(typed, j) for j in range(m)]
        before: list[float] = []
        previous = [0.0] * (m + 1)
        for j in range(m):
            previous[j + 1] = previous[j] + extra[j]
        for i in range(1, n + 1):
            a = intended[i - 1]
            current = [previous[0] + drop[i - 1]] + [0.0] * m
            for j in range(1, m + 1):
                b = typed[j - 1]
                best = min(
                    previous[j] + drop[i - 1],
                    current[j - 1] + extra[j - 1],
                    previous[j - 1] + (0.0 if a == b else self._substitution(a, b)),
                )
                if i > 1 and j > 1 and a != b and a == typed[j - 2] and intended[i - 2] == b:
                    best = min(best, before[j - 2] + self.costs.transposition)
                current[j] = best
            before, previous = previous, current
        return previous[m]

    def cost(self, intended: str, typed: str) -> float:
        """Edit cost plus the first-letter and sound-key terms."""
        total = self.edit_cost(intended, typed)
        intended_sound, typed_sound = sound_key(intended), sound_key(typed)
        if intended[:1] != typed[:1] and intended_sound[:1] != typed_sound[:1]:
            total += self.costs.first_letter
        sound_gap = Levenshtein.distance(intended_sound, typed_sound)
        return total + self.costs.sound_distance * sound_gap

    @property
    def cheapest_edit(self) -> float:
        """A lower bound on the cost of one edit, for pruning."""
        return min(
            self.costs.vowel_substitution,
            self.costs.sound_substitution,
            self.costs.keyboard_substitution,
            self.costs.doubled_letter,
            self.costs.vowel,
            self.costs.vowel_pair,
            self.costs.silent_letter,
            self.costs.transposition,
            self.costs.apostrophe,
            self.costs.word_split,
            1.0,
        )
