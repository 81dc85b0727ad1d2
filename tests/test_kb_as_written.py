"""KBs written the way a user writes them by hand: JSON entities as flat objects of their
facts (ids left out, field names in any case), in a file or inline in a case, a batch line or a
/v1/check request, read as a CSV row is; and CSV files saved with semicolons or tabs."""

from __future__ import annotations

import json

import pytest

from replyguard import cli
from replyguard.cases import load_case
from replyguard.engine import Engine
from replyguard.errors import InputError
from replyguard.kb import kb_from_csv, kb_from_rows, load_kb
from replyguard.serve import worker

# A small plant nursery, as its owner would type it.
NURSERY = [
    {
        "Name": "Fernhill Nursery",
        "Type": "organization",
        "aliases": "Fernhill; the nursery",
        "phone": "01632 220 417",
        "opens": "9:00 am",
        "delivery": True,
    },
    {
        "name": "Olive Tree",
        "type": "Object",
        "aliases": ["the olive"],
        "price": "£45",
        "height": "1.2 m",
        "hardy": False,
        "colours": ["silver", "green"],
    },
    {"name": "Lavender Hidcote", "price": "£6.50", "stock": 40},
]


def _write(tmp_path, document, name="kb.json"):
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_flat_entities_are_read_as_rows(tmp_path):
    kb = load_kb(_write(tmp_path, {"entities": NURSERY}))
    nursery, olive, lavender = kb.entities
    assert [e.id for e in kb.entities] == ["R1", "R2", "R3"]
    assert nursery.name == "Fernhill Nursery" and nursery.type.value == "Organization"
    assert nursery.aliases == ["Fernhill", "the nursery"]
    assert nursery.attributes["delivery"] is True
    assert olive.aliases == ["the olive"]
    assert olive.attributes["colours"] == ["silver", "green"]
    assert olive.attributes["hardy"] is False
    assert lavender.type.value == "Unknown" and lavender.attributes["stock"] == 40


def test_a_bare_list_of_flat_entities_is_a_kb(tmp_path):
    kb = load_kb(_write(tmp_path, NURSERY))
    assert [e.name for e in kb.entities] == ["Fernhill Nursery", "Olive Tree", "Lavender Hidcote"]


def test_flat_entities_keep_given_ids_and_the_documents_other_fields(tmp_path):
    rows = [{"id": "shop", **NURSERY[0]}, *NURSERY[1:]]
    kb = load_kb(_write(tmp_path, {"entities": rows, "organization": "shop", "world": "open"}))
    assert kb.entities[0].id == "shop"
    assert kb.organization == "shop" and kb.world == "open"


def test_a_flat_row_without_a_name_is_known_by_its_values(tmp_path):
    sailings = [{"departs": "7:15 am", "fare": "£12"}, {"departs": "9:40 am", "fare": "£14"}]
    kb = load_kb(_write(tmp_path, {"entities": sailings}))
    assert [e.name for e in kb.entities] == [None, None]
    assert kb.entities[1].attributes["fare"] == "£14"


def test_flat_json_and_csv_of_one_table_check_a_reply_alike(tmp_path):
    csv_text = (
        "name,type,aliases,phone,opens,price\n"
        "Fernhill Nursery,Organization,Fernhill,01632 220 417,9:00 am,\n"
        "Olive Tree,Object,the olive,,,£45\n"
    )
    rows = [
        {"name": "Fernhill Nursery", "type": "Organization", "aliases": "Fernhill",
         "phone": "01632 220 417", "opens": "9:00 am"},
        {"name": "Olive Tree", "type": "Object", "aliases": "the olive", "price": "£45"},
    ]  # fmt: skip
    reply = "The olive tree is £55, and Fernhill opens at 9am."
    results = [
        Engine(kb).postprocess(reply, "How much is the olive tree?")
        for kb in (kb_from_csv(csv_text), load_kb(_write(tmp_path, rows)))
    ]
    claims = [
        [
            (c.predicate, c.object, v.status.kind)
            for c, v in zip(fv.claims, fv.claim_validations, strict=True)
        ]
        for fv in (r.factual_validation for r in results)
    ]
    assert claims[0] == claims[1]
    assert ("price", "£55", "Contradicted") in claims[0]
    assert results[0].recommendation.kind == results[1].recommendation.kind


