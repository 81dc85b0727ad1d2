"""Class 3 of issue 11, words that are no names: a misspelt common word opening a sentence, a
hedge or "like" before a name, a saint's abbreviation inside a name; and an unknown name read
as a value that no claim took is still an unknown name. A garden centre's workshops."""

from __future__ import annotations

import copy

import pytest
from test_names_as_values import REFERENCE, WORKSHOPS, check, invented

from replyguard.engine import Engine
from replyguard.kb import kb_from_document


@pytest.fixture(scope="module")
def garden() -> Engine:
    kb = copy.deepcopy(WORKSHOPS)
    kb["entities"].append(
        {"id": "C1", "name": "Chapel of St. Brigid", "type": "Location", "attributes": {}}
    )
    return Engine(kb_from_document(kb))


@pytest.mark.parametrize("text", ["Wher shall I book you?", "Hsve a look at Winter Bulbs."])
def test_a_misspelt_common_word_opening_a_sentence_is_no_name(garden, text):
    assert invented(check(garden, text)) == []


def test_an_unknown_word_opening_a_sentence_is_still_a_name(garden):
    # no very common word is one letter from "Olwen"
    assert invented(check(garden, "Olwen leads Rose Pruning.")) == ["Olwen"]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Maybe Fern Gala or Rose Pruning?", ["Fern Gala"]),
        ("Which one? Like Bonsai Basics or Winter Bulbs?", []),
    ],
)
def test_a_hedge_or_like_before_a_name_is_not_part_of_it(garden, text, names):
    assert invented(check(garden, text)) == names


def test_a_saints_abbreviation_does_not_end_the_sentence_inside_a_name(garden):
    assert invented(check(garden, "You could visit the Chapel of St. Brigid today.")) == []


def test_a_name_read_as_a_value_that_no_claim_takes_is_an_unknown_name(garden):
    text = "I found one at Cactus House."
    lexed = garden.reader.lexer.lex(text, REFERENCE)
    assert [(lx.text, lx.cat, lx.attributes) for lx in lexed.lexemes if lx.name_value] == [
        ("Cactus House", "VAL", ("greenhouse",))
    ]
    assert invented(check(garden, text)) == ["Cactus House"]


def test_an_adjective_after_the_article_of_a_title_is_part_of_the_name(garden):
    # "Last" opens no name alone, but "The Last Harvest" is a workshop the KB lacks (its capital
    # "The" inside the sentence is the title's own)
    assert invented(check(garden, "Maybe The Last Harvest or Rose Pruning?")) == [
        "The Last Harvest"
    ]
    assert invented(check(garden, "Maybe the Last Harvest or Rose Pruning?")) == ["Last Harvest"]
