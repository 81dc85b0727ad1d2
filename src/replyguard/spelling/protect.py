"""Tier 3's first duty: find what must never change.

Numbers, dates, times, emails, phone numbers, URLs and codes are tokens of their own kind; quoted
text and code are found here; KB terms (single words and multi-word names) are matched against the
vocabulary; the caller adds the spans it already knows. Each protected token carries the reason a
rejected correction is logged with.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

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
_QUOTED_RE = re.compile(
    r"```.*?```|`[^`\n]+`|\"[^\"\n]{1,300}\"|“[^”\n]{1,300}”|(?<![\w'’])'[^'\n]{1,300}'(?!\w)",
    re.DOTALL,
)


def protected_tokens(
    text: str,
    tokens: Sequence[Token],
    vocabulary: Vocabulary,
    caller_spans: Sequence[tuple[int, int]],
) -> dict[int, str]:
    """Token index → why it is protected."""
    reasons: dict[int, str] = {}
    quoted = [m.span() for m in _QUOTED_RE.finditer(text)]
    for i, token in enumerate(tokens):
        if token.kind in _TYPED_KINDS:
            reasons[i] = _TYPED_KINDS[token.kind]
        elif _overlaps(token, caller_spans):
            reasons[i] = "span protected by the caller"
        elif _overlaps(token, quoted):
            reasons[i] = "quoted text"
        elif token.lower in vocabulary.extra:
            reasons[i] = "KB or dialogue term"
    for i, j in _phrase_matches(tokens, vocabulary):
        for k in range(i, j):
            reasons.setdefault(k, "KB or dialogue term")
    return reasons


def _overlaps(token: Token, spans: Sequence[tuple[int, int]]) -> bool:
    return any(start < token.end and token.start < end for start, end in spans)


def _phrase_matches(tokens: Sequence[Token], vocabulary: Vocabulary) -> list[tuple[int, int]]:
    """Token ranges spelling a multi-word KB term (punctuation between words is skipped)."""
    words = [(i, t.lower) for i, t in enumerate(tokens) if t.kind != "punct"]
    found = []
    for n, (i, word) in enumerate(words):
        for phrase in vocabulary.phrases.get(word, ()):
            window = words[n : n + len(phrase)]
            if tuple(w for _, w in window) == phrase:
                found.append((i, window[-1][0] + 1))
    return found
