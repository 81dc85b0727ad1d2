"""Claim extraction: the claims grammar's constructions, on the seed KB."""

from __future__ import annotations

import pytest
from conftest import check

from replyguard.models import Turn


def _claims(engine, text, turns=None):
    result = check(engine, text, "", turns)
    return [(c.subject, c.predicate, c.object, c.negated) for c in result.factual_validation.claims]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "John Smith's email is john.smith@company.com.",
            [("John Smith", "email", "john.smith@company.com", False)],
        ),
        (
            "The email of Sarah Johnson is sarah.johnson@company.com.",
            [("Sarah Johnson", "email", "sarah.johnson@company.com", False)],
        ),
        (
            "The email for Sarah Johnson is sarah.j@company.com.",
            [("Sarah Johnson", "email", "sarah.j@company.com", False)],
        ),
        (
            "Sarah works in Marketing and joined in 2018.",
            [
                ("Sarah Johnson", "department", "Marketing", False),
                ("Sarah Johnson", "join_date", "2018", False),
            ],
        ),
        ("John is not in Marketing.", [("John Smith", "department", "Marketing", True)]),
        ("John doesn't work in Marketing.", [("John Smith", "department", "Marketing", True)]),
        (
            "Emily is a great colleague who works in Finance.",
            [("Emily Chen", "department", "Finance", False)],
        ),
        ("Her department is Finance.", []),
        ("The meeting with John is at 2pm.", []),
    ],
)
def test_constructions(engine, text, expected):
    assert _claims(engine, text) == expected


def test_pronoun_subject_and_possessive_determiner(engine):
    turns = [Turn(speaker="user", text="Tell me about Emily Chen.")]
    assert _claims(
        engine, "Her email is emily.chen@company.com and she works in Finance.", turns
    ) == [
        ("Emily Chen", "email", "emily.chen@company.com", False),
        ("Emily Chen", "department", "Finance", False),
    ]


def test_same_as_shares_values_in_history(engine):
    result = check(
        engine,
        "John joined in 2020.",
        "",
        [Turn(id="T1", speaker="user", text="I joined in 2020, same year as John.")],
    )
    validation = result.factual_validation.claim_validations[0]
    assert validation.status.kind == "Verified"
    assert [e.turn_id for e in validation.history_evidence] == ["T1"]


def test_negated_claim_verdicts(engine):
    result = check(engine, "John is not in Marketing. Sarah is not in Marketing.")
    assert [v.status.kind for v in result.factual_validation.claim_validations] == [
        "Verified",
        "Contradicted",
    ]
    assert result.corrected.corrected == result.original  # a negation is not rewritten


def test_unknown_value_after_a_cue_is_checked(engine):
    result = check(engine, "Emily works in Legal.")
    status = result.factual_validation.claim_validations[0].status
    assert (status.kind, status.kb_value) == ("Contradicted", "Finance")
    assert result.new_entities == []


def test_equivalent_words_in_values_verify():
    from conftest import REFERENCE

    from replyguard.engine import Engine
    from replyguard.models import KnowledgeBase

    kb = KnowledgeBase.model_validate(
        {
            "entities": [
                {"id": "R1", "name": "Coupa", "type": "Location",
                 "attributes": {"address": "394 Van Ness Ave", "distance": "6 miles"}},
                {"id": "R2", "name": "Philz", "type": "Location",
                 "attributes": {"address": "583 Alester Ave", "distance": "2 miles"}},
            ]
        }
    )  # fmt: skip
    engine = Engine(kb)
    ok = engine.postprocess(
        "Coupa is located at 394 Van Ness Avenue.", "", reference_time=REFERENCE
    )
    assert [v.status.kind for v in ok.factual_validation.claim_validations] == ["Verified"]
    wrong = engine.postprocess(
        "Coupa is located at 583 Alester Avenue.", "", reference_time=REFERENCE
    )
    assert [v.status.kind for v in wrong.factual_validation.claim_validations] == ["Contradicted"]


