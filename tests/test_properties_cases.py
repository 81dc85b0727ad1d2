"""Properties of the case loader (`parse_case`, `load_case`) over hostile documents.

A case document with an odd value in any field, a field missing or added, a file of any bytes or
JSON nested deep: loading gives a Case or a one-line InputError naming the place, never another
exception; a case that loads checks like any reply (the invariants of test_properties.py).
"""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path

import pytest
from conftest import SEED_KB
from hostile import ANY_CHAR, JSON_VALUES, deep_json, texts
from hypothesis import example, given
from hypothesis import strategies as st
from invariants import sound

from replyguard.cases import load_case, parse_case
from replyguard.engine import Engine
from replyguard.errors import InputError
from replyguard.models import Case, KnowledgeBase

pytestmark = pytest.mark.fuzz

BASE = {
    "kb": SEED_KB,
    "dialogue": [{"id": "T1", "speaker": "user", "text": "Where does John work?"}],
    "query": "Where does John work?",
    "response": "John Smith works in Sales and joined in 2019.",
    "passages": ["John Smith works in Engineering."],
    "reference_time": "2026-11-30T09:00:00",
    "session_id": "s1",
    "turn_id": "t2",
}


def paths(value: object, prefix: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Every place in a document: each key of each object, each item of each list."""
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            out += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for k, item in enumerate(value):
            out += paths(item, (*prefix, k))
    return out


PLACES = paths(BASE)


def changed(path: tuple[object, ...], how: str, value: object) -> object:
    """BASE with the value at ``path`` replaced by ``value``, deleted, or given a new sibling."""
    document = copy.deepcopy(BASE)
    holder = document
    for part in path[:-1]:
        holder = holder[part]  # type: ignore[index]
    last = path[-1]
    if how == "replace":
        holder[last] = value  # type: ignore[index]
    elif how == "delete":
        del holder[last]  # type: ignore[arg-type,union-attr]
    elif isinstance(holder, dict):
        holder[f"extra_{value!s}"[:20]] = value
    else:
        holder.append(value)  # type: ignore[union-attr]
    return document


@pytest.fixture(scope="module")
def case_engine():
    """An engine of its own: each case brings its KB."""
    return Engine(KnowledgeBase.model_validate(SEED_KB))


def loads_soundly(case_engine: Engine, load) -> Case | None:  # noqa: ANN001
    """A Case, or None after a one-line InputError; a loaded case is then checked soundly."""
    try:
        case = load()
    except InputError as exc:
        assert str(exc) and "\n" not in str(exc), repr(exc)
        return None
    assert isinstance(case, Case) and isinstance(case.kb, KnowledgeBase)
    try:
        case_engine.replace_kb(case.kb)
    except InputError as exc:
        assert str(exc) and "\n" not in str(exc), repr(exc)
        return case
    sound(case_engine, lambda: case_engine.check_case(case))
    return case


@given(
    path=st.sampled_from(PLACES),
    how=st.sampled_from(["replace", "replace", "delete", "add"]),
    value=st.one_of(JSON_VALUES, deep_json(30)),
)
@example(path=("kb",), how="replace", value={"triples": 5})
@example(path=("dialogue", 0, "speaker"), how="replace", value=5)
@example(path=("turn_id",), how="replace", value=5)
@example(path=("response",), how="replace", value="John Smith works in \ud800.")
def test_an_odd_value_anywhere_in_a_case(case_engine, path, how, value):
    document = changed(path, how, value)
    loads_soundly(case_engine, lambda: parse_case(document, "case.json"))


@given(
    text=st.one_of(
        texts(max_pieces=20),
        st.text(ANY_CHAR, max_size=40),
        st.builds(json.dumps, JSON_VALUES),
        st.builds(lambda d: "\ufeff" + json.dumps(d), st.just(BASE)),
        st.builds(lambda n: "[" * n + "]" * n, st.integers(1, 20_000)),
        st.builds(lambda n: '{"a":' * n + "1" + "}" * n, st.integers(1, 20_000)),
    ),
    encoding=st.sampled_from(["utf-8", "utf-16", "latin-1", "surrogatepass"]),
)
@example(text="[" * 10_000 + "]" * 10_000, encoding="utf-8")
@example(text="\ufeff" + json.dumps(BASE), encoding="utf-8")
@example(text=json.dumps(BASE).replace("Sales", "\\ud800"), encoding="utf-8")
def test_any_file_as_a_case(case_engine, text, encoding):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "case.json"
        if encoding == "surrogatepass":
            path.write_bytes(text.encode("utf-8", "surrogatepass"))
        else:
            path.write_bytes(text.encode(encoding, "replace"))
        loads_soundly(case_engine, lambda: load_case(path))
