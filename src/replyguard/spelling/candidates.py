"""Candidate generation: every known word within two edits of a typed word, fast.

The index is SymSpell's symmetric-delete scheme: two strings within edit distance 2 share a string
obtained by deleting at most two characters from each. Deletes are taken from a five-letter prefix
and indexed per *prefix group* (all words sharing that prefix), which keeps construction to about
a third of a second for 160k words; every hit is then verified with rapidfuzz's optimal-string-
alignment distance (a transposition is one edit). docs/spelling.md compares this with symspellpy's
own lookup, liblevenshtein's automata and rapidfuzz brute force, measured in the benchmark.

A second index groups words by a sound key, so "lauf" finds "laugh" and "hypotathes" finds
"hypothesis" even three or four edits away.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterable
from contextlib import contextmanager

from rapidfuzz import process
from rapidfuzz.distance import OSA

PREFIX = 5
MAX_DISTANCE = 2


def _deletes(prefix: str) -> set[str]:
    """The prefix and every string made by deleting one or two of its characters."""
    keys = {prefix}
    for i in range(len(prefix)):
        one = prefix[:i] + prefix[i + 1 :]
        keys.add(one)
        for j in range(i, len(one)):
            keys.add(one[:j] + one[j + 1 :])
    return keys


@contextmanager
def bulk_allocation():
    """Pause the cyclic collector: building an index allocates a million small containers and
    none of them can form a cycle."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class DeleteIndex:
    """Words reachable within :data:`MAX_DISTANCE` edits (OSA distance)."""

    def __init__(self, words: Iterable[str]) -> None:
        """``words`` must be distinct."""
        self._groups: dict[str, list[str]] = {}
        self._deletes: dict[str, list[str]] = {}
        with bulk_allocation():
            for word in words:
                self._add(word)

    def _add(self, word: str) -> None:
        prefix = word[:PREFIX]
        group = self._groups.get(prefix)
        if group is not None:
            group.append(word)
            return
        self._groups[prefix] = [word]
        deletes = self._deletes
        for key in _deletes(prefix):
            prefixes = deletes.get(key)
            if prefixes is None:
                deletes[key] = [prefix]
            else:
                prefixes.append(prefix)

    def lookup(self, word: str) -> set[str]:
        """Every indexed word within :data:`MAX_DISTANCE` edits of ``word``."""
        prefixes: set[str] = set()
        for key in _deletes(word[:PREFIX]):
            prefixes.update(self._deletes.get(key, ()))
        pool: list[str] = []
        for prefix in prefixes:
            pool.extend(self._groups[prefix])
        hits = process.extract(
            word, pool, scorer=OSA.distance, score_cutoff=MAX_DISTANCE, limit=None
        )
        return {hit for hit, _, _ in hits}


_SOUND_RE = re.compile(
    r"^(?:kn|gn|pn|wr|ps|wh)|sch|tch|ch|sh|ph|gh(?![aeiou])|ck|dg(?=[eiy])|[cqxz]|g(?=[eiy])|mb$"
    r"|ould|alk|alm"
)
_SOUNDS = {
    "kn": "n",
    "gn": "n",
    "pn": "n",
    "wr": "r",
    "ps": "s",
    "wh": "w",
    "sch": "sk",
    "tch": "k",
    "ch": "k",
    "sh": "x",
    "ph": "f",
    "gh": "",
    "ck": "k",
    "dg": "j",
    "q": "k",
    "z": "s",
    "g": "j",
    "mb": "m",
    "ould": "ud",
    "alk": "ak",
    "alm": "am",
}
_QUIET_RE = re.compile(r"(?<=[^aeiouy])h|w(?![aeiouy])|(?<=.)[aeiouy]")
_DOUBLE_RE = re.compile(r"(.)\1+")


def _sound(match: re.Match[str]) -> str:
    letters = match.group()
    if letters == "c":
        following = match.string[match.end() : match.end() + 1]
        return "s" if following in ("e", "i", "y") else "k"
    if letters == "x":
        return "s" if match.start() == 0 else "ks"
    return _SOUNDS[letters]


def sound_key(word: str) -> str:
    """A coarse English pronunciation key: consonant sounds, one mark for an initial vowel.

    Spellings that sound alike share a key ("juse"/"juice" → ``jus``, "stomec"/"stomach" →
    ``stmk``); the corrector adds the edit distance between keys to a candidate's cost.
    """
    sounded = _QUIET_RE.sub("", _SOUND_RE.sub(_sound, word.lower().replace(" ", "")))
    if sounded[:1] in ("a", "e", "i", "o", "u", "y"):
        sounded = "a" + sounded[1:]
    return _DOUBLE_RE.sub(r"\1", sounded)


class SoundIndex:
    """Words grouped by :func:`sound_key`."""

    def __init__(self, words: Iterable[str]) -> None:
        self._groups: dict[str, list[str]] = {}
        with bulk_allocation():
            for word in words:
                self._groups.setdefault(sound_key(word), []).append(word)

    def lookup(self, word: str) -> list[str]:
        return self._groups.get(sound_key(word), [])
