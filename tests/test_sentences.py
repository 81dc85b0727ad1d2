"""Sentence splitting: dots that close abbreviations, titles and initialisms."""

from __future__ import annotations

import pytest

from replyguard.text.tokens import split_sentences, tokenize


def _sentences(text):
    return [text[s.start : s.end] for s in split_sentences(text, tokenize(text))]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Head to P.F. Changs now. It is close.", ["Head to P.F. Changs now.", "It is close."]),
        ("Mr. Smith is in. Ask him.", ["Mr. Smith is in.", "Ask him."]),
        ("Take Main St. It is fast.", ["Take Main St.", "It is fast."]),
        ("It is approx. two miles away!", ["It is approx. two miles away!"]),
        ("Really?! Yes.", ["Really?!", "Yes."]),
        ("It is by J. K. Rowling. Read it.", ["It is by J. K. Rowling.", "Read it."]),
        ("Take plan A. Then rest.", ["Take plan A.", "Then rest."]),  # a lone letter ends one
    ],
)
def test_sentence_boundaries(text, expected):
    assert _sentences(text) == expected
