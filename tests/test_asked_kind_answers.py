"""Issue 11, class 13: a question asking what things of a kind there are ("What events do I
have on the 7th?") is answered by naming one of that kind, as the KB tells kinds: an entity's
type, the last word of its name, or the word its columns are named for (event_date,
event_time). A date the question is restricted by is not what it asks for.

Fails on b383040 (the reply was judged unanswered and regenerated); verdicts written first.
"""

from __future__ import annotations

from datetime import datetime

from replyguard.engine import Engine
from replyguard.kb import kb_from_rows

MONDAY = datetime(2026, 12, 7, 9, 0)
# a user's calendar as a service returns it: rows named by their title, no entity type
CALENDAR = [
    {
        "title": "Haircut at Crown & Comb",
        "event_date": "2026-12-10",
        "event_time": "11:00",
        "event_location": "14 Tower Street",
    },
]


ASKED = "Can you check what events I have on my calendar on the 10th?"


def answer(reply: str):  # noqa: ANN201
    engine = Engine(kb_from_rows(CALENDAR, name_column="title", origin="calendar"))
    return engine.postprocess(reply, ASKED, [], reference_time=MONDAY)


def test_naming_an_entity_of_the_kind_asked_for_answers_the_question():
    result = answer("You have a Haircut at Crown & Comb at 11 am.")
    assert result.coherence.qud_relevance.addresses_qud
    assert result.recommendation.kind == "Accept"


def test_a_reply_naming_nothing_of_the_kind_asked_for_is_still_unanswered():
    assert not answer(
        "Your calendar is synced with your phone."
    ).coherence.qud_relevance.addresses_qud
