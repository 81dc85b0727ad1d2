"""Hypothesis strategies for hostile input: what a user of a chat guard may type.

Text is built from pieces that make the reader work (KB names, cues and values of the seed KB,
pronouns, misspellings, doubled words) mixed with what breaks naive code: every Unicode
category including lone surrogates, NUL and control characters, right-to-left marks, combining
marks, zero-width characters, line and paragraph separators, MeTTa syntax ( ) " ; $ & !,
markup and code, deep nesting and long runs. Odd values stand in for any field of a case or an
argument of the API.
"""

from __future__ import annotations

import math
from datetime import date, datetime, timedelta, timezone

from hypothesis import strategies as st

PROSE = [
    "John Smith", "John", "Sarah Johnson", "Sarah", "Emily Chen", "Acme Corp", "Acme",
    "Budget Review", "Rebecca Stone", "Dr. Lee", "he", "she", "it", "they", "his", "her",
    "works in", "'s email is", "email", "joined in", "phone number is", "is on", "at",
    "headquarters", "is in", "not", "never", "and", "but", "the", "a", "an", "is", "was",
    "Engineering", "Marketing", "Finance", "Sales", "Boston", "2019", "2020", "2018",
    "john.smith@company.com", "john.s@company.org", "x@y.z", "617-555-0199", "3pm", "14:00",
    "2026-12-01", "Tuesday", "tomorrow", "last year", "$5,000", "50%", "5 miles",
    "teh", "recieve", "meting", "in in", "the the", "i", "its", "their", "there",
    "What", "Who", "?", ".", ",", "!", ";", ":", "'s", "…", "—", "-", "“", "”", "'", '"',
]  # fmt: skip
METTA = [
    "(", ")", '"', ";", "$x", "$", "&kb", "&self", "!", "(= (recommendation $c) Accept)",
    "!(add-atom &kb (pwned))", "(match &kb $x $x)", '\\"', "\\", "#", "%Undefined%", "Empty",
]  # fmt: skip
MARKUP = [
    "<b>", "</b>", "<i>ok</i>", "`code`", "```", "<img src=x onerror=alert(1)>", "<?php ?>",
    "<!--", "-->", "<a href='https://exmaple.com/teh'>", "https://exmaple.com/a?b=c&d=e",
    "www.exmaple.org", "&amp;", "&#x202e;", "{", "}", "[", "]", "*", "_", "\\n",
]  # fmt: skip
ODD_CHARS = [
    " ", " ", " ", "\t", "\n", "\n\n", "\r\n", "\r", "\v", "\f", "\u2028", "\u2029", "\u0085",
    "\u00a0", "\u2009", "\u3000", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\x00",
    "\x1b", "\x7f", "\u202e", "\u202d", "\u200f", "\u061c", "مرحبا", "שלום", "e\u0301",
    "\u0301", "\u0308\u0308\u0308", "\u0e49\u0e49", "👩\u200d💻", "🇺🇸", "東京", "ｊｏｈｎ",
    "İ", "ß", "ﬁ", "\ufffd", "\U0010ffff", "\ue000",
]  # fmt: skip
SURROGATES = ["\ud800", "\udfff", "\udc80", "\ud83d"]

# Any code point at all, surrogates included; or none of them.
ANY_CHAR = st.characters(codec=None, exclude_categories=())
NO_SURROGATE = st.characters(exclude_categories=("Cs",))


def pieces(surrogates: bool) -> st.SearchStrategy[str]:
    odd = ODD_CHARS + (SURROGATES if surrogates else [])
    return st.one_of(
        st.sampled_from(PROSE),
        st.sampled_from(METTA),
        st.sampled_from(MARKUP),
        st.sampled_from(odd),
        st.text(ANY_CHAR if surrogates else NO_SURROGATE, max_size=6),
    )


def texts(surrogates: bool = True, max_pieces: int = 30) -> st.SearchStrategy[str]:
    """Text of pieces, mostly joined by spaces, so that claims and corrections happen."""
    gap = st.sampled_from([" ", " ", " ", "", "\n", ", "])
    return st.lists(st.tuples(pieces(surrogates), gap), max_size=max_pieces).map(
        lambda parts: "".join(p + g for p, g in parts)
    )


def long_texts(max_repeats: int, surrogates: bool = True) -> st.SearchStrategy[str]:
    """A short text repeated (a long reply), or brackets, quotes and variables nested deep."""
    repeated = st.builds(lambda t, n: t * n, texts(surrogates, 6), st.integers(1, max_repeats))
    nested = st.builds(
        lambda pair, n, core: pair[0] * n + core + pair[1] * n,
        st.sampled_from(
            [("(", ")"), ("[", "]"), ("{", "}"), ('"', '"'), ("<b>", "</b>"), ("$", "")]
        ),
        st.integers(1, max_repeats * 4),
        texts(surrogates, 4),
    )
    return st.one_of(repeated, nested)


# ------------------------------------------------------------------ odd values for any field

JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(ANY_CHAR, max_size=12),
    texts(max_pieces=4),
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(ANY_CHAR, max_size=6), inner, max_size=4),
    ),
    max_leaves=12,
)
# What only Python can pass: non-JSON numbers, bytes, sets, dates, arbitrary objects.
PYTHON_ONLY = st.one_of(
    st.sampled_from([math.nan, math.inf, -math.inf, b"bytes", bytearray(b"x"), object(), ..., 1j]),
    st.builds(set, st.lists(st.integers(), max_size=3)),
    st.builds(tuple, st.lists(st.text(max_size=3), max_size=3)),
    st.sampled_from([date(2026, 1, 1), datetime.max, datetime.min, timedelta(days=1)]),
    st.just(datetime(2026, 11, 30, 9, tzinfo=timezone(timedelta(hours=14)))),
)
ODD_VALUES = st.one_of(JSON_VALUES, PYTHON_ONLY)


def deep_json(max_depth: int) -> st.SearchStrategy[object]:
    """A list or object nested ``depth`` deep, as Python data."""

    def build(depth: int, as_object: bool) -> object:
        value: object = "x"
        for _ in range(depth):
            value = {"k": value} if as_object else [value]
        return value

    return st.builds(build, st.integers(1, max_depth), st.booleans())
