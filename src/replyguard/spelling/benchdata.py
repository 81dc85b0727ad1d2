"""Readers for the spelling benchmark's public datasets (the layout of shared/data/README.md)."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path

_ERR_RE = re.compile(r"<ERR targ=(?P<target>[^>]*)> (?P<typed>.*?) </ERR>")


@dataclass(frozen=True, slots=True)
class Misspelling:
    typed: str
    target: str


@dataclass(frozen=True, slots=True)
class TaggedError:
    start: int
    end: int
    typed: str
    target: str


@dataclass(frozen=True, slots=True)
class TaggedLine:
    text: str
    errors: tuple[TaggedError, ...]


@dataclass(frozen=True, slots=True)
class KBTurn:
    utterance: str
    kb_terms: tuple[str, ...]


def read_word_list(path: Path) -> list[Misspelling]:
    """Mitton's format: ``$correct`` then its misspellings, one a line; ``_`` is a space."""
    pairs = []
    target = None
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line.startswith("$"):
            target = line[1:].replace("_", " ")
        elif line and target is not None:
            pairs.append(Misspelling(line.replace("_", " "), target))
    return pairs


def read_norvig(path: Path) -> list[Misspelling]:
    """Norvig's spell-testset1: a Python dict literal ``{'right': 'wrong1 wrong2', ...}``."""
    literal = path.read_text(encoding="utf-8").split("=", 1)[1]
    table: dict[str, str] = ast.literal_eval(literal.strip())
    return [
        Misspelling(wrong, right) for right, wrongs in table.items() for wrong in wrongs.split()
    ]


def read_holbrook(path: Path) -> list[TaggedLine]:
    """Running text with ``<ERR targ=goes> go </ERR>`` tags, one line a sentence or so."""
    lines = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        text, errors, last = [], [], 0
        length = 0
        for match in _ERR_RE.finditer(raw):
            plain = raw[last : match.start()]
            text.append(plain)
            length += len(plain)
            typed = match.group("typed")
            errors.append(TaggedError(length, length + len(typed), typed, match.group("target")))
            text.append(typed)
            length += len(typed)
            last = match.end()
        text.append(raw[last:])
        joined = "".join(text)
        if joined.strip():
            lines.append(TaggedLine(joined, tuple(errors)))
    return lines


def read_jfleg(directory: Path) -> tuple[list[str], list[list[str]]]:
    """Source sentences and the four reference sets of JFLEG dev."""
    sources = (directory / "dev.src").read_text(encoding="utf-8").splitlines()
    references = [
        (directory / f"dev.ref{k}").read_text(encoding="utf-8").splitlines() for k in range(4)
    ]
    return sources, references


def read_kvret(path: Path) -> list[KBTurn]:
    """Gold assistant turns with every value and column name of their dialogue's KB."""
    turns = []
    for dialogue in json.loads(path.read_text(encoding="utf-8")):
        kb = dialogue["scenario"]["kb"]
        terms: set[str] = set()
        for row in kb.get("items") or []:
            terms.update(str(v) for v in row.values() if v not in (None, "", "-"))
        terms.update(c.replace("_", " ") for c in kb.get("column_names") or [])
        for turn in dialogue["dialogue"]:
            if turn["turn"] == "assistant":
                turns.append(KBTurn(turn["data"]["utterance"], tuple(sorted(terms))))
    return turns
