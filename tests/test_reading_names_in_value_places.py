"""Issue 11, names where a value stands, in a domain of my own (a community radio station's
shows): an unknown name after a cue, after "by", or opened by a capitalised "No"/"It" is a
claim on the attribute it fills, not an invented entity; a name-valued attribute stays one when
one of its values is written otherwise; an address with commas is no name; a relative clause
and "is also a" say their value of the name before them. Verdicts written before the run."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.kb import kb_from_document
from replyguard.models import HallucinationType

REFERENCE = datetime(2026, 12, 3, 9, 0)


def show(ident: str, name: str, **attributes: str) -> dict:
    return {"id": ident, "name": name, "type": "Event", "attributes": attributes}


SHOWS = {
    "entities": [
        show(
            "S1",
            "Night Owls",
            studio="Harbour Room",
            presenter="Ana Silva",
            series="Quiet Hours",
            genre="Folk",
            studio_address="Unit 4, Mill Lane, Leeds",
        ),
        show(
            "S2",
            "Morning Brew",
            studio="Loft Two",
            presenter="Tomas Reyes",
            series="Early Risers",
            genre="Jazz",
            studio_address="12 Canal Street, Leeds",
        ),
        show(
            "S3",
            "Drive Time",
            studio="Garden Studio",
            presenter="Priya Nair",
            series="Open Road",
            genre="Soul",
            studio_address="Unit 4, Mill Lane, Leeds",
        ),
        show(
            "S4",
            "Late Shift",
            studio="Cellar Bar",
            presenter="Owen Price",
            series="After Dark",
            genre="Blues",
            studio_address="3 Dock Road, Leeds",
        ),
        show(
            "S5",
            "Sunday Roast",
            studio="24/7 Booth",  # one studio not written as a name
            presenter="Lena Fox",
            series="Weekend Rituals",
            genre="Folk",
            studio_address="12 Canal Street, Leeds",
        ),
    ]
}


@pytest.fixture(scope="module")
def radio() -> Engine:
    return Engine(kb_from_document(SHOWS))


def check(engine: Engine, text: str, query: str = ""):
    return engine.postprocess(text, query, [], reference_time=REFERENCE)


def claims(result) -> set[tuple[str, str, str, str]]:
    fv = result.factual_validation
    return {
        (c.subject, c.predicate, c.object, v.status.kind)
        for c, v in zip(fv.claims, fv.claim_validations, strict=True)
    }


def invented(result) -> list[str]:
    return [
        f.content
        for f in result.hallucination_flags
        if f.hallucination_type == HallucinationType.NonexistentEntity
    ]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        # a studio the KB lacks, after "from the" (a room, as a studio is), though one studio
        # is "24/7 Booth"
        ("Night Owls goes out from the Riverside Room.", ("Night Owls", "studio")),
        # after a cue naming the attribute
        ("Catch Morning Brew, from the series Sunrise Sessions.", ("Morning Brew", "series")),
        # "by": of studio, presenter and series, the one named for who does it
        ("Drive Time is hosted by Marco Bell.", ("Drive Time", "presenter")),
        # a capitalised "No" inside the sentence opens the name
        ("Late Shift comes from the series No Sleep Tonight.", ("Late Shift", "series")),
        ("Morning Brew is from the series It Never Sleeps.", ("Morning Brew", "series")),
    ],
)
def test_an_unknown_name_in_a_value_place_is_a_wrong_value(radio, reply, expected):
    result = check(radio, reply)
    contradicted = {(s, p) for s, p, _, status in claims(result) if status == "Contradicted"}
    assert expected in contradicted
    assert invented(result) == []


STUDIOS = {
    "entities": [
        show("T1", "Night Owls", studio="Harbour Room", studio_address="Unit 4, Mill Lane, Leeds"),
        show("T2", "Morning Brew", studio="Loft Two", studio_address="Canal Street, Leeds"),
    ]
}


def test_an_address_with_commas_is_not_a_name_attribute():
    # written like names but for their commas, the addresses hold no names: the studio is the
    # one attribute an unknown hall fills
    result = check(Engine(kb_from_document(STUDIOS)), "Night Owls is recorded at Riverside Hall.")
    assert ("Night Owls", "studio", "Riverside Hall", "Contradicted") in claims(result)


@pytest.mark.parametrize(
    "reply",
    [
        "You could try Night Owls, which is a jazz show.",
        "Night Owls is also a jazz show.",
        "There is also a jazz show called Night Owls.",
        # after a naming word the class is the name's, not the clause subject's
        "Leeds has a jazz show named Night Owls.",
    ],
)
def test_a_class_said_of_the_one_show_named_is_checked(radio, reply):
    result = check(radio, reply)
    assert ("Night Owls", "genre", "jazz", "Contradicted") in claims(result)


@pytest.mark.parametrize(
    "reply",
    [
        "You could try Night Owls, which is a folk show.",
        "Night Owls is also a folk show, hosted by Ana Silva.",
        "There is also a folk show called Night Owls.",
        "Leeds has a folk show named Night Owls.",
        "Drive Time is hosted by Priya Nair from the Garden Studio.",
        "Late Shift comes from the series After Dark.",
    ],
)
def test_the_same_readings_of_true_replies_verify(radio, reply):
    result = check(radio, reply)
    statuses = {status for *_, status in claims(result)}
    assert statuses == {"Verified"}
    assert invented(result) == []


def test_a_class_answered_as_a_name_to_a_question_for_it(radio):
    result = check(radio, "It's Bluegrass.", "What genre is Late Shift?")
    assert ("Late Shift", "genre", "Bluegrass", "Contradicted") in claims(result)
    assert invented(result) == []


def test_a_name_said_as_what_a_show_is_without_such_a_question_is_no_class(radio):
    # "Another show is X" names a show, it does not give a genre
    result = check(radio, "Another show is Bluegrass Nights.", "What else is on?")
    assert not any(p == "genre" for _, p, _, _ in claims(result))
