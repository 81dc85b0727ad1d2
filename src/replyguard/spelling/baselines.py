"""The benchmark's comparison systems, each an optional import (skipped with a note if missing).

* symspellpy's plain ``lookup`` (closest edit distance, then frequency) over its own 82k list;
* pyspellchecker's ``candidates`` ranked by its word frequency (Norvig's method);
* hunspell's ``suggest`` (``pip install hunspell`` plus Debian's ``hunspell-en-us``);
* candidate generators for the same 82k words: symspellpy, rapidfuzz brute force and
  liblevenshtein's automata over a trie.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path

from replyguard.spelling.edits import TextEdit

Suggest = Callable[[str], list[str]]
HUNSPELL_DIC = Path("/usr/share/hunspell/en_US.dic")
_WORD_RE = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)*")


def symspell() -> tuple[Suggest, Callable[[str], bool]]:
    from importlib import resources

    from symspellpy import SymSpell, Verbosity

    checker = SymSpell(max_dictionary_edit_distance=2)
    checker.load_dictionary(
        str(resources.files("symspellpy") / "frequency_dictionary_en_82_765.txt"), 0, 1
    )

    def suggest(word: str) -> list[str]:
        found = checker.lookup(word.lower(), Verbosity.ALL, 2, include_unknown=True)
        return [s.term for s in found][:3]

    return suggest, lambda word: word.lower() in checker.words


def pyspellchecker() -> tuple[Suggest, Callable[[str], bool]]:
    from spellchecker import SpellChecker

    checker = SpellChecker()

    def suggest(word: str) -> list[str]:
        found = checker.candidates(word.lower()) or {word.lower()}
        return sorted(found, key=lambda w: (-checker.word_usage_frequency(w), w))[:3]

    return suggest, lambda word: word.lower() in checker


def hunspell() -> tuple[Suggest, Callable[[str], bool]]:
    import hunspell as binding

    checker = binding.HunSpell(str(HUNSPELL_DIC), str(HUNSPELL_DIC.with_suffix(".aff")))

    def suggest(word: str) -> list[str]:
        return [word] if checker.spell(word) else list(checker.suggest(word))[:3]

    return suggest, checker.spell


def word_by_word(text: str, suggest: Suggest, known: Callable[[str], bool]) -> list[TextEdit]:
    """A context-free corrector: each unknown word becomes its first suggestion."""
    edits = []
    for match in _WORD_RE.finditer(text):
        word = match.group()
        if len(word) < 3 or known(word) or word[:1].isupper():
            continue
        suggestions = suggest(word)
        if suggestions and suggestions[0] != word.lower():
            edits.append(
                TextEdit(
                    tier="lexical",
                    original=word,
                    replacement=suggestions[0],
                    start=match.start(),
                    end=match.end(),
                    confidence=1.0,
                )
            )
    return edits


# --- candidate generators over one word list -------------------------------------------------
def symspell_generator(words: dict[str, int]) -> Callable[[str], set[str]]:
    from symspellpy import SymSpell, Verbosity

    index = SymSpell(max_dictionary_edit_distance=2)
    for word, count in words.items():
        index.create_dictionary_entry(word, count)
    return lambda word: {s.term for s in index.lookup(word, Verbosity.ALL, 2)}


def rapidfuzz_generator(words: dict[str, int]) -> Callable[[str], set[str]]:
    from rapidfuzz import process
    from rapidfuzz.distance import OSA

    by_length: dict[int, list[str]] = {}
    for word in words:
        by_length.setdefault(len(word), []).append(word)

    def lookup(word: str) -> set[str]:
        found = set()
        for size in range(len(word) - 2, len(word) + 3):
            choices = by_length.get(size, [])
            for hit, _, _ in process.extract(
                word, choices, scorer=OSA.distance, score_cutoff=2, limit=None
            ):
                found.add(hit)
        return found

    return lookup


def liblevenshtein_generator(words: Iterable[str]) -> Callable[[str], set[str]]:
    from liblevenshtein import Algorithm, Transducer
    from vinary_tree_interop import UnicodeDictionaryResource

    edges: list[list[tuple[str, int]]] = [[]]
    final = [False]
    for word in words:
        node = 0
        for ch in word:
            for label, child in edges[node]:
                if label == ch:
                    node = child
                    break
            else:
                edges.append([])
                final.append(False)
                edges[node].append((ch, len(edges) - 1))
                node = len(edges) - 1
        final[node] = True

    class Trie:
        def root(self) -> int:
            return 0

        def __len__(self) -> int:
            return sum(final)

        def is_final(self, node: int) -> bool:
            return final[node]

        def value(self, node: int) -> int | None:
            return None

        def edges(self, node: int) -> list[tuple[str, int]]:
            return edges[node]

    trie = Trie()
    resource = UnicodeDictionaryResource(lambda: trie)
    transducer = Transducer(resource, Algorithm.TRANSPOSITION)
    return lambda word: {str(m.term) for m in transducer.query(word, 2)}
