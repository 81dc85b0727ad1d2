"""Tier 3's first duty: find what must never change.

Numbers, dates, times, emails, phone numbers, URLs and codes are tokens of their own kind; markup
(HTML/XML tags and comments), code (backtick spans, fenced blocks, the content of <code>, <pre>,
<script> and like elements) and quoted text are found here; KB terms (single words and multi-word
names) are matched against the vocabulary; the caller adds the spans it already knows. Each
protected token carries the reason a rejected correction is logged with. Markup, code, URLs and
emails are not prose at all: no tier edits them, not even by appending a full stop
(:data:`NOT_PROSE`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence

from replyguard.spelling.tokens import Token
from replyguard.spelling.vocabulary import Vocabulary

_TYPED_KINDS = {
    "number": "number",
    "time": "time",
    "date": "date",
    "phone": "phone number",
    "email": "email address",
    "url": "URL",
    "code": "code or identifier",
}
NOT_PROSE = frozenset({"markup tag", "code span", "email address", "URL"})
_CODE_RE = re.compile(r"```.*?(?:```|$)|`[^`\n]+`", re.DOTALL)
# A tag: "<" (or "</", "<?", "<!") and a name, then attributes up to ">"; quoted attribute values
# may hold ">" no more than "<", which keeps the match linear on text full of "<".
_MARKUP_RE = re.compile(
    r"<!--.*?(?:-->|$)|<[/?!]?[A-Za-z](?:\"[^\"<>]*\"|'[^'<>]*'|[^<>\"'])*>", re.DOTALL
)
# Elements whose content is code, not prose: protected from the opening tag to the closing one
# (or the end of the text).
_CODE_ELEMENTS = ("code", "pre", "kbd", "samp", "script", "style")
_CODE_ELEMENT_RE = re.compile(rf"<({'|'.join(_CODE_ELEMENTS)})\b[^<>]*>", re.IGNORECASE)
_CLOSING_RE = {name: re.compile(rf"</{name}\s*>", re.IGNORECASE) for name in _CODE_ELEMENTS}
_QUOTED_RE = re.compile(r"\"[^\"\n]{1,300}\"|“[^”\n]{1,300}”|(?<![\w'’])'[^'\n]{1,300}'(?!\w)")


def protected_tokens(
    text: str,
    tokens: Sequence[Token],
    vocabulary: Vocabulary,
    caller_spans: Sequence[tuple[int, int]],
) -> dict[int, str]:
    """Token index → why it is protected."""
    reasons: dict[int, str] = {}
    code = _Cover([*(m.span() for m in _CODE_RE.finditer(text)), *_code_elements(text)])
    markup = _Cover(m.span() for m in _MARKUP_RE.finditer(text))
    caller = _Cover(caller_spans)
    quoted = _Cover(m.span() for m in _QUOTED_RE.finditer(text))
    for i, token in enumerate(tokens):
        if code.overlaps(token):
            reasons[i] = "code span"
        elif markup.overlaps(token):
            reasons[i] = "markup tag"
        elif token.kind in _TYPED_KINDS:
            reasons[i] = _TYPED_KINDS[token.kind]
        elif caller.overlaps(token):
            reasons[i] = "span protected by the caller"
        elif quoted.overlaps(token):
            reasons[i] = "quoted text"
        elif token.lower in vocabulary.extra:
            reasons[i] = "KB or dialogue term"
    for i, j in _phrase_matches(tokens, vocabulary):
        for k in range(i, j):
            reasons.setdefault(k, "KB or dialogue term")
    return reasons


def _code_elements(text: str) -> list[tuple[int, int]]:
    """Each code element of the text, its tags included; one pass over the text."""
    spans = []
    position = 0
    while (opening := _CODE_ELEMENT_RE.search(text, position)) is not None:
        closing = _CLOSING_RE[opening[1].lower()].search(text, opening.end())
        position = closing.end() if closing else len(text)
        spans.append((opening.start(), position))
    return spans


class _Cover:
    """Character spans merged into disjoint runs, so a token's overlap is one bisection."""

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        for start, end in sorted(spans):
            if self.ends and start <= self.ends[-1]:
                self.ends[-1] = max(self.ends[-1], end)
            else:
                self.starts.append(start)
                self.ends.append(end)

    def overlaps(self, token: Token) -> bool:
        k = bisect_right(self.starts, token.start) - 1  # the last run starting at or before it
        if k >= 0 and token.start < self.ends[k]:
            return True
        return k + 1 < len(self.starts) and self.starts[k + 1] < token.end


def _phrase_matches(tokens: Sequence[Token], vocabulary: Vocabulary) -> list[tuple[int, int]]:
    """Token ranges spelling a multi-word KB term (punctuation between words is skipped)."""
    where = [i for i, t in enumerate(tokens) if t.kind != "punct"]
    words = [tokens[i].lower for i in where]
    found = []
    for n, word in enumerate(words):
        for length in vocabulary.phrase_lengths.get(word, ()):
            if n + length <= len(words) and tuple(words[n : n + length]) in vocabulary.phrases:
                found.append((where[n], where[n + length - 1] + 1))
    return found
