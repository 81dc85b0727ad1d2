"""Capitalised words that are no invented entity: a street after its house number, the verb of
an imperative before a name ("Confirm Lanterns on the patio speaker"), an interjection opening a
reply, and a sentence typed without the space after its full stop ("...at Pier 4.You ...")."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase, Turn
from replyguard.text.tokens import split_sentences, tokenize

REFERENCE = datetime(2026, 9, 7, 10, 0)

# a jukebox's search results and a harbour ferry, names of our own
KB = {
    "entities": [
        {"id": "S1", "name": "Lanterns", "attributes": {"artist": "Mira Oduya", "year": "2016"}},
        {"id": "S2", "name": "Paper Boats", "attributes": {"artist": "Tom Aske", "year": "2014"}},
        {"id": "F1", "name": "Gull Point Ferry", "attributes": {"departs": "14:10", "pier": "4"}},
    ]
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _invented(engine: Engine, reply: str, user: str = "Can you help?") -> list[str]:
    turns = [Turn(id="T1", speaker="user", text=user)]
    result = engine.postprocess(reply, user, turns, reference_time=REFERENCE)
    return [
        f.content for f in result.hallucination_flags if f.hallucination_type == "NonexistentEntity"
    ]


@pytest.mark.parametrize(
    "reply",
    [
        "Shall the cab take you to 4417 Larkspur Crescent?",
        "Your driver is heading to 88 west Marden Road now.",
        "So that is 1290 North 3rd Avenue, right?",
    ],
)
def test_a_street_after_its_house_number_is_an_address(engine: Engine, reply: str) -> None:
    assert _invented(engine, reply, "I need a cab.") == []


def test_an_unknown_name_without_a_house_number_is_still_invented(engine: Engine) -> None:
    assert _invented(engine, "Then go and see Harriet Colby at the desk.") == ["Harriet Colby"]


@pytest.mark.parametrize(
    "reply",
    ["Confirm Lanterns on the patio speaker.", "Please confirm: Play Paper Boats in the kitchen."],
)
def test_an_imperative_verb_is_not_part_of_the_name_after_it(engine: Engine, reply: str) -> None:
    assert _invented(engine, reply, "Play it on the patio speaker.") == []


def test_an_imperative_verb_before_an_unknown_name_leaves_the_name(engine: Engine) -> None:
    assert _invented(engine, "Confirm Velvet Harbour on the patio speaker.") == ["Velvet Harbour"]


@pytest.mark.parametrize("opener", ["Oops", "Apologies", "Congrats"])
def test_an_interjection_is_no_name(engine: Engine, opener: str) -> None:
    assert _invented(engine, f"{opener}, there is no later ferry today.") == []


def test_a_full_stop_without_its_space_ends_the_sentence(engine: Engine) -> None:
    text = "The Gull Point Ferry leaves from pier 4.Its crossing is short.You can book it here."
    assert len(split_sentences(text, tokenize(text))) == 3
    reply = "I found one sailing, the Gull Point Ferry.Is that the one you want?"
    assert _invented(engine, reply, "Is there a ferry this afternoon?") == []


@pytest.mark.parametrize(
    "text", ["Washington D.C. is far", "see example.com today", "J.K. Rowling"]
)
def test_initialisms_and_domains_keep_their_dots(text: str) -> None:
    assert len(split_sentences(text, tokenize(text))) == 1
