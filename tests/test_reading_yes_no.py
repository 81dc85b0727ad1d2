"""Class 6 of issue 11: yes/no attributes read from their names' words, negation included."""

from __future__ import annotations

import pytest
from reading_domain import REFERENCE, domain, read  # noqa: F401 - the fixture

from replyguard.engine import Engine
from replyguard.kb import kb_from_document


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Marrow and Vine welcomes guests with wifi.", ("wifi", "True", "Contradicted")),
        ("There is no wifi at Marrow and Vine.", ("wifi", "False", "Verified")),
        ("Quarry Lane Bakery lacks wifi.", ("wifi", "False", "Contradicted")),
        ("Your dogs are allowed in Marrow and Vine.", ("dogs_allowed", "True", "Verified")),
        ("Dogs aren't allowed in Quarry Lane Bakery.", ("dogs_allowed", "False", "Verified")),
        ("The Harbour Shuttle has live music on board.", ("live_music", "yes", "Contradicted")),
    ],
)
def test_a_yes_no_attribute_is_read_with_its_polarity(domain: Engine, text, expected):  # noqa: F811
    assert [c[1:] for c in read(domain, text)] == [expected]


def test_each_clause_keeps_its_own_polarity_and_subject(domain: Engine):  # noqa: F811
    assert read(domain, "Quarry Lane Bakery has wifi, but dogs are not allowed there.") == [
        ("Quarry Lane Bakery", "wifi", "True", "Verified"),
        ("Quarry Lane Bakery", "dogs_allowed", "False", "Verified"),
    ]


def test_a_pronoun_or_the_entity_in_focus_is_the_subject(domain: Engine):  # noqa: F811
    assert read(domain, "Yes, it has wifi.", before="What about Marrow and Vine?") == [
        ("Marrow and Vine", "wifi", "True", "Contradicted")
    ]


def test_a_question_or_an_answering_no_states_nothing_wrong(domain: Engine):  # noqa: F811
    assert read(domain, "Does Marrow and Vine have wifi?") == []
    assert read(domain, "No, Quarry Lane Bakery has wifi.") == [
        ("Quarry Lane Bakery", "wifi", "True", "Verified")
    ]


def test_a_wrong_yes_no_is_annotated_not_rewritten(domain: Engine):  # noqa: F811
    result = domain.postprocess("Marrow and Vine has wifi.", "", [], reference_time=REFERENCE)
    assert result.factual_validation.claim_validations[0].status.kind == "Contradicted"
    assert result.corrected.corrected == result.original  # "has False" would be no fix


def test_yes_no_values_are_not_words_of_the_reply(domain: Engine):  # noqa: F811
    # "true" in a reply is not the KB value True of some attribute
    assert read(domain, "That is true, Marrow and Vine is in the west.") == [
        ("Marrow and Vine", "area", "west", "Verified")
    ]


def test_a_negative_prefix_denies_and_a_hyphen_is_no_word_break():
    kb = {
        "entities": [
            {
                "id": "F1",
                "name": "Flight 812",
                "type": "Object",
                "attributes": {"refundable": "False", "is_redeye": "True", "furnished": "False"},
            }
        ]
    }
    engine = Engine(kb_from_document(kb))
    assert [c[1:] for c in read(engine, "Flight 812 is a non-refundable red-eye.")] == [
        ("refundable", "False", "Verified"),
        ("is_redeye", "True", "Verified"),
    ]
    assert [c[1:] for c in read(engine, "Flight 812 is refundable.")] == [
        ("refundable", "True", "Contradicted")
    ]
