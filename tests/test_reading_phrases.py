"""Class 7 of issue 11: values inside modifiers, appositions and lists; a qualified value named
by its head words; a sentence naming its entity only in the previous one."""

from __future__ import annotations

from reading_domain import domain, read  # noqa: F401 - the fixture

from replyguard.engine import Engine


def test_a_qualified_value_is_named_by_its_head_words(domain: Engine):  # noqa: F811
    assert read(domain, "Ingrid Valtonen is the head baker there.") == [
        ("Ingrid Valtonen", "role", "head baker", "Verified")
    ]


def test_an_apposition_describes_the_name_before_it(domain: Engine):  # noqa: F811
    assert read(domain, "You could try Marrow and Vine, a cheap lebanese place in the west.") == [
        ("Marrow and Vine", "price_range", "cheap", "Contradicted"),
        ("Marrow and Vine", "food", "lebanese", "Verified"),
        ("Marrow and Vine", "area", "west", "Verified"),
    ]
    assert read(domain, "There is Marrow and Vine, the pastries place in the west.") == [
        ("Marrow and Vine", "food", "pastries", "Contradicted"),
        ("Marrow and Vine", "area", "west", "Verified"),
    ]


def test_a_sentence_about_the_entity_named_before(domain: Engine):  # noqa: F811
    assert read(domain, "I suggest Marrow and Vine. It sits in the south of the city.") == [
        ("Marrow and Vine", "area", "south", "Contradicted")
    ]
    assert read(domain, "Marrow and Vine is lovely. The postcode is EH3 9QN.") == [
        ("Marrow and Vine", "postcode", "EH3 9QN", "Verified")
    ]


def test_a_value_of_an_attribute_only_one_entity_holds(domain: Engine):  # noqa: F811
    # no subject: "the fare" is named, and only the Harbour Shuttle has a fare
    assert read(domain, "A single fare costs $5.50.") == [
        ("Harbour Shuttle", "fare", "$5.50", "Contradicted")
    ]
    # a sentence naming another entity is about that one, not the fare's holder
    assert read(domain, "Marrow and Vine is nice, and the fare there is $5.50.") == []