def test_values_after_avoid_are_not_claimed(engine):
    assert _claims(engine, "Setting a route to avoid Marketing.") == []
    assert _claims(engine, "Sarah works in Marketing.") == [
        ("Sarah Johnson", "department", "Marketing", False)
    ]


def test_report_noun_states_a_fact_of_the_entity_in_focus():
    from conftest import REFERENCE

    from replyguard.engine import Engine
    from replyguard.models import KnowledgeBase

    kb = KnowledgeBase.model_validate(
        {"entities": [{"id": "C1", "name": "Alhambra", "type": "Location",
                       "attributes": {"monday": "overcast", "tuesday": "rain"}}]}
    )  # fmt: skip
    engine = Engine(kb)

    def claims(text):
        result = engine.postprocess(text, "", reference_time=REFERENCE)  # a Monday
        return [(c.subject, c.predicate, c.object) for c in result.factual_validation.claims]

    assert claims("No rain in Alhambra today, the prediction is overcast.") == [
        ("Alhambra", "monday", "rain"),
        ("Alhambra", "monday", "overcast"),
    ]
    # a noun phrase that is not a report has a subject of its own
    assert claims("No rain in Alhambra today, the nearest mall is overcast.") == [
        ("Alhambra", "monday", "rain")
    ]


def test_same_as_without_an_earlier_clause_terminates(engine):
    # "same year as X" sharing the clause's own values once, not while they are being added
    claims = _claims(engine, "Sarah joined in 2018, the same year as Emily.")
    assert ("Emily Chen", "join_date", "2018", False) in claims
    assert len(claims) == len(set(claims)) <= 4
    assert _claims(engine, "Acme wrote Boston just like the same year as Emily.") is not None


def test_a_name_that_is_also_a_value_is_a_subject_where_one_stands():
    from replyguard.engine import Engine
    from replyguard.models import KnowledgeBase

    kb = KnowledgeBase.model_validate(
        {
            "entities": [
                {
                    "id": "A",
                    "name": "W. W. Denslow",
                    "attributes": {"illustrated": "The Wizard of Oz"},
                },
                {"id": "B", "name": "The Wizard of Oz", "attributes": {"release_year": "1900"}},
            ],
            "schema": {"release_year": {"value_type": "year", "cues": ["released"]}},
        }
    )
    engine = Engine(kb)
    # a book that is also the value of its illustrator's attribute, then a year before 1900
    old = check(engine, "Actually, The Wizard of Oz was released in 1865.", "")
    [(claim, validation)] = zip(
        old.factual_validation.claims, old.factual_validation.claim_validations, strict=True
    )
    assert (claim.subject, claim.predicate, claim.object) == (
        "The Wizard of Oz",
        "release_year",
        "1865",
    )
    assert validation.status.kind == "Contradicted"
    as_value = _claims(engine, "W. W. Denslow illustrated The Wizard of Oz.")
    assert as_value == [("W. W. Denslow", "illustrated", "The Wizard of Oz", False)]


def test_an_unknown_name_after_a_relation_is_its_value_and_a_new_name():
    from replyguard.engine import Engine
    from replyguard.models import HallucinationType, KnowledgeBase

    kb = KnowledgeBase.model_validate(
        {
            "entities": [
                {"id": "B", "name": "A Wind in the Door", "attributes": {"written_by": "M"}},
                {"id": "M", "name": "Madeleine L'Engle", "attributes": {"wrote": "B"}},
            ],
            "schema": {"written_by": {"value_type": "entity", "cues": ["written by"]}},
        }
    )
    result = check(Engine(kb), "No, A Wind in the Door was written by Stephen King.", "")
    [claim] = result.factual_validation.claims
    assert (claim.subject, claim.predicate, claim.object) == (
        "A Wind in the Door",
        "written_by",
        "Stephen King",
    )
    assert result.factual_validation.claim_validations[0].status.kind == "Contradicted"
    kinds = {(f.hallucination_type, f.content) for f in result.hallucination_flags}
    assert (HallucinationType.NonexistentEntity, "Stephen King") in kinds


