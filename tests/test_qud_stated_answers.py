"""Questions answered without "yes" or "no": a yes/no question or a request ("Can you find me
a record?") answered by stating what the KB holds or offering one of its entities, "when" answered
by a year or a wait, and a wh-word typed without its apostrophe ("whats the label?")."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase, QuestionType, Turn
from replyguard.text.questions import classify_question

REFERENCE = datetime(2026, 4, 20, 15, 0)

# a record shop's search results
KB = {
    "entities": [
        {
            "id": "V1",
            "name": "Salt Marsh Hymns",
            "attributes": {"band": "The Lowfield Choir", "released": "2011", "label": "Tern"},
        },
        {
            "id": "V2",
            "name": "Copper Weather",
            "attributes": {"band": "Ada Brannock", "released": "2019", "label": "Kestle"},
        },
    ]
}
BEFORE = [
    Turn(id="T1", speaker="user", text="I'm after some folk records."),
    Turn(id="T2", speaker="assistant", text="How about Salt Marsh Hymns by The Lowfield Choir?"),
]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _qud(engine: Engine, question: str, reply: str):
    turns = [*BEFORE, Turn(id="T3", speaker="user", text=question)]
    result = engine.postprocess(reply, question, turns, reference_time=REFERENCE)
    return result.coherence.qud_relevance, result


@pytest.mark.parametrize(
    ("question", "reply"),
    [
        ("Is it from 2015?", "It's from 2011."),  # the fact instead of "no"
        ("Do you have anything else?", "There is Copper Weather by Ada Brannock."),
        ("Could you find me another record?", "You might like Copper Weather."),
    ],
)
def test_a_yes_no_question_answered_by_what_the_kb_holds(engine, question, reply):
    qud, result = _qud(engine, question, reply)
    assert qud.question_type == QuestionType.YesNo
    assert qud.addresses_qud
    assert result.recommendation.kind.value in ("Accept", "AcceptWithFlags")


def test_a_yes_no_question_answered_by_nothing_is_not_addressed(engine):
    qud, _ = _qud(engine, "Is it from 2015?", "Folk is a lovely genre to get into.")
    assert not qud.addresses_qud


def test_a_wrong_year_stated_instead_of_no_is_still_contradicted(engine):
    _, result = _qud(engine, "Is it from 2015?", "It's from 2013.")
    fv = result.factual_validation
    assert [(c.predicate, c.object) for c in fv.claims] == [("released", "2013")]
    assert fv.claim_validations[0].status.kind == "Contradicted"


@pytest.mark.parametrize("reply", ["It came out in 2011.", "In about 10 minutes."])
def test_when_is_answered_by_a_year_or_a_wait(engine, reply):
    qud, _ = _qud(engine, "When was it released?", reply)
    assert qud.expected_answer == "Time"
    assert qud.answer_coverage >= 0.9


@pytest.mark.parametrize(
    ("question", "reply", "answered"),
    [
        ("How old is that record?", "It was released in 2011.", True),  # the year it counts from
        ("How old is that record?", "It is 15 years old.", True),
        ("How old is that record?", "It's on the Tern label.", False),
    ],
)
def test_how_old_is_answered_by_an_age_or_the_year_it_counts_from(
    engine, question, reply, answered
):
    qud, _ = _qud(engine, question, reply)
    assert (qud.answer_coverage >= 0.9) is answered


@pytest.mark.parametrize(
    ("question", "wh"),
    [("whats the label?", "what"), ("Wheres the shop?", "where"), ("whos the singer?", "who")],
)
def test_a_wh_word_without_its_apostrophe(question, wh):
    form = classify_question(question)
    assert form.question_type == QuestionType.Wh
    assert form.wh_word == wh


# songs whose year is a bare column "year": "five years back" names it by no cue
SONGS = {
    "entities": [
        {"id": "S1", "name": "Night Ferry", "attributes": {"artist": "Kozoria", "year": "2015"}},
        {"id": "S2", "name": "Year Song", "attributes": {"artist": "Maren Holt", "year": "2019"}},
    ]
}


@pytest.mark.parametrize(
    ("question", "reply", "addressed"),
    [
        ("Is that song from five years back?", "It is from 2015.", True),
        ("Is that song from five years back?", "Kozoria sings it.", False),
        # a word of the name the question says is no word of what it asks
        ("Is Night Ferry a year song?", "It is from 2015.", False),
    ],
)
def test_a_yes_no_question_answered_by_the_attribute_whose_name_it_says(question, reply, addressed):
    engine = Engine(KnowledgeBase.model_validate(SONGS))
    turns = [
        Turn(id="T1", speaker="assistant", text="How about Night Ferry by Kozoria?"),
        Turn(id="T2", speaker="user", text=question),
    ]
    qud = engine.postprocess(reply, question, turns, reference_time=REFERENCE).coherence
    assert qud.qud_relevance.question_type == QuestionType.YesNo
    assert qud.qud_relevance.addresses_qud is addressed


def test_a_command_opening_with_do_is_no_unanswered_question(engine):
    qud, result = _qud(engine, "Do Copper Weather then.", "Copper Weather is on the Kestle label.")
    assert qud.question_type == QuestionType.Statement
    assert result.recommendation.kind.value in ("Accept", "AcceptWithFlags")
