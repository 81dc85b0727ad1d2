"""How a user's message is classified (text/questions.py): requests to be told something ask
what it is, and a wh-word in a sentence that asks nothing is no question."""

import pytest

from replyguard.models import QuestionType
from replyguard.text.questions import classify_question


@pytest.mark.parametrize(
    ("message", "head"),
    [
        ("Could you tell me the deposit?", "deposit"),
        ("Can you give me their fax number?", "fax"),
        ("Would you please send me the postcode?", "postcode"),
        ("Could you let me know the cancellation fee?", "cancellation"),
        ("Will you show us your menu?", "menu"),
    ],
)
def test_a_request_to_be_told_asks_what_its_object_is(message, head):
    form = classify_question(message)
    assert (form.question_type, form.wh_word, form.head) == (QuestionType.Wh, "what", head)


def test_an_embedded_question_after_a_request_keeps_its_own_wh_word():
    form = classify_question("Can you tell me where the ferry leaves from?")
    assert (form.question_type, form.wh_word) == (QuestionType.Wh, "where")


@pytest.mark.parametrize(
    "message",
    [
        "Can you book me a table?",
        "Could you find a kennel nearby?",
        "Can you swim?",
        # an abbreviation's dot does not end the question ("Do P." would be a command)
        "Did P.D. Eastman write it?",
        "Is Dr. Lee in on Monday?",
    ],
)
def test_other_requests_and_questions_stay_yes_no(message):
    assert classify_question(message).question_type == QuestionType.YesNo


@pytest.mark.parametrize(
    "message",
    ["That is what we were hoping for.", "The blue one is what I will take.", "Do what works."],
)
def test_a_free_relative_in_a_statement_is_no_question(message):
    assert classify_question(message).question_type == QuestionType.Statement


@pytest.mark.parametrize(
    ("message", "wh"),
    [
        ("I'd like to know when the clinic opens.", "when"),
        ("I wonder who painted it.", "who"),
        ("Please check which vets are free on Monday.", "which"),
        ("So that is what you charge?", "what"),
    ],
)
def test_a_wh_clause_under_a_verb_of_asking_or_with_a_question_mark_asks(message, wh):
    form = classify_question(message)
    assert (form.question_type, form.wh_word) == (QuestionType.Wh, wh)


# a kennel's two boarding rooms
KB = {
    "entities": [
        {"id": "K1", "name": "Meadow Room", "attributes": {"nightly_rate": "£28", "size": "large"}},
        {"id": "K2", "name": "Burrow Room", "attributes": {"nightly_rate": "£19", "size": "small"}},
    ]
}


@pytest.fixture(scope="module")
def engine():
    from replyguard.engine import Engine
    from replyguard.models import KnowledgeBase

    return Engine(KnowledgeBase.model_validate(KB))


def _qud(engine, question, reply):
    from datetime import datetime

    from replyguard.models import Turn

    turns = [
        Turn(id="T1", speaker="user", text="Do you have a room for a spaniel?"),
        Turn(id="T2", speaker="assistant", text="The Meadow Room is free this weekend."),
        Turn(id="T3", speaker="user", text=question),
    ]
    result = engine.postprocess(reply, question, turns, reference_time=datetime(2026, 5, 2, 10))
    return result.coherence.qud_relevance


def test_a_request_to_be_told_the_rate_is_answered_by_the_rate(engine):
    qud = _qud(engine, "Could you tell me the nightly rate?", "It is £28 a night.")
    assert qud.question_type == QuestionType.Wh
    assert qud.addresses_qud


def test_a_request_to_be_told_the_rate_is_not_answered_by_its_size(engine):
    qud = _qud(engine, "Could you tell me the nightly rate?", "It is a large room.")
    assert not qud.addresses_qud


def test_questions_of_the_same_shape_keep_their_own_words():
    # the grammar's reading of a sequence of word classes is parsed once and remembered; the
    # wh-word and head still come from each question's own words
    first = classify_question("Which platform does the slow train leave from?")
    second = classify_question("Whose bicycle is this red one by the gate?")
    third = classify_question("Which platform does the slow train leave from, or not?")
    assert (first.wh_word, first.head) == ("which", "platform")
    assert (second.wh_word, second.head) == ("whose", "bicycle")
    assert third.question_type == QuestionType.Wh


@pytest.mark.parametrize("message", ["Do Thursday at noon.", "Do 4 pm then.", "Will do."])
def test_an_opening_auxiliary_without_subject_or_question_mark_is_a_command(message):
    assert classify_question(message).question_type == QuestionType.Statement


@pytest.mark.parametrize(
    "message",
    ["Do you fix tandems.", "Is the workshop open on Sundays", "Does Thursday work?"],
)
def test_an_inverted_subject_or_a_question_mark_still_asks(message):
    assert classify_question(message).question_type == QuestionType.YesNo


@pytest.mark.parametrize(
    "message",
    [
        "Can I leave my bike outside when I come in for the fitting?",
        "Is the café still open when the last ferry gets in?",
        "Could we bring the dog where the picnic tables are?",
    ],
)
def test_a_wh_word_opening_a_clause_of_a_yes_no_question_asks_yes_or_no(message):
    assert classify_question(message).question_type == QuestionType.YesNo


@pytest.mark.parametrize(
    ("message", "wh"),
    [
        ("Can you tell me when the fitting starts?", "when"),
        ("Do you know where the picnic tables are?", "where"),
        ("Could you check what time the last ferry leaves?", "what"),
    ],
)
def test_a_wh_word_after_a_verb_that_embeds_it_is_the_question(message, wh):
    form = classify_question(message)
    assert (form.question_type, form.wh_word) == (QuestionType.Wh, wh)