def test_an_added_value_of_a_many_valued_attribute_is_not_contradicted():
    from replyguard.engine import Engine
    from replyguard.models import KnowledgeBase

    kb = KnowledgeBase.model_validate(
        {
            "entities": [
                {
                    "id": "N",
                    "name": "Christopher Nolan",
                    "attributes": {"directed": ["The Dark Knight", "Memento"]},
                },
            ],
            "schema": {
                "directed": {"value_type": "entity", "cardinality": "many", "cues": ["directed"]}
            },
        }
    )
    engine = Engine(kb)

    def status(text):
        result = check(engine, text, "")
        return [v.status.kind for v in result.factual_validation.claim_validations]

    assert status("Christopher Nolan directed Insomnia.") == ["Contradicted"]  # instead of his
    assert status("Christopher Nolan also directed Insomnia.") == ["Unverifiable"]  # one more
    assert status("Christopher Nolan also directed The Dark Knight.") == ["Verified"]
    # an open world lists only some of his films: an unlisted one is unknown, not wrong
    open_engine = Engine(kb.model_copy(update={"world": "open"}))
    result = check(open_engine, "Christopher Nolan directed Insomnia.", "")
    assert [v.status.kind for v in result.factual_validation.claim_validations] == ["Unverifiable"]
    result = check(open_engine, "Christopher Nolan did not direct Memento.", "")
    assert [v.status.kind for v in result.factual_validation.claim_validations] == ["Contradicted"]


def test_a_claim_about_a_subject_the_kb_lacks_is_checked_from_the_relations_other_end():
    from replyguard.engine import Engine
    from replyguard.kb import kb_from_triples

    engine = Engine(
        kb_from_triples(
            [["Tom Hanks", "wrote", "Larry Crowne"], ["Larry Crowne", "written_by", "Tom Hanks"]]
        )
    )
    result = check(engine, "Jim Carrey wrote Larry Crowne.", "")
    (claim,) = result.factual_validation.claims
    (validation,) = result.factual_validation.claim_validations
    assert (claim.subject, claim.predicate, claim.object) == (
        "Larry Crowne",
        "written_by",
        "Jim Carrey",
    )
    assert validation.status.kind == "Contradicted"
    assert result.corrected.corrected == "Tom Hanks wrote Larry Crowne."


def test_its_before_a_value_is_it_is_typed_without_its_apostrophe():
    from replyguard.engine import Engine
    from replyguard.kb import kb_from_rows

    engine = Engine(
        kb_from_rows(
            [{"poi": "Stanford Childrens Health", "distance": "5 miles"}], name_column="poi"
        )
    )
    result = check(engine, "There is Stanford Childrens Health and its 6 miles away.", "")
    assert [(c.subject, c.predicate, c.object) for c in result.factual_validation.claims] == [
        ("Stanford Childrens Health", "distance", "6 miles")
    ]
    assert result.factual_validation.claim_validations[0].status.kind == "Contradicted"


NAVIGATION = [
    {
        "poi": "Hotel Keen",
        "poi_type": "rest stop",
        "distance": "5 miles",
        "address": "578 Arbol Dr",
    },
    {
        "poi": "Four Seasons",
        "poi_type": "rest stop",
        "distance": "3 miles",
        "address": "465 Arcadia Pl",
    },
    {
        "poi": "Coupa",
        "poi_type": "coffee or tea place",
        "distance": "1 miles",
        "address": "394 Van Ness Ave",
    },
    {
        "poi": "Sigona Farmers Market",
        "poi_type": "grocery store",
        "distance": "2 miles",
        "address": "638 Amherst St",
    },
]


