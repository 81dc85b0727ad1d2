"""Verdicts a careful operator would give (metta/scoring.metta, coherence.metta,
hallucination.metta), on a ferry line's KB: a reply that answers another question than the one
asked, a supposition the KB cannot check, a sailing code or a cabin the KB does not have."""

from __future__ import annotations

import pytest
from conftest import REFERENCE

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase
from replyguard.models import RecommendationKind as R

FERRY = {
    "entities": [
        {
            "id": "S1",
            "name": "FX204",
            "type": "Object",
            "attributes": {"departs": "08:15", "fare": "£32", "crossing_time": "2 hours"},
        },
        {
            "id": "S2",
            "name": "FX317",
            "type": "Object",
            "attributes": {"departs": "14:40", "fare": "£28", "crossing_time": "2 hours"},
        },
        {
            "id": "C1",
            "name": "Porthole Cabin",
            "type": "Object",
            "attributes": {"berths": 2, "cabin_price": "£45"},
        },
        {
            "id": "C2",
            "name": "Ocean Cabin",
            "type": "Object",
            "attributes": {"berths": 4, "cabin_price": "£70"},
        },
        {
            "id": "O1",
            "name": "Skerry Ferries",
            "type": "Organization",
            "attributes": {"phone": "01856 872 044", "dogs_allowed": True},
        },
    ],
    "schema": {
        "departs": {"value_type": "time", "cues": ["departs", "leaves", "sails"]},
        "fare": {"value_type": "money", "cues": ["fare", "ticket"]},
        "crossing_time": {"value_type": "duration", "cues": ["crossing", "takes"]},
        "berths": {"value_type": "number", "cues": ["berths", "sleeps"]},
        "cabin_price": {"value_type": "money", "cues": ["cabin price", "costs"]},
        "phone": {"value_type": "phone", "cues": ["phone", "call"]},
    },
}


@pytest.fixture(scope="module")
def ferry() -> Engine:
    return Engine(KnowledgeBase.model_validate(FERRY))


def verdict(engine: Engine, reply: str, query: str = ""):
    return engine.postprocess(reply, query, [], reference_time=REFERENCE)


def test_a_reply_that_gives_another_attribute_than_the_one_asked_is_regenerated(ferry):
    result = verdict(ferry, "The FX204 fare is £32.", "When does the FX204 leave?")
    assert result.coherence.qud_relevance.answers_another_question
    assert result.recommendation.kind == R.Regenerate


def test_the_attribute_asked_for_answers_the_question(ferry):
    result = verdict(ferry, "The FX204 leaves at 08:15.", "When does the FX204 leave?")
    assert not result.coherence.qud_relevance.answers_another_question
    assert result.recommendation.kind == R.Accept


def test_a_question_asking_two_things_is_partly_answered_by_one(ferry):
    result = verdict(
        ferry, "The FX317 fare is £28.", "What is the FX317 fare and when does it leave?"
    )
    assert not result.coherence.qud_relevance.answers_another_question
    assert result.recommendation.kind != R.Regenerate


def test_a_supposition_the_kb_cannot_check_is_flagged_not_accepted(ferry):
    result = verdict(
        ferry, "The crossing is generally calm in summer, though I can't confirm that for July."
    )
    assert [f.hallucination_type.value for f in result.hallucination_flags] == ["UnsupportedClaim"]
    assert result.recommendation.kind == R.AcceptWithFlags


def test_a_supposition_beside_a_checked_value_is_no_doubt(ferry):
    result = verdict(ferry, "I believe the FX317 leaves at 14:40.")
    assert not result.hallucination_flags
    assert result.recommendation.kind == R.Accept


def test_a_code_shaped_like_the_kbs_sailings_is_an_invented_sailing(ferry):
    result = verdict(ferry, "Yes, the FX209 leaves at 18:00.", "Is there an evening sailing?")
    flags = [f for f in result.hallucination_flags if f.content == "FX209"]
    assert flags and flags[0].hallucination_type.value == "NonexistentEntity"
    assert flags[0].confidence >= 0.75, "digits differ: no misspelling of FX204"
    assert result.recommendation.kind == R.Regenerate


def test_a_new_one_of_a_kind_the_kb_lists_is_invented_with_the_real_ones_named(ferry):
    result = verdict(ferry, "You could book the Ocean View Cabin, which sleeps 4.")
    assert result.recommendation.kind == R.Regenerate
    guidance = result.recommendation.guidance
    assert "Porthole Cabin" in guidance and "Ocean Cabin" in guidance


def test_a_claimed_attribute_named_in_the_question_answers_it(ferry):
    # "cabin" is in the question: cabin_price answers it, though no cue named that attribute
    result = verdict(ferry, "The Ocean Cabin costs £70.", "How much is a bigger cabin?")
    assert not result.coherence.qud_relevance.answers_another_question


def test_a_corrected_reply_is_not_delivered_with_a_value_no_claim_checked(ferry):
    one_wrong = verdict(ferry, "The FX317 leaves at 15:40.")
    assert one_wrong.recommendation.kind == R.CorrectAndDeliver
    with_unread = verdict(ferry, "The FX317 leaves at 15:40, and a bike costs £9 extra.")
    assert [u.text for u in with_unread.unread_values] == ["£9"]
    assert with_unread.recommendation.kind == R.Regenerate


def test_values_offered_when_every_tool_returned_nothing_are_invented():
    engine = Engine(KnowledgeBase())
    query = "Any sailings to Westray on Friday?"
    offer = engine.postprocess(
        "There's one at 10:20 for £18.", query, [], reference_time=REFERENCE, tool_results=[[]]
    )
    assert [f.content for f in offer.hallucination_flags] == ["10:20", "£18"]
    assert offer.recommendation.kind == R.Regenerate
    assert (
        "The lookup returned nothing: say that nothing was found" in offer.recommendation.guidance
    )
    # saying that nothing was found, or asking, offers nothing
    for reply in (
        "Sorry, there are no sailings to Westray on Friday.",
        "Shall I look at Saturday?",
    ):
        result = engine.postprocess(reply, query, [], reference_time=REFERENCE, tool_results=[[]])
        assert not result.hallucination_flags, reply
    # without a lookup, an empty KB knows nothing either way
    unknown = engine.postprocess(
        "There's one at 10:20 for £18.", query, [], reference_time=REFERENCE
    )
    assert not unknown.hallucination_flags


def test_guidance_names_each_fix_once():
    kb = KnowledgeBase.model_validate(
        {
            "entities": [
                {
                    "id": "F1",
                    "name": "FX410",
                    "type": "Object",
                    "attributes": {"days": ["Monday"], "vessel": "MV Orkney"},
                }
            ],
            "schema": {"days": {"value_type": "text", "cardinality": "many", "cues": ["on"]}},
        }
    )
    result = verdict(
        Engine(kb),
        "The FX410 sails on Tuesdays and Thursdays, on the MV Hoy.",
        "What time does it sail?",
    )
    guidance = result.recommendation.guidance or ""
    assert result.recommendation.kind == R.Regenerate
    assert guidance.count("For FX410's days, the correct value is") == 1, guidance
