"""Sessions: turn-by-turn state gives the same results as a from-scratch run over all turns."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from conftest import REFERENCE, run_cli

from replyguard.errors import InputError
from replyguard.models import DialogueState, Turn

T0 = datetime(2026, 11, 30, 8, 0)
TURNS = [
    ("user", "I joined in 2020, same year as John."),
    ("assistant", "Good to know."),
    ("user", "John works in Engineering."),
    ("assistant", "Noted."),
    ("user", "Sarah and Emily are preparing the budget slides."),
    ("assistant", "Thanks."),
    ("user", "What do you know about John?"),
]
REPLY = (
    "John Smith's email is john.s@company.org. He joined the company in 2019 and works "
    "in the Marketing department. She will present the budget."
)


def _comparable(result):
    return result.model_dump(exclude={"timings_ms"})


def test_turn_by_turn_matches_from_scratch(engine):
    session = engine.session("s1")
    turns = []
    for i, (speaker, text) in enumerate(TURNS):
        turns.append(session.add_turn(speaker, text, timestamp=T0))
        assert turns[-1].id == f"T{i + 1}"
    incremental = session.check(REPLY, reference_time=REFERENCE, turn_id="T8")
    scratch = engine.postprocess(
        REPLY,
        TURNS[-1][1],
        DialogueState(turns=turns),
        reference_time=REFERENCE,
        session_id="s1",
        turn_id="T8",
    )
    assert _comparable(incremental) == _comparable(scratch)
    assert incremental.factual_validation.stats.claims_contradicted == 3


def test_every_point_of_a_growing_dialogue_matches(engine):
    session = engine.session()
    turns: list[Turn] = []
    for speaker, text in TURNS:
        turns.append(session.add_turn(speaker, text, timestamp=T0))
        query = next((t.text for t in reversed(turns) if t.role == "user"), "")
        incremental = session.check(REPLY, reference_time=REFERENCE)
        scratch = engine.postprocess(REPLY, query, turns, reference_time=REFERENCE)
        assert _comparable(incremental) == _comparable(scratch), text


def test_a_query_not_yet_in_the_session(engine):
    session = engine.session()
    for speaker, text in TURNS[:4]:
        session.add_turn(speaker, text, timestamp=T0)
    query = "Where does John work?"
    incremental = session.check("John works in Marketing.", query, reference_time=REFERENCE)
    scratch = engine.postprocess(
        "John works in Marketing.", query, session.turns, reference_time=REFERENCE
    )
    assert _comparable(incremental) == _comparable(scratch)
    assert len(session.turns) == 4  # checking does not add the query


def test_state_exposes_registry_topics_and_quds(engine):
    session = engine.session()
    session.add_turn("user", "What is John's email?", timestamp=T0)
    state = session.state()
    assert state.entity_registry[0].entity_id == "E42"
    assert state.qud_stack[0].focus_attribute == "email"
    assert any(t.label == "email" for t in state.topics)


def test_bad_turns_and_reloaded_rules(engine, seed_kb, tmp_path):
    session = engine.session()
    session.add_turn("user", "Hi", id="A")
    with pytest.raises(InputError, match="already in this session"):
        session.add_turn("user", "Hi again", id="A")
    with pytest.raises(InputError, match="text: Input should be a valid string"):
        session.add_turn("user", None)  # type: ignore[arg-type]
    from replyguard.engine import Engine

    fresh = Engine(seed_kb, rules_dir=tmp_path)
    stale = fresh.session()
    fresh.reload_rules()
    with pytest.raises(InputError, match="rules or KB were replaced"):
        stale.check("Fine.")


def test_session_command_streams_turns_and_checks(tmp_path, monkeypatch, capsys):
    import io
    import json

    from conftest import SEED_KB

    from replyguard.cli import main

    kb = tmp_path / "kb.json"
    kb.write_text(json.dumps(SEED_KB))
    lines = [
        {"speaker": "user", "text": "John works in Engineering."},
        {"speaker": "assistant", "text": "Noted."},
        "not json",
        {
            "check": "John works in Marketing.",
            "query": "Where does John work?",
            "reference_time": "2026-11-30T09:00:00",
        },
        {"check": 5},
        {"speaker": "user"},
    ]
    stdin = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    assert main(["session", "--kb", str(kb), "--id", "chat-7"]) == 1
    out, err = capsys.readouterr()
    result, refused = [json.loads(line) for line in out.splitlines()]
    assert refused == {"line": 5, "error": "check: expected text, got int"}
    assert result["session_id"] == "chat-7"
    validation = result["factual_validation"]["claim_validations"][0]
    assert validation["status"]["kind"] == "Contradicted"
    assert [e["turn_id"] for e in validation["history_evidence"]] == ["T1"]
    assert err.splitlines() == [
        "stdin:3: invalid JSON (Expecting value at column 1)",
        "stdin:5: check: expected text, got int",
        "stdin:6: text: Field required",
    ]


REPRO = Path(__file__).parent / "data" / "repro"


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("R18_session_bad_speaker", "stdin:2: speaker: Input should be a valid string"),
        ("R19_session_turn_id_int", "stdin:2: turn_id: expected text, got int"),
        ("R20_session_surrogate_check", "stdin:2: check: holds a lone surrogate (U+D800"),
    ],
)
def test_a_bad_session_line_is_one_error_and_the_session_goes_on(name, error):
    """Each reproducer adds John's department, sends one bad line, then checks a reply that
    contradicts the first turn: the check still sees that turn."""
    stdin = (REPRO / f"{name}.jsonl").read_text()
    run = run_cli("session", "--kb", str(REPRO / "kb.json"), input=stdin)
    assert run.returncode == 1
    [line] = run.stderr.splitlines()
    assert line.startswith(error)
    *refused, last = [json.loads(out) for out in run.stdout.splitlines()]
    assert all(set(r) == {"line", "error"} for r in refused)
    validation = last["factual_validation"]["claim_validations"][0]
    assert validation["status"]["kind"] == "Contradicted"
    assert [e["turn_id"] for e in validation["history_evidence"]] == ["T1"]


def test_session_lines_in_the_openai_chat_format(engine, tmp_path):
    from replyguard.session_cli import handle

    session = engine.session("ops")
    handle(session, {"role": "system", "content": "Answer from the staff list."})
    handle(session, {"role": "user", "content": "Sarah moved to Finance last week."})
    with pytest.raises(InputError, match="speaker: empty"):
        handle(session, {"role": " ", "content": "who?"})
    with pytest.raises(InputError, match="colour: unknown field"):
        handle(session, {"role": "user", "content": "hi", "colour": "red"})
    assert [t.role for t in session.turns] == ["system", "user"]
    out = json.loads(handle(session, {"check": "Sarah Johnson works in Marketing."}))
    assert out["query"] == "Sarah moved to Finance last week."


def test_session_api_errors_leave_the_session_as_it_was(engine):
    session = engine.session()
    session.add_turn("Priya", "Emily joined in 2021.")
    for bad in [
        dict(speaker=5, text="x"),
        dict(speaker="", text="x"),
        dict(speaker="u", text="\udfff"),
    ]:
        with pytest.raises(InputError):
            session.add_turn(**bad)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="turn_id: expected text"):
        session.check("Emily joined in 2019.", turn_id=3)  # type: ignore[arg-type]
    assert [t.id for t in session.turns] == ["T1"]
    result = session.check("Emily joined in 2019.", reference_time=REFERENCE)
    assert (
        result.factual_validation.stats.claims_history_conflict
        + (result.factual_validation.stats.claims_contradicted)
        >= 1
    )


def test_a_session_check_takes_tool_results_as_the_engine_does(engine):
    rows = [{"full_name": "Priya Nair", "department": "Research"}]
    session = engine.session("s-tools")
    session.add_turn("user", "Who leads the lab?", timestamp=T0)
    reply = "Priya Nair works in Sales."
    told = session.check(reply, reference_time=REFERENCE, tool_results=rows)
    direct = engine.postprocess(
        reply,
        "Who leads the lab?",
        [Turn(id="T1", speaker="user", text="Who leads the lab?", timestamp=T0)],
        reference_time=REFERENCE,
        session_id="s-tools",
        tool_results=rows,
    )
    assert "ContradictsFact" in {f.hallucination_type for f in told.hallucination_flags}
    assert _comparable(told) == _comparable(direct)
    alone = session.check(reply, reference_time=REFERENCE)
    assert "ContradictsFact" not in {f.hallucination_type for f in alone.hallucination_flags}
