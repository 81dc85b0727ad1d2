"""Class 3 of issue 11, names: an unknown name said where a KB attribute's value stands is a
claim on that attribute (wrong, and corrected), not an invented entity; which attribute it
fills is read off the KB's own values. A garden centre's weekend workshops."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.kb import kb_from_document
from replyguard.models import HallucinationType

REFERENCE = datetime(2026, 11, 30, 9, 0)

WORKSHOPS = {
    "entities": [
        {
            "id": "W1",
            "name": "Rose Pruning",
            "type": "Event",
            "attributes": {
                "greenhouse": "Palm House",
                "tutor": "Morag Fairlie",
                "town": "Dundee",
                "workshop_kind": "Hands On",
                "date": "2026-12-05",
            },
        },
        {
            "id": "W2",
            "name": "Winter Bulbs",
            "type": "Event",
            "attributes": {
                "greenhouse": "Fern House",
                "tutor": "Idris Bowen",
                "town": "Dundee",
                "workshop_kind": "Talk",
                "date": "2026-12-06",
            },
        },
        {
            "id": "W3",
            "name": "Bonsai Basics",
            "type": "Event",
            "attributes": {
                "greenhouse": "Palm House",
                "tutor": "Keiko Arane",
                "town": "Perth",
                "workshop_kind": "Hands On",
                "date": "2026-12-12",
            },
        },
    ]
}


@pytest.fixture(scope="module")
def garden() -> Engine:
    return Engine(kb_from_document(WORKSHOPS))


def check(engine: Engine, text: str):
    return engine.postprocess(text, "", [], reference_time=REFERENCE)


def claims(result) -> list[tuple[str, str, str, str]]:
    fv = result.factual_validation
    return [
        (c.subject, c.predicate, c.object, v.status.kind)
        for c, v in zip(fv.claims, fv.claim_validations, strict=True)
    ]


def invented(result) -> list[str]:
    return [
        f.content
        for f in result.hallucination_flags
        if f.hallucination_type == HallucinationType.NonexistentEntity
    ]


def test_a_name_shaped_like_the_kbs_values_is_a_wrong_value_corrected(garden):
    # "Cactus House" ends like the greenhouses "Palm House" and "Fern House": a greenhouse
    result = check(garden, "Rose Pruning takes place at Cactus House this Saturday.")
    assert ("Rose Pruning", "greenhouse", "Cactus House", "Contradicted") in claims(result)
    assert invented(result) == []
    assert result.corrected is not None
    assert "at Palm House" in result.corrected.corrected


def test_the_attribute_the_sentence_already_fills_is_not_the_one_the_name_fills(garden):
    # the greenhouse is said (and right), so the person after "by" is the tutor
    result = check(garden, "Winter Bulbs is led by Anwen Price in the Fern House.")
    assert ("Winter Bulbs", "tutor", "Anwen Price", "Contradicted") in claims(result)
    assert ("Winter Bulbs", "greenhouse", "Fern House", "Verified") in claims(result)
    assert invented(result) == []


def test_a_class_after_an_article_fills_the_attribute_of_classes(garden):
    result = check(garden, "Bonsai Basics is a Demonstration Only session.")
    assert ("Bonsai Basics", "workshop_kind", "Demonstration Only", "Contradicted") in claims(
        result
    )
    assert invented(result) == []


def test_a_place_name_fills_the_attribute_of_places(garden):
    result = check(garden, "Bonsai Basics is held in Stirling.")
    assert ("Bonsai Basics", "town", "Stirling", "Contradicted") in claims(result)


def test_a_name_two_attributes_could_hold_stays_an_unknown_name(garden):
    # "Moss Lodge" ends like no greenhouse and could be a greenhouse or a tutor: no guess
    result = check(garden, "Rose Pruning is at Moss Lodge.")
    assert claims(result) == []
    assert invented(result) == ["Moss Lodge"]


def test_an_unknown_name_ends_where_a_kb_name_begins(garden):
    result = check(garden, "There is a session in Moss Lodge of Rose Pruning.")
    assert invented(result) == ["Moss Lodge"]


def test_a_capital_the_inside_a_sentence_is_part_of_the_name_corrected(garden):
    result = check(garden, "Rose Pruning takes place at The Cactus House.")
    assert ("Rose Pruning", "greenhouse", "The Cactus House", "Contradicted") in claims(result)
    assert result.corrected is not None
    assert result.corrected.corrected == "Rose Pruning takes place at Palm House."
