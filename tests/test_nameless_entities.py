"""Rows with no name (the ferries a timetable search returned): the KB accepts them, they cannot be
mentioned by name, reports and the REPL show them by id, and every stage still runs."""

from __future__ import annotations

from datetime import datetime

import pytest
from hyperon import E, S, V

from replyguard.atoms import kb_atoms
from replyguard.engine import Engine
from replyguard.models import KnowledgeBase
from replyguard.repl import Repl
from replyguard.report import render_report
from replyguard.trace import MemoryTraceStore
from replyguard.trace_paths import write_result

REFERENCE = datetime(2026, 6, 2, 8, 0)

FERRIES = {
    "entities": [
        {
            "id": "sailing_1",
            "type": "Event",
            "attributes": {"departs": "7:15 am", "fare": "$34", "port": "Oban"},
        },
        {
            "id": "sailing_2",
            "type": "Event",
            "attributes": {"departs": "11:50 am", "fare": "$41", "port": "Oban"},
        },
        {
            "id": "line",
            "name": "Kestrel Ferries",
            "type": "Organization",
            "attributes": {"phone": "01631 555 0101"},
        },
    ],
    "schema": {
        "departs": {"value_type": "time"},
        "fare": {"value_type": "money"},
        "phone": {"value_type": "phone"},
    },
}


@pytest.fixture(scope="module")
def ferries() -> Engine:
    return Engine(KnowledgeBase.model_validate(FERRIES))


def test_a_nameless_row_is_shown_by_its_id() -> None:
    kb = KnowledgeBase.model_validate(FERRIES)
    row, line = kb.entities[0], kb.entities[2]
    assert row.name is None and row.label == "sailing_1" and row.names == ()
    assert line.label == "Kestrel Ferries" and line.names == ("Kestrel Ferries",)


def test_an_empty_name_is_still_refused() -> None:
    with pytest.raises(ValueError, match="name"):
        KnowledgeBase.model_validate({"entities": [{"id": "x", "name": ""}]})


def test_atoms_have_no_name_fact_for_a_nameless_row(ferries: Engine) -> None:
    text = {str(a) for a in kb_atoms(ferries.kb)}
    assert "(entity sailing_1 Event)" in text
    assert not any(t.startswith("(name sailing_1") for t in text)
    assert '(name line "Kestrel Ferries")' in text


def test_a_nameless_row_cannot_be_mentioned_by_its_id(ferries: Engine) -> None:
    lexed = ferries.reader.lexer.lex("Ask about sailing_1 or sailing 2 at the desk.", REFERENCE)
    entities = [x for x in lexed.lexemes if x.entity_ids]
    assert entities == []


def test_every_stage_runs_on_a_reply_about_nameless_rows(ferries: Engine) -> None:
    reply = "Kestrel Ferries has a sailing at 7:15 am for $34; call 01631 555 0101 to book."
    result = ferries.postprocess(reply, "When is the first ferry?", [], reference_time=REFERENCE)
    fv = result.factual_validation
    phone = [c.id for c in fv.claims if c.predicate == "phone" and c.subject_id == "line"]
    status = {v.claim_id: v.status.kind for v in fv.claim_validations}
    assert phone and status[phone[0]] == "Verified"
    assert not [f for f in result.hallucination_flags if f.type.value == "NonexistentEntity"]
    assert "Recommendation:" in render_report(result, explain=True)
    store = MemoryTraceStore()
    write_result(store, result, "s1", "t1")
    assert store.get("/postprocessing/s1/t1/factual/claims/0/subject") == "Kestrel Ferries"


def test_the_repl_shows_a_nameless_row_by_its_id(
    ferries: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    repl = Repl(ferries)
    repl.handle(":entity sailing_2")
    out = capsys.readouterr().out
    assert "11:50 am" in out and "(name sailing_2" not in out
    matches = list(ferries.host.kb.query(E(S("name"), S("sailing_2"), V("n"))))
    assert matches == []


def test_the_dialogue_registry_names_a_nameless_row_by_its_id(ferries: Engine) -> None:
    assert ferries.reader.referent_for("sailing_1").name == "sailing_1"
