"""Verb cues in every form: the base form behind "-ed"/"-ing", and the forms of a base."""

from __future__ import annotations

import pytest
from conftest import REFERENCE

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase
from replyguard.spelling.lexicon import english
from replyguard.text.inflection import base_form, cue_variants, verb_forms

IRREGULAR = {form: ("write", "wrote", "written") for form in ("write", "wrote", "written")}


def _prior(word: str) -> float | None:
    lexicon = english()
    return lexicon.prior(word, 0.3) if word in lexicon else None


@pytest.mark.parametrize(
    ("word", "base"),
    [
        ("directed", "direct"),
        ("produced", "produce"),
        ("starred", "star"),
        ("starring", "star"),
        ("noted", "note"),  # not "not": "not" + "ed" would double its t
        ("added", "add"),
        ("used", "use"),
        ("edited", "edit"),
        ("tried", "try"),
        ("wrote", "write"),
        ("written", "write"),
    ],
)
def test_the_base_form_is_the_commonest_word_that_inflects_back(word, base):
    assert base_form(word, IRREGULAR, _prior) == base


def test_words_that_are_no_verb_form_have_no_base():
    assert base_form("genre", IRREGULAR, _prior) is None
    assert base_form("xqzed", IRREGULAR, _prior) is None


def test_forms_of_regular_and_irregular_verbs():
    assert verb_forms("star", IRREGULAR) == ["star", "stars", "starred", "starring"]
    assert verb_forms("write", IRREGULAR) == ["write", "writes", "wrote", "written", "writing"]
    assert verb_forms("watch", IRREGULAR)[:3] == ["watch", "watches", "watched"]


def test_a_passive_cue_keeps_its_one_form_and_prepositions_follow_the_verb():
    assert cue_variants("written by", IRREGULAR, _prior) == []
    assert cue_variants("starred in", IRREGULAR, _prior) == ["star in", "stars in", "starring in"]


FILMS = KnowledgeBase.model_validate(
    {
        "entities": [
            {"id": "newell", "name": "Mike Newell", "attributes": {"directed": "Pushing Tin"}},
            {"id": "tin", "name": "Pushing Tin", "attributes": {"directed_by": "Mike Newell"}},
        ],
        "schema": {
            "directed": {"value_type": "entity", "cardinality": "many"},
            "directed_by": {"value_type": "entity", "cardinality": "many"},
        },
    }
)


@pytest.fixture(scope="module")
def films() -> Engine:
    return Engine(FILMS)


@pytest.mark.parametrize(
    ("reply", "negated", "status"),
    [
        ("Mike Newell directed Pushing Tin.", False, "Verified"),
        ("Mike Newell directs Pushing Tin.", False, "Verified"),
        ("Mike Newell did not actually direct Pushing Tin.", True, "Contradicted"),
        ("Mike Newell didn't direct Pushing Tin.", True, "Contradicted"),
    ],
)
def test_a_relation_is_read_in_any_form_of_its_verb(films, reply, negated, status):
    result = films.postprocess(reply, "", [], reference_time=REFERENCE)
    (claim,) = result.factual_validation.claims
    (validation,) = result.factual_validation.claim_validations
    assert (claim.subject, claim.predicate, claim.object) == (
        "Mike Newell",
        "directed",
        "Pushing Tin",
    )
    assert claim.negated is negated
    assert validation.status.kind == status
