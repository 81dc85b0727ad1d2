"""Passages given with a call: sentences that say more than they do are UnsupportedClaims, and
names they hold are not nonexistent."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli

from replyguard.engine import Engine
from replyguard.errors import InputError
from replyguard.models import HallucinationType, KnowledgeBase, Turn

PASSAGE = (
    "Crayola, originally an industrial pigment supply company, soon shifted its focus to art "
    "products for home and school use, beginning with chalk, then crayons."
)
GROUNDED = "Crayola shifted its focus to art products for school use, starting with chalk."
INVENTED = "Crayola was founded in Paris by two chemists who loved painting."


@pytest.fixture(scope="module")
def open_engine():
    return Engine(KnowledgeBase(world="open"))


def _unsupported(result):
    return [
        f
        for f in result.hallucination_flags
        if f.hallucination_type == HallucinationType.UnsupportedClaim
    ]


def test_a_sentence_the_passages_say_is_grounded_and_one_they_do_not_is_flagged(open_engine):
    ok = open_engine.postprocess(GROUNDED, "Tell me about Crayola", passages=[PASSAGE])
    assert not _unsupported(ok)
    bad = open_engine.postprocess(
        f"{GROUNDED} {INVENTED}", "Tell me about Crayola", passages=[PASSAGE]
    )
    [flag] = _unsupported(bad)
    assert bad.original[flag.span.start : flag.span.end] == INVENTED
    assert "'Paris'" in flag.reason and "'chemists'" in flag.reason
    assert flag.confidence > 0.8  # almost nothing of it is in the passage
    assert "(Ungrounded 0.143)" in flag.explanation.rule
    [evidence] = flag.evidence
    assert (evidence.kind, evidence.source, evidence.text) == ("passage", "passage 1", PASSAGE)
    assert bad.confidence < ok.confidence


def test_several_passages_ground_a_sentence_together(open_engine):
    reply = "Crayola began with chalk and later made markers."
    alone = open_engine.postprocess(reply, "", passages=[PASSAGE])
    assert _unsupported(alone)  # "later", "made", "markers" are not in the first passage
    both = open_engine.postprocess(
        reply, "", passages=[PASSAGE, "Later it made markers and paints."]
    )
    assert not _unsupported(both)


def test_without_passages_or_for_a_question_nothing_is_measured(open_engine):
    assert not _unsupported(open_engine.postprocess(INVENTED, ""))
    asked = open_engine.postprocess(
        "Was it founded in Paris by two chemists?", "", passages=[PASSAGE]
    )
    assert not _unsupported(asked)


def test_names_in_the_passages_exist(open_engine):
    reply = "Crayola started with chalk. Binney Smith made the crayons."
    named = open_engine.postprocess(reply, "", passages=[PASSAGE])
    assert [
        f.content
        for f in named.hallucination_flags
        if f.hallucination_type == HallucinationType.NonexistentEntity
    ] == ["Binney Smith"]
    known = open_engine.postprocess(reply, "", passages=[PASSAGE, "Binney Smith made crayons."])
    assert not [
        f
        for f in known.hallucination_flags
        if f.hallucination_type == HallucinationType.NonexistentEntity
    ]


def test_the_threshold_is_a_rule_setting():
    lenient = Engine(KnowledgeBase(world="open"), config={"grounding-threshold": 0.1})
    assert not _unsupported(lenient.postprocess(INVENTED, "", passages=[PASSAGE]))


def test_sessions_take_passages_and_bad_passages_are_one_line_errors(open_engine):
    session = open_engine.session("s1")
    session.add_turn("user", "Tell me about Crayola")
    assert _unsupported(session.check(INVENTED, passages=[PASSAGE]))
    with pytest.raises(InputError, match="passages: expected a list of texts, got str"):
        open_engine.postprocess(INVENTED, "", passages=PASSAGE)
    with pytest.raises(InputError, match=r"passages\[1\]: expected text, got int"):
        open_engine.postprocess(INVENTED, "", passages=[PASSAGE, 3])
    with pytest.raises(InputError, match="passages: 1,100,000 characters in all is more than"):
        open_engine.postprocess(INVENTED, "", passages=["x" * 100_000] * 11)


def test_a_case_file_carries_passages(tmp_path):
    case = {
        "kb": {"entities": [], "world": "open"},
        "query": "Tell me about Crayola",
        "response": INVENTED,
        "passages": [PASSAGE],
        "dialogue": [Turn(speaker="user", text="Tell me about Crayola").model_dump(mode="json")],
    }
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case))
    run = run_cli("check", str(path), "--json")
    assert run.returncode == 0, run.stderr
    flags = json.loads(run.stdout)["hallucination_flags"]
    assert [f["hallucination_type"] for f in flags] == ["UnsupportedClaim"]
    report = run_cli("check", str(path), "--explain", "--color", "never")
    assert f"evidence: passage 1: {PASSAGE!r}" in report.stdout
