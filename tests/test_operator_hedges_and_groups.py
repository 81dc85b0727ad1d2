"""Suppositions in a clause of their own, and group sizes said as "a crew of five"
(stages/speculation.py, text/details.py `party_details`), on a sailing school's KB."""

from __future__ import annotations

import pytest
from conftest import check as verdict

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase, Turn
from replyguard.models import RecommendationKind as R

SCHOOL = {
    "entities": [
        {
            "id": "school",
            "name": "Gullrock Sailing School",
            "type": "Organization",
            "attributes": {"phone": "01590 223 118", "wetsuit_hire": True},
        },
        {
            "id": "dinghy",
            "name": "Dinghy Starter",
            "type": "Event",
            "aliases": ["dinghy starters"],
            "attributes": {"fee": "£120", "length": "2 days", "places": 6, "instructor_led": True},
        },
        {
            "id": "keelboat",
            "name": "Keelboat Day",
            "type": "Event",
            "attributes": {"fee": "£190", "length": "1 day", "places": 4, "instructor_led": False},
        },
    ]
}


@pytest.fixture(scope="module")
def school() -> Engine:
    return Engine(KnowledgeBase.model_validate(SCHOOL))


def unsupported(result) -> list[str]:
    return [
        f.content
        for f in result.hallucination_flags
        if f.hallucination_type.value == "UnsupportedClaim"
    ]


def test_a_supposition_after_a_semicolon_is_not_answered_for_by_the_checked_fee(school):
    result = verdict(
        school, "The Dinghy Starter is £120; beginners usually pick it up by the second day."
    )
    assert unsupported(result) == ["beginners usually pick it up by the second day."]
    assert result.recommendation.kind == R.AcceptWithFlags


def test_hearsay_in_a_clause_after_and_is_a_supposition(school):
    result = verdict(
        school, "The Keelboat Day costs £190, and people say the instructors are very patient."
    )
    assert len(unsupported(result)) == 1
    assert result.recommendation.kind == R.AcceptWithFlags


def test_a_usual_value_the_kb_checks_in_its_own_clause_is_no_doubt(school):
    result = verdict(school, "The Dinghy Starter usually runs over 2 days and costs £120.")
    assert not unsupported(result)
    assert result.recommendation.kind == R.Accept


def test_a_group_counted_after_of_is_the_party_size(school):
    turns = [Turn(speaker="user", text="We're a crew of five and want a day on a keelboat.")]
    result = verdict(
        school, "The Keelboat Day is ideal for your crew of three.", "Any ideas?", turns
    )
    assert result.recommendation.kind == R.Regenerate
    assert any(f.hallucination_type.value == "ContradictsPrior" for f in result.hallucination_flags)


def test_the_same_group_size_restated_is_no_contradiction(school):
    turns = [Turn(speaker="user", text="We're a crew of four and want a day on a keelboat.")]
    result = verdict(
        school,
        "The Keelboat Day takes four people, ideal for your crew of four.",
        "Any ideas?",
        turns,
    )
    assert not any(
        f.hallucination_type.value == "ContradictsPrior" for f in result.hallucination_flags
    )


def test_a_hyphenated_yes_no_phrase_names_its_attribute(school):
    result = verdict(school, "The Dinghy Starter is an instructor-led course.")
    assert [(c.predicate, c.object) for c in result.factual_validation.claims] == [
        ("instructor_led", "True")
    ]
    assert result.recommendation.kind == R.Accept


def test_they_refers_to_an_entity_named_in_the_plural(school):
    result = verdict(school, "Our dinghy starters cost £120, and they last 2 days.")
    issues = [i.issue_type.value for i in result.coherence.entity_consistency.issues]
    assert "InconsistentPronoun" not in issues
    assert {(c.predicate, c.object) for c in result.factual_validation.claims} >= {
        ("length", "2 days")
    }
    assert result.recommendation.kind == R.Accept
