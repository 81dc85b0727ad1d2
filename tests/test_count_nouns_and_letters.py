"""Counts said with their noun, and one-letter codes (issue 11, classes 7 and 11).

- "has 4 bedrooms": a number said with the noun a number column counts is that column's value,
  the noun naming the column as a cue would, so it is checked against the entity named.
- A compound's part stands for it: "4 beds" of `bedrooms`, "3 bedrooms" of `number_of_beds`;
  "a 4-bed house" joins the count and its noun with a hyphen.
- A count said with the noun of one column is never checked against another number column.
- A lower-case "a" is the article, never the letter code "A" a column holds ("zone A").
"""

from __future__ import annotations

from datetime import datetime

import pytest
from row_verdicts import claim_verdicts

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase

REFERENCE = datetime(2026, 6, 10, 9, 0)

# narrowboats for hire: sleeping cabins and washrooms counted, a mooring zone lettered
BOATS = {
    "entities": [
        {
            "id": "kingfisher",
            "name": "Kingfisher",
            "type": "Object",
            "attributes": {
                "bedrooms": 3,
                "washrooms": 2,
                "mooring_zone": "C",
                "weekly_hire": "£1,100",
            },
        },
        {
            "id": "heron",
            "name": "Heron",
            "type": "Object",
            "attributes": {
                "bedrooms": 1,
                "washrooms": 1,
                "mooring_zone": "A",
                "weekly_hire": "£640",
            },
        },
    ]
}

# the same counts named the other way round: the column says "beds"
COTTAGES = {
    "entities": [
        {
            "id": "millhouse",
            "name": "Millhouse Barn",
            "type": "Location",
            "attributes": {"number_of_beds": "4", "number_of_baths": "2"},
        },
        {
            "id": "orchard",
            "name": "Orchard End",
            "type": "Location",
            "attributes": {"number_of_beds": "2", "number_of_baths": "1"},
        },
    ]
}


@pytest.fixture(scope="module")
def boats() -> Engine:
    return Engine(KnowledgeBase.model_validate(BOATS))


@pytest.fixture(scope="module")
def cottages() -> Engine:
    return Engine(KnowledgeBase.model_validate(COTTAGES))


def _verdicts(engine: Engine, reply: str) -> dict:
    return {k[:2]: v.kind for k, v in claim_verdicts(engine, reply, REFERENCE).items()}


def test_a_count_with_its_columns_noun_is_checked_against_the_entity_named(boats: Engine) -> None:
    verdicts = _verdicts(
        boats, "Kingfisher sleeps a family easily: it has 3 bedrooms and 2 washrooms."
    )
    assert verdicts[("kingfisher", "bedrooms")] == "Verified"
    assert verdicts[("kingfisher", "washrooms")] == "Verified"


def test_a_wrong_count_with_its_noun_is_contradicted_under_its_own_column(boats: Engine) -> None:
    verdicts = _verdicts(boats, "Heron has 2 bedrooms and 1 washroom.")
    assert verdicts[("heron", "bedrooms")] == "Contradicted"
    assert verdicts[("heron", "washrooms")] == "Verified"
    assert all(a != "washrooms" or v == "Verified" for (_, a), v in verdicts.items())


def test_the_short_part_of_a_compound_counts_for_it(boats: Engine) -> None:
    verdicts = _verdicts(boats, "Kingfisher is a roomy 3-bed boat, and Heron has 2 beds.")
    assert verdicts[("kingfisher", "bedrooms")] == "Verified"
    assert verdicts[("heron", "bedrooms")] == "Contradicted"


def test_the_long_form_counts_for_a_short_column_noun(cottages: Engine) -> None:
    verdicts = _verdicts(cottages, "Orchard End is a 2 bedroom, 1 bathroom cottage.")
    assert verdicts[("orchard", "number_of_beds")] == "Verified"
    assert verdicts[("orchard", "number_of_baths")] == "Verified"


def test_the_article_is_no_letter_code(boats: Engine) -> None:
    verdicts = _verdicts(boats, "Kingfisher is a lovely boat with a wood stove.")
    assert ("kingfisher", "mooring_zone") not in verdicts
    said = _verdicts(boats, "Kingfisher moors in zone A.")
    assert said[("kingfisher", "mooring_zone")] == "Contradicted"
