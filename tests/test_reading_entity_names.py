"""Class 3 of issue 11: names come from the KB, the dialogue and what is said of them, not from
capital letters. A lower-case KB name is read, a sentence-initial name that is also an English
word is the name, a capitalised sentence adverb is no invented entity, and neither are the words
of a KB address."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase

REFERENCE = datetime(2026, 5, 11, 9, 0)

KB = {
    "entities": [
        {
            "id": "florist",
            "name": "little fern florist",
            "type": "Organization",
            "attributes": {
                "address": "Suite 12, Marlow Exchange, Canal Street",
                "phone": "0113 555 0170",
            },
        },
        {
            "id": "grocer",
            "name": "Harvest",
            "type": "Organization",
            "attributes": {"address": "3 Ellery Row", "phone": "0113 555 0188"},
        },
    ]
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _check(engine: Engine, reply: str):
    result = engine.postprocess(reply, "", [], reference_time=REFERENCE)
    fv = result.factual_validation
    status = {v.claim_id: v.status.kind for v in fv.claim_validations}
    claims = {(c.subject_id, c.predicate, c.object): status[c.id] for c in fv.claims}
    invented = [
        f.content for f in result.hallucination_flags if f.hallucination_type == "NonexistentEntity"
    ]
    return claims, invented, result


def test_a_lower_case_kb_name_is_read(engine: Engine) -> None:
    claims, invented, _ = _check(engine, "little fern florist can be reached on 0113 555 0188.")
    assert claims[("florist", "phone", "0113 555 0188")] == "Contradicted"
    assert invented == []


def test_a_sentence_initial_name_that_is_an_english_word_is_the_name(engine: Engine) -> None:
    claims, invented, _ = _check(engine, "Harvest can be reached on 0113 555 0188.")
    assert claims[("grocer", "phone", "0113 555 0188")] == "Verified"
    assert invented == []


@pytest.mark.parametrize("opener", ["Alternatively", "Additionally", "Frankly", "Happily"])
def test_a_sentence_adverb_is_no_invented_entity(engine: Engine, opener: str) -> None:
    _, invented, result = _check(engine, f"{opener}, Harvest is open late.")
    assert invented == []
    assert not [n for n in result.new_entities if n.name == opener]


def test_the_words_of_a_kb_address_are_no_invented_entities(engine: Engine) -> None:
    _, invented, result = _check(
        engine, "The florist is in Marlow Exchange, just off Canal Street, in Suite 12."
    )
    assert invented == []
    assert result.new_entities == []


def test_an_invented_name_is_still_flagged(engine: Engine) -> None:
    _, invented, _ = _check(engine, "Try Oakridge Blooms, they deliver on Sundays.")
    assert invented == ["Oakridge Blooms"]


def test_a_name_made_of_address_words_in_another_order_is_still_flagged(engine: Engine) -> None:
    _, invented, _ = _check(engine, "Canal Marlow Florists will have it in stock.")
    assert invented == ["Canal Marlow Florists"]


def test_offered_categories_in_capitals_are_no_invented_entities(engine: Engine) -> None:
    _, invented, _ = _check(engine, "Are you after Flowers or Plants, or something else?")
    assert invented == []


def test_a_common_word_name_something_is_said_of_is_still_flagged(engine: Engine) -> None:
    _, invented, _ = _check(engine, "The nearest florist is Garden, two streets away.")
    assert invented == ["Garden"]


def test_a_clause_after_a_colon_opens_like_a_sentence(engine: Engine) -> None:
    _, invented, _ = _check(engine, "Please confirm: Ordering 12 roses from little fern florist.")
    assert invented == []
