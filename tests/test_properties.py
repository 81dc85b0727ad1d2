"""Properties of `Engine.postprocess` over hostile input (hypothesis; see tests/hostile.py).

Whatever the reply, query, dialogue or passages hold: the call returns a result or raises a
one-line InputError/RuleError, never anything else; every span lies in the reply and quotes it;
the corrections rebuild the corrected text; the result survives a JSON round trip; and the KB
space answers the same queries afterwards as before. The default run tries a few fixed examples
per property; `pytest -m fuzz` tries many random ones.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from conftest import REFERENCE
from hostile import ODD_VALUES, long_texts, texts
from hypothesis import example, given, settings
from hypothesis import strategies as st
from invariants import checked

pytestmark = pytest.mark.fuzz
# A failure the property tests find in code being fixed elsewhere (removed when the fix lands).
# `pytest -m fuzz` (the profile tests/conftest.py loads) also tries longer and deeper text.
REPEATS = 300 if settings.default.max_examples > 100 else 60

speakers = st.one_of(st.sampled_from(["user", "assistant", "system", "Ann"]), texts(max_pieces=2))
turns = st.lists(
    st.fixed_dictionaries(
        {"speaker": speakers, "text": texts(max_pieces=12)},
        optional={"id": st.text(max_size=4), "act": texts(max_pieces=2)},
    ),
    max_size=4,
)


@given(reply=texts(surrogates=False), query=texts(surrogates=False, max_pieces=10))
@example(reply="Emily Chen works in\u2028Human\tResources at\x00 3pm.", query="")
@example(reply="<p>Sarah's email is s@j.q; see `teh docs` at https://exmaple.org.</p>", query="")
@example(reply="We are done done", query="(= (recommendation $c) Accept)")
@example(reply="John Smith ", query="What \x80 ")  # a C1 control: no escape MeTTa reads
def test_any_reply_gives_a_sound_result(engine, reply, query):
    checked(engine, response=reply, query=query, reference_time=REFERENCE)


@given(reply=texts(), query=texts(max_pieces=10))
@example(reply="John Smith works in \ud800Sales.", query="Where does John work\udfff?")
def test_lone_surrogates_anywhere(engine, reply, query):
    checked(engine, response=reply, query=query, reference_time=REFERENCE)


@given(
    call=st.fixed_dictionaries(
        {
            "response": texts(),
            "query": texts(max_pieces=8),
            "dialogue": turns,
            "passages": st.lists(texts(max_pieces=10), max_size=3),
            "annotation_style": st.sampled_from(["plain", "markdown", "html"]),
        }
    )
)
@example(  # a turn's act in MeTTa syntax
    call={
        "response": "Fine.",
        "query": "Where does Emily work?",
        "dialogue": [{"speaker": "user", "text": "Where does Emily work?", "act": "Ask ("}],
    }
)
def test_dialogue_and_passages(engine, call):
    checked(engine, **call, reference_time=REFERENCE)


@given(reply=long_texts(max_repeats=REPEATS), query=long_texts(max_repeats=REPEATS // 2))
@example(reply="Emily Chen works in Finance. " * 40, query="x" + "é" * 3000)  # past 4,096 bytes
@example(reply="東京 " * 2000 + "(" * 3000, query="Where does Emily work?")
def test_long_and_deeply_nested_text(engine, reply, query):
    checked(engine, response=reply, query=query, reference_time=REFERENCE)


ARGUMENTS = {
    "response": "John Smith works in Sales.",
    "query": "Where does John work?",
    "dialogue": [],
    "reference_time": REFERENCE,
    "session_id": "s1",
    "turn_id": "t1",
    "annotation_style": "plain",
    "passages": [],
}


@given(
    field=st.sampled_from(sorted(set(ARGUMENTS) - {"reference_time"})),
    value=st.one_of(ODD_VALUES, turns.map(lambda ts: [{**t, "speaker": 5} for t in ts])),
)
@example(field="dialogue", value=[{"speaker": "", "text": "Hi"}])
@example(field="turn_id", value=5)
def test_an_odd_value_in_any_argument(engine, field, value):
    checked(engine, **{**ARGUMENTS, field: value})


@given(value=ODD_VALUES)
@example(value=float("nan"))
def test_an_odd_reference_time(engine, value):
    checked(engine, **{**ARGUMENTS, "reference_time": value})


@given(reference=st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)))
def test_any_reference_time(engine, reference):
    checked(
        engine,
        response="The Budget Review is tomorrow at 3pm, next Friday or on 2026-12-01.",
        query="When is the budget review?",
        reference_time=reference,
    )
