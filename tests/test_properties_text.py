"""Properties of the corrections on text built to need them (hypothesis).

Replies are assembled from pieces whose kind the test knows: prose full of misspellings, doubled
words and wrong KB values joined by odd whitespace, and markup (tags, comments, code spans,
fenced code, URLs, e-mail addresses) holding misspelt words of its own. The corrections must
quote the reply at their spans and rebuild the corrected text exactly, and no spelling or grammar
edit may touch a piece of markup, not even by inserting a full stop inside or after it.
"""

from __future__ import annotations

import pytest
from conftest import REFERENCE
from hypothesis import example, given
from hypothesis import strategies as st
from invariants import check_corrections

from replyguard.spelling import apply_edits

pytestmark = pytest.mark.fuzz

TYPOS = ["teh", "recieve", "adress", "wich", "becuase", "srcc", "onerorr", "clas", "i", "php"]
WORDS = TYPOS + ["the", "the", "report", "is", "ready", "a", "apple", "in", "in", "it", "its"]
GAPS = [" ", " ", " ", "  ", "\t", "\n", "\u2028", "\u00a0", "\u200b", "\n\n", ", ", ". "]
CLAIMS = [
    "Emily Chen works in{gap}Human{gap}Resources",
    "Sarah Johnson's email is{gap}s@j.q",
    "John Smith joined in{gap}2019",
    "The Budget Review is on{gap}Wednesday at{gap}3pm",
]

gaps = st.sampled_from(GAPS)
word = st.sampled_from(WORDS)
claim = st.builds(lambda c, g: c.format(gap=g), st.sampled_from(CLAIMS), gaps)
prose = st.lists(st.tuples(st.one_of(word, word, claim), gaps), min_size=1, max_size=12).map(
    lambda parts: "".join(w + g for w, g in parts)
)

name = st.sampled_from(["a", "img", "i", "b", "p", "div", "nte"])
value = st.lists(st.sampled_from(TYPOS + ["x", "1", "/path"]), min_size=1, max_size=3).map(" ".join)
attribute = st.builds(
    lambda key, v, quote: f" {key}={quote}{v}{quote}" if quote else f" {key}={v.split()[0]}",
    st.sampled_from(TYPOS + ["href", "src"]),
    value,
    st.sampled_from(['"', "'", ""]),
)
markup = st.one_of(
    st.builds(lambda n, attrs: f"<{n}{''.join(attrs)}>", name, st.lists(attribute, max_size=3)),
    st.builds(lambda n: f"</{n}>", name),
    st.builds(lambda v: f"<!-- {v} -->", value),
    st.builds(lambda v: f"<?php {v} ?>", value),
    st.builds(lambda v: f"`{v}`", value),
    st.builds(
        lambda n, v: f"<{n}>{v} {v}</{n}>", st.sampled_from(["code", "pre", "script"]), value
    ),
    st.builds(lambda v: f"\n```\n{v}\n{v} {v}\n```\n", value),
    st.builds(lambda v: f"https://exmaple.com/{v.replace(' ', '/')}", value),
    st.builds(lambda v: f"{v.split()[0]}@exmaple.org", value),
)
pieces = st.lists(st.one_of(prose.map(lambda p: (p, False)), markup.map(lambda m: (m, True))))


def assemble(parts: list[tuple[str, bool]]) -> tuple[str, list[tuple[int, int]]]:
    """The text, and the spans of its markup pieces (a space after each so no piece runs on)."""
    text, spans = "", []
    for piece, is_markup in parts:
        if is_markup:
            spans.append((len(text), len(text) + len(piece)))
        text += piece + " "
    return text, spans


@given(reply=prose, query=st.sampled_from(["", "Where does Emily work?", "What is her email?"]))
@example(reply="We will review it it", query="")
@example(reply="Emily Chen works in\u2028Human\tResources", query="Where does Emily work?")
def test_corrections_rebuild_the_corrected_text(engine, reply, query):
    result = engine.postprocess(reply, query, reference_time=REFERENCE)
    check_corrections(result)


@given(parts=pieces)
@example(parts=[("We met in in", False), ('<img srcc=x onerorr="teh(1)">', True)])
@example(parts=[("the report is ready", False), ("\n```\nteh teh is\n\n", True)])
def test_no_spelling_or_grammar_edit_touches_markup(engine, parts):
    text, spans = assemble(parts)
    edits = engine.spelling.correct(text)
    apply_edits(text, edits)  # refuses edits that overlap or misquote the text
    for edit in edits:
        for start, end in spans:
            inserts_inside = edit.start == edit.end and start < edit.start <= end
            assert not (edit.start < end and start < edit.end) and not inserts_inside, (
                edit,
                text[start:end],
            )
