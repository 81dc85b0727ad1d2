"""A direct yes or no takes a side on the question's claim, and is checked against the KB."""

from __future__ import annotations

import pytest
from conftest import REFERENCE

from replyguard.models import HallucinationType, Turn


def _answer(engine, question: str, reply: str):
    turns = [Turn(id="T1", speaker="user", text=question)]
    return engine.postprocess(reply, question, turns, reference_time=REFERENCE)


def _polar_flags(result):
    return [
        f
        for f in result.hallucination_flags
        if f.hallucination_type == HallucinationType.ContradictsFact
    ]


@pytest.mark.parametrize(
    ("question", "reply", "suggestion"),
    [
        (
            "Is the Budget Review at 3pm?",
            "Yes, it is.",
            "Answer no: Budget Review's time is '14:00'",
        ),
        (
            "Is the Budget Review at 2pm?",
            "No, it isn't.",
            "Answer yes: Budget Review's time is '14:00'",
        ),
        (
            "Does John work in Marketing?",
            "Yes he does.",
            "Answer no: John Smith's department is 'Engineering'",
        ),
        (
            "Is John's email john.smith@company.com?",
            "Nope.",
            "Answer yes: John Smith's email is 'john.smith@company.com'",
        ),
    ],
)
def test_an_answer_against_the_kb_contradicts_it(engine, question, reply, suggestion):
    result = _answer(engine, question, reply)
    (flag,) = _polar_flags(result)
    assert flag.span.start == 0 and flag.content == reply.split(",")[0].split()[0].rstrip(".")
    assert flag.suggestion == suggestion
    assert flag.evidence[0].kind == "kb"
    assert "PolarAnswer" in flag.explanation.rule
    assert any("hallucination.metta" in c for c in flag.explanation.clauses)


@pytest.mark.parametrize(
    ("question", "reply"),
    [
        ("Is the Budget Review at 2pm?", "Yes, it is."),
        ("Is the Budget Review at 3pm?", "No, it is at 2pm."),
        ("Does John work in Engineering?", "Right now I can't say."),  # no answer: "Right now"
        ("Does John work in Engineering? Tell me.", "Sure thing, he does."),
        # a yes to a question that is not a yes/no question takes no side on its values
        ("Is the Budget Review at 3pm or at 4pm?", "Yes, one of those."),
    ],
)
def test_an_answer_the_kb_agrees_with_or_no_answer_draws_no_flag(engine, question, reply):
    assert _polar_flags(_answer(engine, question, reply)) == []


def test_a_reply_that_states_the_asked_value_is_checked_by_that_claim_not_by_its_yes(engine):
    result = _answer(engine, "Is the Budget Review at 3pm?", "Yes, it is at 3pm.")
    assert [f.content for f in _polar_flags(result)] == ["3pm"]


def test_a_question_that_names_no_subject_asks_about_none(engine):
    turns = [
        Turn(id="T1", speaker="user", text="When is the Budget Review?"),
        Turn(id="T2", speaker="assistant", text="The Budget Review is at 2pm."),
        Turn(id="T3", speaker="user", text="Is there another meeting at 2pm?"),
    ]
    result = engine.postprocess(
        "No, that is the only one.", turns[-1].text, turns, reference_time=REFERENCE
    )
    assert _polar_flags(result) == []


def test_a_name_after_a_question_opening_negation_is_the_subject_not_a_value():
    from replyguard.engine import Engine
    from replyguard.kb import kb_from_triples

    books = Engine(
        kb_from_triples(
            [
                ["P.D. Eastman", "wrote", "The Best Nest"],
                ["The Best Nest", "written_by", "P.D. Eastman"],
            ]
        )
    )
    question = "Didn't P.D. Eastman write The Best Nest?"
    (flag,) = _polar_flags(_answer(books, question, "No, he did not."))
    assert flag.content == "No" and flag.evidence[0].value == "The Best Nest"
