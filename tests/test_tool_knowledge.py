"""Tool results as knowledge: the rows a tool returned are checked as a KB over the served one."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from replyguard.cases import parse_case
from replyguard.engine import Engine
from replyguard.errors import InputError
from replyguard.models import HallucinationType, KnowledgeBase
from replyguard.tool_knowledge import (
    kb_from_tool_results,
    merge_kb,
    rows_of,
    tool_results_from_messages,
)

WHEN = datetime(2026, 5, 4, 12, 0)
GARAGES = {
    "garages": [
        {
            "garage_name": "Millbrook Motors",
            "town": "Ashford",
            "hourly_rate": "$85",
            "phone": "555-0177",
        },
        {"garage_name": "Quayside Autos", "town": "Dover", "hourly_rate": "$70"},
    ],
    "status": "ok",
}
MESSAGES = [
    {"role": "system", "content": "You help people find a garage."},
    {"role": "user", "content": "Which garages can fix my car near Ashford?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c7",
                "type": "function",
                "function": {"name": "find_garages", "arguments": '{"near": "Ashford"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "c7", "content": json.dumps(GARAGES)},
]


def test_the_json_of_tool_and_function_messages_is_read_and_plain_text_is_not() -> None:
    messages = [
        *MESSAGES,
        {"role": "function", "name": "weather", "content": '{"town": "Ashford", "sky": "grey"}'},
        {"role": "tool", "content": "the search timed out"},
        {"role": "tool", "content": "[" * 100_000 + "]" * 100_000},
        {"role": "tool", "content": "[" * 100 + "]" * 100},
        {"role": "user", "content": '{"not": "a tool"}'},
    ]
    assert tool_results_from_messages(messages) == [GARAGES, {"town": "Ashford", "sky": "grey"}]


def test_rows_come_from_lists_and_a_lone_object_is_one_row() -> None:
    assert [r["town"] for r in rows_of(GARAGES)] == ["Ashford", "Dover"]
    assert rows_of([{"a": 1}, [{"b": 2}]]) == [{"a": 1}, {"b": 2}]
    assert rows_of({"temperature": 21, "unit": "C"}) == [{"temperature": 21, "unit": "C"}]
    assert rows_of([]) == [] and rows_of("text") == []


def test_rows_become_entities_named_by_a_name_like_field_or_nameless() -> None:
    kb = kb_from_tool_results(
        [
            GARAGES,
            [{"depart": "09:10", "platform": 4, "stops": ["Leeds", "York"]}],
            {"detail": {"colour": "red"}, "title": "Blue Fern"},
        ],
        ["name", "title"],
        ["_name"],
    )
    named, other, train, fern = kb.entities
    assert (named.name, named.attributes["town"], named.attributes["phone"]) == (
        "Millbrook Motors",
        "Ashford",
        "555-0177",
    )
    assert other.name == "Quayside Autos" and "garage_name" not in other.attributes
    assert train.name is None and train.attributes == {
        "depart": "09:10",
        "platform": 4,
        "stops": ["Leeds", "York"],
    }
    assert fern.name == "Blue Fern" and fern.attributes == {"detail.colour": "red"}


def test_a_tool_row_updates_the_served_entity_of_the_same_name() -> None:
    served = KnowledgeBase.model_validate(
        {
            "entities": [
                {
                    "id": "g1",
                    "name": "Millbrook Motors",
                    "aliases": ["Millbrook"],
                    "attributes": {"hourly_rate": "$60", "owner": "Ann"},
                }
            ]
        }
    )
    overlay = kb_from_tool_results([[{"name": "millbrook", "hourly_rate": "$85"}]], ["name"], [])
    merged = merge_kb(served, overlay)
    assert len(merged.entities) == 1
    assert merged.entities[0].attributes == {"hourly_rate": "$85", "owner": "Ann"}
    assert served.entities[0].attributes["hourly_rate"] == "$60"


def _flags(result) -> set[HallucinationType]:
    return {f.hallucination_type for f in result.hallucination_flags}


def _garage_check(engine: Engine, reply: str):
    return engine.postprocess(
        reply,
        MESSAGES[1]["content"],
        MESSAGES[:2],
        reference_time=WHEN,
        tool_results=tool_results_from_messages(MESSAGES),
    )


def test_the_reply_is_checked_against_what_the_tool_returned(engine: Engine) -> None:
    right = _garage_check(engine, "Millbrook Motors in Ashford charges $85 an hour.")
    assert right.recommendation.kind == "Accept", right.recommendation
    wrong = _garage_check(engine, "Quayside Autos charges $95 an hour.")
    assert HallucinationType.ContradictsFact in _flags(wrong)
    assert "$70" in wrong.corrected.corrected


def test_the_served_kb_is_back_after_a_check_with_tool_results(engine: Engine) -> None:
    before = (engine.kb, engine.rules_version, len(engine.host.kb.get_atoms()))
    engine.postprocess("Millbrook Motors is open.", "", tool_results=[GARAGES])
    after = (engine.kb, engine.rules_version, len(engine.host.kb.get_atoms()))
    assert after == before
    plain = engine.postprocess("Millbrook Motors charges $85 an hour.", "", [])
    assert HallucinationType.NonexistentEntity in _flags(plain)


def test_offering_something_when_the_tool_returned_nothing_is_an_invented_entity(
    engine: Engine,
) -> None:
    dialogue = [*MESSAGES[:3], {"role": "tool", "tool_call_id": "c7", "content": "[]"}]
    offered = engine.postprocess(
        "Try Kestrel Garage on Mill Lane, they charge $60 an hour.",
        MESSAGES[1]["content"],
        dialogue,
        reference_time=WHEN,
        tool_results=[{"garages": []}],
    )
    invented = [
        f
        for f in offered.hallucination_flags
        if f.hallucination_type == HallucinationType.NonexistentEntity
    ]
    assert invented and "Kestrel" in invented[0].content
    honest = engine.postprocess(
        "I could not find a garage near Ashford.",
        MESSAGES[1]["content"],
        dialogue,
        reference_time=WHEN,
        tool_results=[{"garages": []}],
    )
    assert HallucinationType.NonexistentEntity not in _flags(honest)


def test_a_case_carries_tool_results(engine: Engine, seed_kb: KnowledgeBase) -> None:
    case = parse_case(
        {
            "kb": seed_kb.model_dump(by_alias=True, exclude_none=True),
            "dialogue": MESSAGES[:2],
            "query": MESSAGES[1]["content"],
            "response": "Quayside Autos is in Dover.",
            "tool_results": [GARAGES],
        },
        "case.json",
    )
    result = engine.check_case(case)
    assert not _flags(result), result.hallucination_flags


def test_tool_results_must_be_a_list(engine: Engine) -> None:
    with pytest.raises(InputError, match="tool_results: expected a list"):
        engine.postprocess("Fine.", "", tool_results="[]")  # type: ignore[arg-type]
