"""Tokens and sentence segments with spans into the original text.

Typed strings (URLs, emails, phone numbers, times, dates, numbers, codes) are single tokens of
their own kind, so no tier ever sees half an email. Segments are what the syntactic rules match
within: a sentence, or a line that ends without terminal punctuation (a list item, a heading, the
last line of a reply).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_TLDS = "com|org|net|edu|gov|io|ai|co|uk|us|de|fr|info|biz|app|dev|me|ly"
_URL_TAIL = r"[^\s<>\"'`]*[^\s<>\"'`.,;:!?)\]]"
_TOKEN_RE = re.compile(
    "|".join(
        [
            rf"(?P<url>(?i:\b(?:https?://|ftp://|www\.){_URL_TAIL}"
            rf"|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:{_TLDS})\b(?:/{_URL_TAIL})?))",
            r"(?P<email>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)",
            r"(?P<phone>(?<![\w+])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)\s?|\d{2,4}[\s.-])"
            r"\d{3,4}[\s.-]?\d{3,4}\b)",
            r"(?P<time>(?i:\b\d{1,2}(?::\d{2}){1,2}(?:\s?[ap]\.?m\b\.?)?(?![\w:])"
            r"|\b\d{1,2}\s?[ap]\.?m\b\.?))",
            r"(?P<date>\b\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}\b)",
            r"(?P<code>\b[A-Za-z]+[-_]?\d[\w-]*|\b\w*_\w+|\b[a-z]+[A-Z][A-Za-z0-9]*"
            r"|\b[A-Z]{2,}s?\b)",
            r"(?P<number>[$€£]?\d[\d,]*(?:\.\d+)?(?:%|st\b|nd\b|rd\b|th\b|[a-zA-Z]{1,3}\b)?)",
            r"(?P<word>[^\W\d_]+(?:['’][^\W\d_]+)*)",
            r"(?P<punct>\.{2,}|[^\w\s])",
        ]
    )
)
_TERMINAL = {".", "!", "?", "..."}
_CLOSERS = {'"', "'", ")", "]", "”", "’", "»"}
_LIST_MARKER_RE = re.compile(r"[ \t]*(?:[-*•+>#]|\d{1,3}[.)])\s")


@dataclass(frozen=True, slots=True)
class Token:
    text: str
    start: int
    end: int
    kind: str  # word | number | time | date | phone | email | url | code | punct

    @property
    def lower(self) -> str:
        return self.text.lower().replace("’", "'")


@dataclass(slots=True)
class Segment:
    """A sentence or line: the unit the syntactic rules see.

    ``terminated``: ends with ., ! or ?; ``paragraph_end``: followed by a blank line or the end of
    the text; ``list_item``: starts a line with a list marker or heading mark.
    """

    tokens: list[Token] = field(default_factory=list)
    terminated: bool = False
    paragraph_end: bool = False
    list_item: bool = False


def tokenize(text: str) -> list[Token]:
    return [
        Token(match.group(), match.start(), match.end(), match.lastgroup or "punct")
        for match in _TOKEN_RE.finditer(text)
    ]


def segments(text: str, tokens: list[Token], abbreviations: frozenset[str]) -> list[Segment]:
    """Split ``tokens`` into sentences and lines."""
    result: list[Segment] = []
    current = Segment()
    for i, token in enumerate(tokens):
        if not current.tokens:
            line_start = text.rfind("\n", 0, token.start) + 1
            current.list_item = (
                bool(_LIST_MARKER_RE.match(text, line_start))
                and not text[line_start : token.start].strip()
            )
        current.tokens.append(token)
        following = tokens[i + 1] if i + 1 < len(tokens) else None
        gap = text[token.end : following.start] if following else text[token.end :]
        if following is not None and following.text in _CLOSERS and not gap:
            continue
        ends_sentence = _is_terminal(current.tokens) and not _is_abbreviation(
            current.tokens, abbreviations
        )
        if ends_sentence or "\n" in gap or following is None:
            current.terminated = ends_sentence
            current.paragraph_end = following is None or gap.count("\n") >= 2
            result.append(current)
            current = Segment()
    return result


def _is_terminal(tokens: list[Token]) -> bool:
    for token in reversed(tokens):
        if token.text in _CLOSERS:
            continue
        return token.text in _TERMINAL
    return False


def _is_abbreviation(tokens: list[Token], abbreviations: frozenset[str]) -> bool:
    """A full stop after "Dr", "etc" or a single letter ("e.g.") does not end a sentence."""
    if len(tokens) < 2 or tokens[-1].text != ".":
        return False
    word = tokens[-2]
    if word.end != tokens[-1].start or word.kind != "word":
        return False
    return word.lower in abbreviations or len(word.text) == 1
