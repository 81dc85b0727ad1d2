"""A class said as what a thing is ("It's a party game", "The style is saison"), read where the
reply answers for a class: the question asks for one, or the sentence names the attribute.
Elsewhere a word after "is a" is no class ("It's a great game"), and "is the game" names a
thing. A class the KB's town list also knows ("Pop", a town somewhere) is still a class.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.kb import kb_from_document

REFERENCE = datetime(2026, 5, 2, 8, 0)

# a board-game café's shelf, one game the dialogue is about
GAMES = {
    "entities": [
        {
            "id": "lights",
            "name": "Harbour Lights",
            "type": "Object",
            "attributes": {"genre": "Strategy", "players": "2-4", "price": "£32"},
        }
    ]
}

# a record shop: one genre is also a town's name
RECORDS = {
    "entities": [
        {
            "id": "tide",
            "name": "Blue Tide",
            "type": "Object",
            "attributes": {"genre": "Pop", "price": "£18"},
        }
    ]
}


@pytest.fixture(scope="module")
def games() -> Engine:
    return Engine(kb_from_document(GAMES))


def _claims(engine: Engine, reply: str, query: str) -> list[tuple[str, str, str]]:
    result = engine.postprocess(reply, query, reference_time=REFERENCE)
    fv = result.factual_validation
    return [
        (c.predicate, c.object, v.status.kind)
        for c, v in zip(fv.claims, fv.claim_validations, strict=True)
    ]


def test_an_unknown_class_answering_a_kind_question_is_checked(games: Engine) -> None:
    result = games.postprocess(
        "It's a party game for up to four.",
        "What kind of game is Harbour Lights?",
        reference_time=REFERENCE,
    )
    fv = result.factual_validation
    got = [
        (c.predicate, c.object, v.status.kind)
        for c, v in zip(fv.claims, fv.claim_validations, strict=True)
    ]
    assert ("genre", "party", "Contradicted") in got
    assert result.recommendation.kind == "CorrectAndDeliver"
    assert result.corrected is not None and "Strategy" in result.corrected.corrected


def test_the_right_class_in_lower_case_is_verified(games: Engine) -> None:
    got = _claims(games, "It's a strategy game.", "What kind of game is Harbour Lights?")
    assert ("genre", "strategy", "Verified") in got


def test_a_bare_class_after_the_copula_is_read(games: Engine) -> None:
    got = _claims(games, "That one is cooperative.", "Which genre is Harbour Lights?")
    assert ("genre", "cooperative", "Contradicted") in got


def test_words_that_only_describe_name_no_class(games: Engine) -> None:
    got = _claims(games, "It's a really popular game.", "What kind of game is Harbour Lights?")
    assert not any(attribute == "genre" for attribute, _, _ in got)


def test_without_a_class_question_a_word_after_is_a_is_not_read(games: Engine) -> None:
    got = _claims(games, "It's a party game, and it costs £32.", "How much is Harbour Lights?")
    assert not any(attribute == "genre" for attribute, _, _ in got)
    assert ("price", "£32", "Verified") in got


def test_a_sentence_naming_the_attribute_needs_no_question(games: Engine) -> None:
    got = _claims(games, "Harbour Lights is great fun. The genre is cooperative.", "Tell me more")
    assert ("genre", "cooperative", "Contradicted") in got


def test_a_definite_thing_after_the_copula_is_no_class(games: Engine) -> None:
    got = _claims(games, "Harbour Lights is the game you played last week.", "What genre is it?")
    assert not any(attribute == "genre" for attribute, _, _ in got)


def test_a_class_named_like_a_town_is_still_a_class() -> None:
    engine = Engine(kb_from_document(RECORDS))
    got = _claims(engine, "Blue Tide is a Shoegaze record.", "Tell me about Blue Tide")
    assert ("genre", "Shoegaze", "Contradicted") in got
