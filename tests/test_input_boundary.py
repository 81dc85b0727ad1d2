"""What users hand in, read at the boundary: text that is not Unicode and JSON too deep to read
are one-line errors naming the field; enums in any case and their usual synonyms; OpenAI chat
messages as turns; a case's own id, metadata and expect fields; CSV KBs read as written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REFERENCE, SEED_KB, run_cli

from replyguard.cases import load_case, parse_case
from replyguard.errors import InputError
from replyguard.kb import kb_from_csv, kb_from_document, load_kb
from replyguard.models import Case, EntityType, Gender, GrammaticalNumber, Turn

REPRO = Path(__file__).parent / "data" / "repro"
LONE = "\udc41"  # half of a surrogate pair, as a JSON "\udc41" escape or a cut UTF-16 string


def _case(**fields: object) -> dict[str, object]:
    return {
        "kb": SEED_KB,
        "query": "Which team is Emily on?",
        "response": "Emily Chen is in Finance.",
        "reference_time": "2026-11-30T09:00:00",
        **fields,
    }


# --------------------------------------------------------------------------- lone surrogates


@pytest.mark.parametrize(
    ("fields", "where"),
    [
        ({"response": f"Emily Chen is in Fin{LONE}ance."}, "response"),
        ({"query": f"Which{LONE} team?"}, "query"),
        ({"dialogue": [{"speaker": "user", "text": f"Hi {LONE}"}]}, "dialogue.turns.0.text"),
        ({"dialogue": [{"id": f"A{LONE}", "speaker": "user", "text": "Hi"}]}, "turns.0.id"),
        ({"turn_id": f"T{LONE}"}, "turn_id"),
        ({"session_id": LONE}, "session_id"),
        ({"passages": ["fine", f"not {LONE} fine"]}, "passages"),
        ({"id": f"case{LONE}"}, "id"),
        ({"metadata": {"note": f"x{LONE}"}}, "metadata"),
    ],
)
def test_a_lone_surrogate_anywhere_in_a_case_names_its_field(fields, where):
    with pytest.raises(InputError) as info:
        parse_case(_case(**fields), "case.json")
    message = str(info.value)
    assert message.startswith("case.json: ") and where in message
    assert "lone surrogate" in message and "\n" not in message


def test_a_lone_surrogate_in_a_kb_names_the_entity(tmp_path):
    kb = {"entities": [{"id": "P1", "name": "Rosa", "attributes": {"city": f"Lim{LONE}a"}}]}
    with pytest.raises(InputError, match=r"kb.json: entities.0.attributes: holds a lone"):
        kb_from_document(kb, "kb.json")


def test_the_python_api_refuses_surrogates_and_odd_ids(engine):
    with pytest.raises(InputError, match="response: holds a lone surrogate"):
        engine.postprocess(f"Sarah works in {LONE}Marketing.", "Where?")
    with pytest.raises(InputError, match="query: holds a lone surrogate"):
        engine.postprocess("Sarah works in Marketing.", f"Where{LONE}?")
    with pytest.raises(InputError, match="turn_id: expected text, got int"):
        engine.postprocess("Sarah works in Marketing.", "Where?", turn_id=7)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="session_id: holds a lone surrogate"):
        engine.postprocess("Sarah works in Marketing.", "Where?", session_id=LONE)
    with pytest.raises(InputError, match="text: holds a lone surrogate"):
        engine.postprocess("Fine.", "Hi", dialogue=[{"speaker": "user", "text": LONE}])  # type: ignore[list-item]


def test_every_result_serialises(engine):
    """What gets past the boundary always comes out as JSON (odd but valid Unicode)."""
    for reply in ["Sarah\x00 works in Marketing.", "Emily \u202eChen\u202c is in Finance 💼."]:
        result = engine.postprocess(reply, "Who?", turn_id="t\u200d1", reference_time=REFERENCE)
        assert json.loads(result.model_dump_json())["original"] == reply


def test_the_surrogate_reproducer_is_exit_2_with_one_line():
    run = run_cli("check", "--json", str(REPRO / "R04_lone_surrogate_reply.json"))
    assert run.returncode == 2, run.stderr
    assert run.stderr.count("\n") == 1 and "response: holds a lone surrogate" in run.stderr


# --------------------------------------------------------------------------- JSON files


def test_json_nested_too_deep_is_a_json_error_naming_the_file(tmp_path):
    run = run_cli("check", str(REPRO / "R05_deep_json.json"))
    assert run.returncode == 2
    assert "R05_deep_json.json: invalid JSON (nested too deeply to read)" in run.stderr
    deep = tmp_path / "kb.json"
    deep.write_text('{"entities": ' + "[" * 50_000 + "]" * 50_000 + "}")
    with pytest.raises(InputError, match="kb.json: invalid JSON"):
        load_kb(deep)


def test_opaque_fields_nested_too_deep_are_refused():
    nested: object = "leaf"
    for _ in range(100):
        nested = {"down": nested}
    with pytest.raises(InputError, match="metadata: nested more than 64 levels deep"):
        parse_case(_case(metadata=nested), "case.json")


def test_json_files_with_a_byte_order_mark_are_read(tmp_path):
    (tmp_path / "kb.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(SEED_KB).encode())
    case = tmp_path / "case.json"
    case.write_bytes(b"\xef\xbb\xbf" + json.dumps(_case(kb="kb.json")).encode())
    assert load_case(case).kb.entities[2].name == "Emily Chen"


# --------------------------------------------------------------------------- enums and turns


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ({"type": "person", "gender": "female"}, (EntityType.Person, Gender.Feminine)),
        ({"type": "ORGANISATION", "gender": "Neuter"}, (EntityType.Organization, Gender.Neuter)),
        ({"type": "Company", "gender": "M"}, (EntityType.Organization, Gender.Masculine)),
        ({"type": "place", "gender": "masculine"}, (EntityType.Location, Gender.Masculine)),
        ({"type": " event ", "gender": "non-binary"}, (EntityType.Event, Gender.Unknown)),
    ],
)
def test_enum_fields_take_any_case_and_usual_synonyms(written, read):
    entity = {"id": "X1", "name": "Harbour Lights", **written}
    kb = kb_from_document({"entities": [entity]})
    assert (kb.entities[0].type, kb.entities[0].gender) == read


def test_number_and_schema_enums_are_lenient_too():
    kb = kb_from_document(
        {
            "entities": [{"id": "B", "name": "The Beatles", "number": "PLURAL"}],
            "schema": {"fee": {"value_type": "Currency", "cardinality": "Single"}},
        }
    )
    assert kb.entities[0].number is GrammaticalNumber.Plural
    assert (
        kb.attribute_schema["fee"].value_type.value,
        kb.attribute_schema["fee"].cardinality,
    ) == (
        "money",
        "one",
    )


def test_an_unknown_enum_value_lists_what_is_accepted():
    with pytest.raises(InputError) as info:
        kb_from_document({"entities": [{"id": "Q", "name": "Quill", "gender": "purple"}]}, "k")
    message = str(info.value)
    assert "entities.0.gender" in message and "'Feminine'" in message
    assert "any case" in message and "female" in message


def test_openai_chat_messages_are_turns():
    case = parse_case(
        _case(
            dialogue=[
                {"role": "system", "content": "You answer staff questions."},
                {"role": "user", "content": "Is Emily in Finance?", "name": "dana"},
                {"role": "assistant", "content": None, "tool_calls": [{"id": "c1"}]},
                {"role": "tool", "tool_call_id": "c1", "content": "Emily Chen: Finance"},
                {"role": "assistant", "content": [{"type": "text", "text": "She is."}]},
            ]
        ),
        "case.json",
    )
    turns = case.dialogue.turns
    assert [t.role for t in turns] == ["system", "user", "assistant", "system", "assistant"]
    assert [t.text for t in turns][1:] == [
        "Is Emily in Finance?",
        "",
        "Emily Chen: Finance",
        "She is.",
    ]
    assert [t.id for t in turns] == ["T1", "T2", "T3", "T4", "T5"]


def test_speakers_must_be_named():
    for speaker in ["", "   "]:
        with pytest.raises(ValueError, match="speaker"):
            Turn(speaker=speaker, text="hello")
    assert Turn(speaker="Bot", text="hi").role == "assistant"
    assert Turn(speaker="Priya", text="hi").role == "user"


# --------------------------------------------------------------------------- case labels


def test_cases_carry_id_metadata_and_expect_unread(engine):
    labels = {
        "id": "ticket-88",
        "metadata": {"channel": "email", "tags": ["vip"]},
        "expect": {"recommendation": ["Accept"], "anything": {"the": "eval helper reads it"}},
    }
    case = parse_case(_case(**labels), "case.json")
    assert (case.id, case.metadata, case.expect) == tuple(labels.values())
    plain = parse_case(_case(), "case.json")
    assert engine.check_case(case).recommendation == engine.check_case(plain).recommendation
    with pytest.raises(InputError, match="expect: Input should be a valid dictionary"):
        parse_case(_case(expect=["Accept"]), "case.json")
    with pytest.raises(InputError, match="labels: unknown field"):
        parse_case(_case(labels={}), "case.json")
    assert set(Case.model_json_schema()["properties"]) >= {"id", "metadata", "expect"}


def test_a_json_kb_may_give_aliases_as_one_string(tmp_path):
    path = tmp_path / "kb.json"
    path.write_text(
        '{"entities": [{"id": "p1", "name": "Priya Shah", "aliases": "Priya",'
        ' "attributes": {"role": "optometrist"}},'
        ' {"id": "d1", "name": "Corner Deli", "aliases": "The Deli; Deli|CD"}]}'
    )
    priya, deli = load_kb(path).entities
    assert priya.aliases == ["Priya"]
    assert deli.aliases == ["The Deli", "Deli", "CD"]


# --------------------------------------------------------------------------- CSV KBs


def test_the_csv_reproducer_reads_aliases_and_type():
    entity = load_kb(REPRO / "R10_kb_aliases.csv").entities[0]
    assert entity.type is EntityType.Person
    assert entity.aliases == ["John", "Johnny"]
    assert dict(entity.attributes) == {"email": "john.smith@company.com"}


def test_csv_type_aliases_bom_and_headings_in_any_case(tmp_path):
    path = tmp_path / "shop.csv"
    path.write_bytes(
        "\ufeffID,Name,Type,Aliases,Gender,opens\n"
        "S1,Corner Deli,business,The Deli; Deli|CD,,8am\n"
        "S2,Marta Ruiz,person,Marta,female,9am\n".encode()
    )
    kb = load_kb(path)
    deli, marta = kb.entities
    assert (deli.id, deli.type, deli.aliases) == (
        "S1",
        EntityType.Organization,
        ["The Deli", "Deli", "CD"],
    )
    assert (marta.type, marta.gender) == (EntityType.Person, Gender.Feminine)
    assert set(deli.attributes) == {"opens"}


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("code,title\nA1,Widget\n", "shop.csv: line 1: no 'name' column"),
        ("id,name,price,stock\nA1,Widget,3\n", "shop.csv: line 2, column stock: missing"),
        ("id,name,type\nA1,Widget,gadget\n", "shop.csv: line 2, column type: Input should be"),
        ("id,name,gender\nA1,Kim,sometimes\n", "shop.csv: line 2, column gender: Input should"),
        ("id,name\nA1,\n", "shop.csv: line 2, column name: empty name"),
        (
            "id,name,restock\nA1,Widget,2026-01-05\nA2,Gizmo,04/06/2026\n",
            "shop.csv: line 3, column restock: '04/06/2026' could be day/month or month/day",
        ),
        ("# date_order: sideways\nid,name\nA1,Widget\n", "line 1: date_order 'sideways'"),
        (
            "id,name,restock\nA1,Widget,25/01/2026\nA2,Gizmo,01/25/2026\n",
            "dates written day first (line 2, column restock) and month first (line 3",
        ),
    ],
)
def test_csv_problems_name_the_file_line_and_column(tmp_path, table, message):
    path = tmp_path / "shop.csv"
    path.write_text(table)
    with pytest.raises(InputError) as info:
        load_kb(path)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_csv_date_order_declared_or_evident():
    declared = kb_from_csv("# date_order: day-first\nid,name,due\nA,Ann,04/06/2026\n")
    assert declared.entities[0].attributes["due"] == "2026-06-04"
    evident = kb_from_csv("id,name,due\nA,Ann,04/06/2026\nB,Ben,28.06.2026\n")
    assert [e.attributes["due"] for e in evident.entities] == ["2026-06-04", "2026-06-28"]
    month_first = kb_from_csv("id,name,due\nA,Ann,04/06/2026\nB,Ben,06/28/2026\n")
    assert month_first.entities[0].attributes["due"] == "04/06/2026"
    argument = kb_from_csv("id,name,due\nA,Ann,04/06/2026 10:30\n", date_order="dmy")
    assert argument.entities[0].attributes["due"] == "2026-06-04 10:30"
    with pytest.raises(InputError, match="'31/02/2026' is not a day-first date"):
        kb_from_csv("id,name,due\nA,Ann,31/02/2026\n", date_order="day-first")


def test_csv_cells_too_long_to_read_are_one_line_errors(tmp_path):
    (tmp_path / "R08_kb_huge_cell.csv").write_text("id,name,notes\nE1,Al," + "n" * 200_000 + "\n")
    (tmp_path / "R08_case.json").write_text((REPRO / "R08_case.json").read_text())
    run = run_cli("check", str(tmp_path / "R08_case.json"))
    assert run.returncode == 2
    assert "R08_kb_huge_cell.csv: line 2: cannot read CSV (field larger than field limit" in (
        run.stderr
    )


def test_triples_that_are_not_a_list_name_the_field():
    run = run_cli("check", str(REPRO / "R09_case.json"))
    assert run.returncode == 2
    assert "R09_kb_triples_int.json: triples: expected a list of [subject, predicate, object]" in (
        run.stderr
    )
    with pytest.raises(InputError, match="triples.0: expected text or numbers"):
        kb_from_document({"triples": [["Ann", "likes", ["tea"]]]}, "k")