def test_the_nested_form_is_read_as_before(tmp_path):
    nested = {
        "entities": [
            {"id": "olive", "name": "Olive Tree", "type": "Object", "attributes": {"price": "£45"}}
        ]
    }
    kb = load_kb(_write(tmp_path, nested))
    assert kb.entities[0].id == "olive" and kb.entities[0].attributes == {"price": "£45"}


def test_a_nested_entity_without_an_id_is_still_an_error(tmp_path):
    nested = {"entities": [{"name": "Olive Tree", "attributes": {"price": "£45"}}]}
    with pytest.raises(InputError, match=r"kb\.json: entities\.0\.id: Field required"):
        load_kb(_write(tmp_path, nested))


def test_a_problem_in_a_flat_entity_names_the_entity_and_the_field(tmp_path):
    rows = [NURSERY[0], {"name": "Garden Kneeler", "type": "gardening tool", "price": "£8"}]
    with pytest.raises(InputError) as caught:
        load_kb(_write(tmp_path, rows))
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{tmp_path / 'kb.json'}: entities.1, column type:")
    assert "rename it to keep it as an attribute" in message


def test_rows_handed_in_python_keep_their_id_field():
    kb = kb_from_rows([{"id": "olive", "name": "Olive Tree"}, {"name": "Lavender Hidcote"}])
    assert [e.id for e in kb.entities] == ["olive", "R2"]


# The same rows given inline, where a case, a batch line or a /v1/check request holds its KB.
INLINE_CASE = {
    "kb": NURSERY,
    "query": "How much is the olive tree?",
    "response": "The olive tree costs £54.",
    "reference_time": "2026-12-01T10:00:00",
}


def _contradicted(result: dict) -> list[tuple[str, str]]:
    fv = result["factual_validation"]
    return [
        (c["predicate"], v["status"]["kb_value"])
        for c, v in zip(fv["claims"], fv["claim_validations"], strict=True)
        if v["status"]["kind"] == "Contradicted"
    ]


def test_an_inline_kb_written_as_rows_in_a_case_file(tmp_path):
    path = _write(tmp_path, INLINE_CASE, "case.json")
    case = load_case(path)
    assert [e.name for e in case.kb.entities][:2] == ["Fernhill Nursery", "Olive Tree"]
    result = json.loads(Engine(case.kb).check_case(case).model_dump_json())
    assert _contradicted(result) == [("price", "£45")]


def test_an_inline_kb_written_as_rows_in_a_batch_line(tmp_path):
    (tmp_path / "cases.jsonl").write_text(json.dumps(INLINE_CASE) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert cli.main(["batch", str(tmp_path / "cases.jsonl"), "-o", str(out)]) == 0
    record = json.loads(out.read_text(encoding="utf-8"))
    assert _contradicted(record["result"]) == [("price", "£45")]


def test_an_inline_kb_written_as_rows_in_a_service_check(tmp_path):
    served = _write(tmp_path, {"entities": []}, "served.json")
    answer = worker.check_case(worker.Worker(worker.EngineSpec(kb=str(served))), INLINE_CASE)
    assert _contradicted(answer["result"]) == [("price", "£45")]


def test_a_problem_in_an_inline_rows_kb_is_one_line_naming_the_kb(tmp_path):
    bad = {**INLINE_CASE, "kb": [{"name": "Trowel", "type": "garden tool"}]}
    with pytest.raises(InputError) as caught:
        load_case(_write(tmp_path, bad, "case.json"))
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / 'case.json'}: kb: entities.0, column type:")
    assert "\n" not in message


@pytest.mark.parametrize("separator", [";", "\t"])
def test_a_csv_saved_with_semicolons_or_tabs_is_read_by_its_header(tmp_path, separator):
    rows = [["name", "type", "price", "aliases"], ["Olive Tree", "Object", "£45", "olive|olives"]]
    path = tmp_path / "kb.csv"
    path.write_text("".join(separator.join(r) + "\n" for r in rows), encoding="utf-8")
    (olive,) = load_kb(path).entities
    assert (olive.name, olive.attributes, olive.aliases) == (
        "Olive Tree",
        {"price": "£45"},
        ["olive", "olives"],
    )


def test_a_comma_header_keeps_semicolons_inside_cells(tmp_path):
    path = tmp_path / "kb.csv"
    path.write_text("name,aliases,note\nOlive Tree,olive; the olive,water weekly; feed monthly\n")
    (olive,) = load_kb(path).entities
    assert olive.aliases == ["olive", "the olive"]
    assert olive.attributes["note"] == "water weekly; feed monthly"
