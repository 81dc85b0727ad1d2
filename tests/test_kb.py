"""Loading KBs from JSON, CSV tables and triples, and inferring the schema."""

from __future__ import annotations

import json

from replyguard.kb import kb_from_rows, load_kb, name_cues
from replyguard.models import Cardinality, ValueType


def test_json_document_with_attribute_metadata(tmp_path):
    path = tmp_path / "kb.json"
    path.write_text(
        json.dumps(
            {
                "entities": [
                    {
                        "id": "E1",
                        "name": "Ada Park",
                        "type": "Person",
                        "attributes": {
                            "join_date": {"value": 2019, "confidence": 0.9, "source": "HR"},
                            "skills": ["python", "sql"],
                        },
                    }
                ]
            }
        )
    )
    kb = load_kb(path)
    av = kb.entities[0].attribute("join_date")
    assert (av.value, av.confidence, av.source) == (2019, 0.9, "HR")
    assert kb.entities[0].attribute("skills").confidence == 1.0
    assert kb.attribute_schema["skills"].cardinality == Cardinality.many
    assert kb.attribute_schema["join_date"].value_type == ValueType.year


def test_csv_table_one_row_per_entity(tmp_path):
    path = tmp_path / "people.csv"
    path.write_text(
        "name,aliases,Email Address,department,phone\n"
        "Ada Park,Ada,ada@x.com,Research,617-555-0100\n"
        "Bo Li,,bo@x.com,Research | Sales,617-555-0101\n"
    )
    kb = load_kb(path)
    assert [e.id for e in kb.entities] == ["R1", "R2"]
    assert kb.entities[0].aliases == ["Ada"]
    assert kb.entities[1].attributes["department"] == ["Research", "Sales"]
    schema = kb.attribute_schema
    assert schema["Email_Address"].value_type == ValueType.email
    assert schema["phone"].value_type == ValueType.phone
    assert "email address" in schema["Email_Address"].cues


def test_triples_file(tmp_path):
    path = tmp_path / "facts.tsv"
    path.write_text(
        "# comment\nE1\tname\tAda Park\nE1\ttype\tPerson\nE1\talias\tAda\n"
        "E1\tcity\tBoston\nE1\tcity\tDenver\nE2\tname\tBo Li\nE2\tmanager\tAda Park\n"
    )
    kb = load_kb(path)
    ada = kb.entities[0]
    assert (ada.name, ada.type.value, ada.aliases) == ("Ada Park", "Person", ["Ada"])
    assert ada.attributes["city"] == ["Boston", "Denver"]
    assert kb.attribute_schema["manager"].value_type == ValueType.entity


def test_rows_infer_types_and_enums():
    rows = [
        {"event": f"meeting {i}", "time": t, "date": d, "room": r}
        for i, (t, d, r) in enumerate(
            [
                ("2pm", "monday", "100"),
                ("9am", "friday", "101"),
                ("11am", "tuesday", "100"),
                ("3pm", "monday", "101"),
            ]
        )
    ]
    kb = kb_from_rows(rows, name_column="event")
    schema = kb.attribute_schema
    assert schema["time"].value_type == ValueType.time
    assert schema["date"].value_type == ValueType.date
    assert kb.entities[0].name == "meeting 0"


def test_cues_read_off_attribute_names():
    assert name_cues("join_date") == ["join date", "join", "joined", "joins", "join-date"]
    assert name_cues("department") == ["department"]
    assert name_cues("traffic_info")[0] == "traffic info"


def test_columns_differing_in_one_part_share_a_cue():
    from replyguard.kb import family_cues

    cues = family_cues(
        [
            "monday",
            "monday_low",
            "monday_high",
            "tuesday_low",
            "tuesday_high",
            "wednesday_low",
            "wednesday_high",
            "home_address",
            "work_address",
            "distance",
        ]
    )
    # the largest family names the property: seven lows, not Monday's low and high
    assert cues["monday_low"] == ["low"] and cues["tuesday_high"] == ["high"]
    assert cues["home_address"] == ["address"] and cues["work_address"] == ["address"]
    assert "monday" not in cues and "distance" not in cues


def test_replace_kb_keeps_rules_and_checks_against_the_new_kb(seed_kb):
    from conftest import REFERENCE

    from replyguard.engine import Engine
    from replyguard.models import KnowledgeBase

    engine = Engine(seed_kb)
    other = KnowledgeBase.model_validate(
        {
            "entities": [
                {
                    "id": "P1",
                    "name": "John Smith",
                    "type": "Person",
                    "attributes": {"department": "Marketing"},
                }
            ]
        }
    )
    forms = engine.host.forms
    engine.replace_kb(other)
    result = engine.postprocess("John Smith works in Marketing.", "", reference_time=REFERENCE)
    assert result.factual_validation.claim_validations[0].status.kind == "Verified"
    assert engine.host.forms is forms
    assert [str(a) for a in engine.host.kb.get_atoms() if str(a).startswith("(name")] == [
        '(name P1 "John Smith")'
    ]


def test_a_relation_stated_from_both_ends_gets_its_inverse():
    from replyguard.kb import complete_schema, kb_from_triples

    kb = complete_schema(
        kb_from_triples(
            [
                ["Tom Hanks", "wrote", "Larry Crowne"],
                ["Larry Crowne", "written_by", "Tom Hanks"],
                ["Ann", "sibling", "Bea"],
                ["Bea", "sibling", "Ann"],
                ["Ann", "admires", "Tom Hanks"],  # no fact states it from Tom Hanks's end
            ]
        )
    )
    inverse = {a: s.inverse for a, s in kb.attribute_schema.items()}
    assert inverse["wrote"] == "written_by" and inverse["written_by"] == "wrote"
    assert inverse["sibling"] == "sibling"
    assert inverse["admires"] is None
