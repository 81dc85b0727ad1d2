"""A reply that restates or acts on a request keeps the details the user gave with a noun or a
cue: how many of a thing, which kind of it, where to. A detail with the same noun or cue and
another value contradicts the user (ContradictsPrior, so the reply is written again); the
user's latest word wins, and an offer the assistant made and the user let stand replaces it.

The sentences are a ferry booking desk's, written for these tests."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase, PostprocessedResponse, Turn

REFERENCE = datetime(2026, 5, 4, 9, 0)
KB = {
    "entities": [
        {
            "id": "F1",
            "name": "Morning Crossing",
            "attributes": {"departs": "8:15 am", "pier": "Pier 3"},
        }
    ]
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _check(engine: Engine, turns: list[tuple[str, str]], reply: str) -> PostprocessedResponse:
    dialogue = [
        Turn(id=f"T{k + 1}", speaker=speaker, text=text) for k, (speaker, text) in enumerate(turns)
    ]
    return engine.postprocess(reply, dialogue[-1].text, dialogue, reference_time=REFERENCE)


def _against_user(result: PostprocessedResponse) -> list[str]:
    return [
        f.content for f in result.hallucination_flags if f.hallucination_type == "ContradictsPrior"
    ]


CABIN = [
    ("user", "We are taking the ferry across to the island next week."),
    ("assistant", "Lovely. Which kind of cabin would you like?"),
    ("user", "I'd prefer an inside cabin, it is cheaper."),
]


def test_another_kind_of_the_same_thing_contradicts_the_user(engine: Engine) -> None:
    wrong = _check(engine, CABIN, "Please confirm: one outside cabin on the Morning Crossing.")
    assert _against_user(wrong) == ["outside"]
    assert wrong.recommendation.kind == "Regenerate"
    same = _check(engine, CABIN, "Please confirm: one inside cabin on the Morning Crossing.")
    assert _against_user(same) == []


@pytest.mark.parametrize(
    "reply",
    [
        "There are no inside cabins left, but an outside cabin is free on the Morning Crossing.",
        "Would an outside cabin on the Morning Crossing do?",  # offers a kind, states none
        "Please confirm your booked cabin on the Morning Crossing.",  # a state is no kind
        "The Morning Crossing has an outside cabin free.",  # an answer says what there is
        "Please confirm a deck cabin on the Morning Crossing, the deck is quiet.",  # a noun
    ],
)
def test_a_kind_offered_or_weighed_is_no_contradiction(engine: Engine, reply: str) -> None:
    assert _against_user(_check(engine, CABIN, reply)) == []


def test_the_latest_count_the_user_gave_wins(engine: Engine) -> None:
    turns = [
        ("user", "I need foot passenger tickets for the Morning Crossing."),
        ("assistant", "How many tickets?"),
        ("user", "Two tickets, please."),
        ("assistant", "Anything else?"),
        ("user", "Actually we are five now, make it five tikcets."),
    ]
    assert _against_user(_check(engine, turns, "Please confirm: 2 tickets for 8:15 am.")) == ["2"]
    assert _against_user(_check(engine, turns, "Please confirm: 5 tickets for 8:15 am.")) == []


def test_a_count_given_without_a_request_marker_binds_the_answer(engine: Engine) -> None:
    turns = [
        ("user", "The Morning Crossing looks right."),
        ("assistant", "How many bikes are you bringing?"),
        ("user", "We have 3 bikes with us."),
    ]
    assert _against_user(_check(engine, turns, "Space for 4 bikes on the Morning Crossing.")) == [
        "4"
    ]


def test_another_place_after_the_same_direction_contradicts_the_user(engine: Engine) -> None:
    turns = [
        ("user", "Can you find me a sailing to Brodick Harbour tomorrow?"),
        ("assistant", "Leaving from which port?"),
        ("user", "From Ardrossan."),
    ]
    wrong = _check(engine, turns, "Please confirm the Morning Crossing from Ardrossan to Oban.")
    assert _against_user(wrong) == ["Oban"]
    same = _check(engine, turns, "Please confirm the Morning Crossing from Ardrossan to Brodick.")
    assert _against_user(same) == []


def test_an_offer_the_user_let_stand_replaces_their_word(engine: Engine) -> None:
    turns = [
        ("user", "I want 2 cabins on the Morning Crossing."),
        ("assistant", "Only 1 cabin is left on that sailing, shall I hold it?"),
        ("user", "Fine, go ahead."),
    ]
    assert _against_user(_check(engine, turns, "Please confirm: 1 cabin on the 8:15 am.")) == []


def test_a_date_said_with_another_word_of_its_clause_is_another_date(engine: Engine) -> None:
    turns = [
        ("user", "I want to board the ferry on June 3rd."),
        ("assistant", "And when do you sail back?"),
        ("user", "We return on June 9th."),
    ]
    wrong = _check(engine, turns, "Please confirm: board on June 4th and return on June 9th.")
    assert _against_user(wrong) == ["June 4th"]
    right = _check(engine, turns, "Please confirm: board on June 3rd and return on June 9th.")
    assert _against_user(right) == []  # two dates, each restated with its own word


def test_a_later_date_for_the_same_thing_replaces_the_earlier(engine: Engine) -> None:
    turns = [
        ("user", "I want to board the ferry on June 3rd."),
        ("assistant", "Noted."),
        ("user", "Sorry, I can only board on the 5th of this month."),
    ]
    assert _against_user(_check(engine, turns, "Please confirm: you board on May 5th.")) == []
    assert _against_user(_check(engine, turns, "Please confirm: you board on June 3rd.")) == [
        "June 3rd"
    ]


def test_a_place_the_kb_knows_may_be_its_name_for_the_users_place(engine: Engine) -> None:
    turns = [("user", "Is there a sailing from Ardro Quay tomorrow morning?")]
    # "Pier 3" is the crossing's pier in the KB: it may be what the user called Ardro Quay
    known = _check(engine, turns, "The Morning Crossing leaves from Pier 3 at 8:15 am.")
    assert _against_user(known) == []
    unknown = _check(engine, turns, "The Morning Crossing leaves from Largs Quay at 8:15 am.")
    assert _against_user(unknown) == ["Largs Quay"]


def test_a_promise_to_look_does_not_end_the_task(engine: Engine) -> None:
    turns = [
        ("user", "I need to get over to Brodick Harbour on Friday."),
        ("assistant", "Sure, let me check the timetable."),
        ("user", "Which sailing should I take?"),
    ]
    reply = "I'd recommend the Morning Crossing to Oban at 8:15 am."
    assert _against_user(_check(engine, turns, reply)) == ["Oban"]


def test_the_party_the_user_comes_with_is_counted(engine: Engine) -> None:
    turns = [
        ("user", "I'm crossing with my brother and his three children on Saturday."),
        ("assistant", "Lovely, how can I help?"),
        ("user", "Which cabin should we take?"),
    ]
    wrong = _check(engine, turns, "For the four of you, the Morning Crossing has a family cabin.")
    assert _against_user(wrong) == ["four"]
    right = _check(engine, turns, "For the five of you, the Morning Crossing has a family cabin.")
    assert _against_user(right) == []


@pytest.mark.parametrize(
    ("reply", "flagged"),
    [
        ("One outside cabin on the Morning Crossing at 8:15 am.", ["outside"]),
        ("One inside cabin on the Morning Crossing at 8:15 am.", []),
        ("There are no inside cabins, one outside cabin on the Morning Crossing is free.", []),
    ],
)
def test_an_answer_keeps_a_kind_the_kb_does_not_know(
    engine: Engine, reply: str, flagged: list[str]
) -> None:
    """A bare answer ("2 seats on a regular ride") that names a kind no KB entity or value
    holds restates the user's kind; it offers nothing the KB has."""
    assert _against_user(_check(engine, CABIN, reply)) == flagged
