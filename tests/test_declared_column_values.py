"""A column's declared values (schema `values`: the kinds it may take, held by a row or not) are
that column's values wherever they are said: a kind no returned row holds is read under the
column and contradicts the row's own kind, and is corrected to it (issue 11, "the column a value
belongs under by its known values"). The SGD adapter declares a categorical slot's possible
values so, as a user describing the table would."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from row_verdicts import claim_verdicts

from replyguard.engine import Engine
from replyguard.evaluation.sgd import ServiceCall, read_schema, rows_kb
from replyguard.models import KnowledgeBase

REFERENCE = datetime(2026, 4, 14, 9, 0)

# rowing-boat hires a booking search returned: no names, one kind of boat among three declared
KB = {
    "entities": [
        {"id": "hire_1", "attributes": {"starts": "10:30", "boat": "Skiff", "fee": "$18"}},
        {"id": "hire_2", "attributes": {"starts": "14:00", "boat": "Skiff", "fee": "$22"}},
    ],
    "schema": {
        "starts": {"value_type": "time"},
        "fee": {"value_type": "money"},
        "boat": {"values": ["Skiff", "Canoe", "Pedalo"]},
    },
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def test_a_declared_kind_no_row_holds_contradicts_the_rows_kind(engine: Engine) -> None:
    verdicts = claim_verdicts(engine, "One hire starts at 2 pm. The canoe costs $22.", REFERENCE)
    assert verdicts[("hire_2", "boat", "canoe")].kind == "Contradicted"
    assert verdicts[("hire_2", "fee", "$22")].kind == "Verified"


def test_the_kind_is_corrected_to_the_rows_own(engine: Engine) -> None:
    result = engine.postprocess(
        "I found a Pedalo at 10:30 am for $18.", "", [], reference_time=REFERENCE
    )
    assert result.recommendation.kind == "CorrectAndDeliver"
    assert result.corrected is not None
    assert "a Skiff at 10:30 am" in result.corrected.corrected


def test_the_rows_own_kind_is_verified(engine: Engine) -> None:
    verdicts = claim_verdicts(engine, "The skiff at 10:30 am is $18.", REFERENCE)
    assert {s.kind for s in verdicts.values()} == {"Verified"}


def test_without_the_declaration_an_unheld_kind_is_not_read() -> None:
    bare = json.loads(json.dumps(KB))
    del bare["schema"]["boat"]
    engine = Engine(KnowledgeBase.model_validate(bare))
    verdicts = claim_verdicts(engine, "One hire starts at 2 pm. The canoe costs $22.", REFERENCE)
    assert not any(attribute == "boat" for _, attribute, _ in verdicts)


def test_the_sgd_adapter_declares_a_categorical_slots_values(tmp_path: Path) -> None:
    slots = [
        {"name": "boat", "is_categorical": True, "possible_values": ["Skiff", "Canoe"]},
        {"name": "oars", "is_categorical": True, "possible_values": ["1", "2"]},
        {"name": "fee", "description": "Hire fee", "is_categorical": False},
    ]
    path = tmp_path / "schema.json"
    path.write_text(json.dumps([{"service_name": "Boats_9", "slots": slots}]), "utf-8")
    schema = read_schema(path)["Boats_9"]
    row = {"boat": "Skiff", "oars": "2", "fee": "9"}
    call = ServiceCall("Boats_9", "FindBoat", 0, (row,), None)
    kb = rows_kb(call, schema)
    assert kb.attribute_schema["boat"].values == ["Skiff", "Canoe"]
    assert kb.attribute_schema.get("oars") is None or not kb.attribute_schema["oars"].values
