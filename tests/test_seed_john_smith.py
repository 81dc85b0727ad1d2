"""The seed's worked example: John Smith's email, join date and department."""

from __future__ import annotations

from conftest import check

from replyguard.models import HallucinationType, RecommendationKind

WRONG = (
    "John Smith's email is john.s@company.org. He joined the company in 2019 and works "
    "in the Marketing department."
)
RIGHT = "John Smith's email is john.smith@company.com and he works in Engineering."


def test_three_claims_with_spans_on_their_values(engine, seed_history):
    result = check(engine, WRONG, "What do you know about John?", seed_history)
    claims = result.factual_validation.claims
    assert [(c.predicate, c.object) for c in claims] == [
        ("email", "john.s@company.org"),
        ("join_date", "2019"),
        ("department", "Marketing"),
    ]
    for claim in claims:
        assert claim.subject_id == "E42"  # "He" resolved to John Smith
        assert WRONG[claim.span.start : claim.span.end] == claim.object


def test_all_three_contradicted_with_kb_values_and_history(engine, seed_history):
    result = check(engine, WRONG, "What do you know about John?", seed_history)
    statuses = {
        c.predicate: v.status
        for c, v in zip(
            result.factual_validation.claims,
            result.factual_validation.claim_validations,
            strict=True,
        )
    }
    assert {k: s.kind for k, s in statuses.items()} == {
        "email": "Contradicted",
        "join_date": "Contradicted",
        "department": "Contradicted",
    }
    assert statuses["email"].kb_value == "john.smith@company.com"
    assert statuses["join_date"].kb_value == "2020"
    assert statuses["department"].kb_value == "Engineering"
    history = {
        v.claim_id: [e.turn_id for e in v.history_evidence]
        for v in result.factual_validation.claim_validations
    }
    assert history == {"C1": [], "C2": ["T1"], "C3": ["T3"]}
    assert result.factual_validation.score == 0.0
    assert result.factual_validation.stats.claims_contradicted == 3


def test_corrected_text_and_recommendation(engine, seed_history):
    result = check(engine, WRONG, "What do you know about John?", seed_history)
    assert result.corrected.corrected == (
        "John Smith's email is john.smith@company.com. He joined the company in 2020 and works "
        "in the Engineering department."
    )
    rec = result.recommendation
    assert rec.kind != RecommendationKind.Accept
    named = (rec.guidance or "") + " ".join(c.replacement or "" for c in rec.corrections)
    for value in ("john.smith@company.com", "2020", "Engineering"):
        assert value in named


def test_corrections_keep_spans_valid_in_both_texts(engine, seed_history):
    result = check(engine, WRONG, "", seed_history)
    corrected = result.corrected
    for c in corrected.corrections:
        assert corrected.original[c.span.start : c.span.end] == c.original
        assert corrected.corrected[c.corrected_span.start : c.corrected_span.end] == c.replacement


def test_history_conflicts_raise_contradicts_prior(engine, seed_history):
    result = check(engine, WRONG, "", seed_history)
    prior = [
        f
        for f in result.hallucination_flags
        if f.hallucination_type == HallucinationType.ContradictsPrior
    ]
    assert sorted(f.content for f in prior) == ["2019", "Marketing"]
    assert {e.turn_id for f in prior for e in f.evidence} == {"T1", "T3"}


def test_correct_reply_is_verified_and_accepted(engine, seed_history):
    result = check(engine, RIGHT, "What is John's email and department?", seed_history)
    assert [v.status.kind for v in result.factual_validation.claim_validations] == [
        "Verified",
        "Verified",
    ]
    assert result.hallucination_flags == []
    assert result.recommendation.kind == RecommendationKind.Accept


def test_result_round_trips_through_json(engine, seed_history):
    from replyguard.models import PostprocessedResponse

    result = check(engine, WRONG, "", seed_history)
    again = PostprocessedResponse.model_validate_json(result.model_dump_json())
    assert again == result
    assert again.schema_version == "1.0"
    assert set(result.timings_ms) >= {
        "facts",
        "coherence",
        "hallucination",
        "correction",
        "scoring",
        "total",
    }
