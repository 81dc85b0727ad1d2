"""Class 12 of issue 11: titles, aliases and misspelt surnames name the person; a relation's
value is the entity named after its cue."""

from __future__ import annotations

import pytest
from reading_domain import DOMAIN_KB, domain, read  # noqa: F401 - the fixture

from replyguard.engine import Engine
from replyguard.kb import kb_from_document


@pytest.mark.parametrize(
    "who",
    ["Dr. Valtonen", "Ms Valtonen", "Valtonen", "Dr. Valtonan", "Ingrid Valtonan", "Ingrid"],
)
def test_a_title_or_a_misspelt_surname_is_the_person(domain: Engine, who):  # noqa: F811
    assert read(domain, f"{who} bakes at Quarry Lane Bakery.") == [
        ("Ingrid Valtonen", "works_at", "Quarry Lane Bakery", "Verified")
    ]
    assert read(domain, f"{who} works at Marrow and Vine.") == [
        ("Ingrid Valtonen", "works_at", "Marrow and Vine", "Contradicted")
    ]


def test_an_alias_with_a_title_keeps_the_claims_read():
    kb = {"entities": [dict(e) for e in DOMAIN_KB["entities"]]}
    kb["entities"][2] = {**kb["entities"][2], "aliases": ["Dr. Valtonen", "Dr Ingrid"]}
    engine = Engine(kb_from_document(kb))
    for who in ("Dr. Valtonen", "Valtonen", "Ingrid Valtonen"):
        assert read(engine, f"{who} works at Quarry Lane Bakery.") == [
            ("Ingrid Valtonen", "works_at", "Quarry Lane Bakery", "Verified")
        ]