@pytest.fixture(scope="module")
def navigation():
    from replyguard.engine import Engine
    from replyguard.kb import kb_from_rows

    return Engine(kb_from_rows(NAVIGATION, name_column="poi"))


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        # the one entity a description fits, a superlative choosing among several
        ("The nearest rest stop is at 465 Arcadia Pl.", [("Four Seasons", "address", "Verified")]),
        (
            "The nearest rest stop is at 578 Arbol Dr.",
            [("Four Seasons", "address", "Contradicted")],
        ),
        ("The farthest rest stop is 3 miles away.", [("Hotel Keen", "distance", "Contradicted")]),
        ("The coffee or tea place is 4 miles away.", [("Coupa", "distance", "Contradicted")]),
        ("A rest stop is 4 miles away.", []),  # two fit, and nothing chooses
        # "the closest X is Y": X describes Y
        (
            "The closest coffee or tea place is Sigona Farmers Market.",
            [("Sigona Farmers Market", "poi_type", "Contradicted")],
        ),
    ],
)
def test_a_definite_description_names_the_entity_it_fits(navigation, reply, expected):
    result = check(navigation, reply, "")
    got = [
        (c.subject, c.predicate, v.status.kind)
        for c, v in zip(
            result.factual_validation.claims,
            result.factual_validation.claim_validations,
            strict=True,
        )
        if c.predicate != "poi_type" or "Sigona" in reply
    ]
    assert got == expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("The author of Scarlet is Marissa Meyer.", ("Marissa Meyer", False, "Verified")),
        ("Marissa Meyer is the author of Scarlet.", ("Marissa Meyer", False, "Verified")),
        (
            "The author of Scarlet is actually J.K. Rowling.",
            ("J.K. Rowling", False, "Contradicted"),
        ),
        ("J.K. Rowling is the author of Scarlet.", ("J.K. Rowling", False, "Contradicted")),
        ("Marissa Meyer is not the author of Scarlet.", ("Marissa Meyer", True, "Contradicted")),
    ],
)
def test_the_cue_of_a_name_is_that_names_attribute_whichever_side_it_stands(reply, expected):
    from replyguard.engine import Engine
    from replyguard.models import KnowledgeBase

    engine = Engine(
        KnowledgeBase.model_validate(
            {
                "entities": [
                    {"id": "S", "name": "Scarlet", "attributes": {"written_by": "Marissa Meyer"}},
                    {"id": "M", "name": "Marissa Meyer", "attributes": {"wrote": "Scarlet"}},
                ],
                "schema": {
                    "written_by": {"value_type": "entity", "cues": ["author"]},
                    "wrote": {"value_type": "entity"},
                },
            }
        )
    )
    result = check(engine, reply, "")
    (claim,) = result.factual_validation.claims
    (validation,) = result.factual_validation.claim_validations
    assert (claim.subject, claim.predicate) == ("Scarlet", "written_by")
    assert (claim.object, claim.negated, validation.status.kind) == expected


def test_a_pronoun_after_a_relation_is_its_value_and_never_the_subject_itself():
    from replyguard.engine import Engine
    from replyguard.kb import kb_from_triples
    from replyguard.models import Turn

    engine = Engine(
        kb_from_triples(
            [
                ["Maria Semple", "wrote", "Bernadette"],
                ["Bernadette", "written_by", "Maria Semple"],
            ]
        )
    )
    turns = [Turn(speaker="user", text="Do you like Bernadette?")]

    def claims(text):
        result = check(engine, text, "Do you like Bernadette?", turns)
        return [
            (c.subject, c.predicate, c.object, c.negated, v.status.kind, c.span.start)
            for c, v in zip(
                result.factual_validation.claims,
                result.factual_validation.claim_validations,
                strict=True,
            )
        ]

    assert claims("Maria Semple wrote it.") == [
        ("Maria Semple", "wrote", "Bernadette", False, "Verified", 19)
    ]
    assert claims("Maria Semple didn't write it.") == [
        ("Maria Semple", "wrote", "Bernadette", True, "Contradicted", 26)
    ]
