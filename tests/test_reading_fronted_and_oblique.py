"""Issue 11, classes 4 and 7: a value said where its clause is only the speaker's or hearer's
("At 9:30 pm, you are going to a Harbour Quartet concert") is the one named thing's; a value said
of a name several rows share, named only obliquely ("a performance on 10 December for Tidal
Choir"), is checked against those rows; and a place the user changed to since ("no, in the
lounge") is theirs when the reply restates it.

A diary, a choir's dates and a music player of our own; the verdicts were written before the
code was run.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from conftest import engine_of, verdicts

from replyguard.models import Turn

REFERENCE = datetime(2026, 12, 2, 12, 0)


DIARY = [
    {
        "id": "quartet",
        "name": "Harbour Quartet concert",
        "type": "Event",
        "attributes": {"event_date": "2026-12-05", "event_time": "19:30"},
    }
]


@pytest.mark.parametrize(
    ("reply", "claims", "kind"),
    [
        (
            "At 7:30 pm, you are going to a Harbour Quartet concert.",
            {"event_time=7:30 pm": "Verified"},
            "Accept",
        ),
        (
            "At 9:30 pm, you are going to a Harbour Quartet concert.",
            {"event_time=9:30 pm": "Contradicted"},
            "CorrectAndDeliver",
        ),
    ],
)
def test_a_fronted_time_is_the_named_things(reply: str, claims: dict, kind: str) -> None:
    result = engine_of(DIARY).postprocess(
        reply, "What's in my diary on Saturday?", reference_time=REFERENCE
    )
    assert verdicts(result) == claims
    assert result.recommendation.kind == kind


CHOIR = [
    {
        "id": f"choir_{day}",
        "name": "Tidal Choir",
        "type": "Event",
        "attributes": {"date": f"2026-12-{day:02d}", "venue": "St Anne's Hall"},
    }
    for day in (7, 9, 12)
]


def test_a_date_of_a_shared_name_said_obliquely_is_checked_against_its_rows() -> None:
    engine = engine_of(CHOIR)
    right = engine.postprocess(
        "There is a performance on 9 December for Tidal Choir.",
        "When can I see Tidal Choir?",
        reference_time=REFERENCE,
    )
    assert verdicts(right) == {"date=9 December": "Verified"}
    wrong = engine.postprocess(
        "There is a performance on 10 December for Tidal Choir.",
        "When can I see Tidal Choir?",
        reference_time=REFERENCE,
    )
    assert verdicts(wrong) == {"date=10 December": "Contradicted"}
    assert wrong.recommendation.kind != "Accept"


def test_a_place_the_user_changed_to_is_theirs() -> None:
    engine = engine_of(
        [
            {
                "id": "song",
                "name": "Northern Lights",
                "type": "Object",
                "attributes": {"artist": "Cara Voss", "album": "Polar"},
            }
        ]
    )
    turns = [
        Turn(id="T1", speaker="user", text="Please play Northern Lights in my Kitchen."),
        Turn(id="T2", speaker="assistant", text="You want Northern Lights in the Kitchen, right?"),
        Turn(id="T3", speaker="user", text="No, play it in my lounge."),
    ]
    result = engine.postprocess(
        "Sure, playing Northern Lights in your Lounge now.",
        turns[-1].text,
        turns,
        reference_time=REFERENCE,
    )
    assert [
        f.content for f in result.hallucination_flags if f.hallucination_type == "ContradictsPrior"
    ] == []


def test_a_place_sharing_only_its_kind_with_the_users_words_still_contradicts() -> None:
    engine = engine_of(
        [
            {
                "id": "cabs",
                "name": "City Cabs",
                "type": "Organization",
                "attributes": {"phone": "0113 496 0303"},
            }
        ]
    )
    turns = [
        Turn(
            id="T1", speaker="user", text="Find me a cab for 1 person, going to the Castle Museum."
        ),
        Turn(id="T2", speaker="assistant", text="Would you mind sharing a ride?"),
        Turn(
            id="T3",
            speaker="user",
            text="I don't mind sharing. I'd like to go to Harbour Noodle Bar.",
        ),
    ]
    result = engine.postprocess(
        "Please confirm: a cab for 1 person going to Quay Street Bar.",
        turns[-1].text,
        turns,
        reference_time=REFERENCE,
    )
    flagged = [
        f.content for f in result.hallucination_flags if f.hallucination_type == "ContradictsPrior"
    ]
    assert flagged == ["Quay Street Bar"]


SALONS = [
    {
        "id": "bloom",
        "name": "Bloom Hair Studio",
        "type": "Organization",
        "attributes": {"average_rating": 4.6, "chairs": 6, "phone_number": "408-555-0199"},
    },
    {
        "id": "crown",
        "name": "Crown Cuts",
        "type": "Organization",
        "attributes": {"average_rating": 4.2, "chairs": 4, "phone_number": "408-555-0142"},
    },
]
OFFERED = [
    Turn(id="T1", speaker="user", text="Find me a salon in San Jose."),
    Turn(id="T2", speaker="assistant", text="How about Bloom Hair Studio?"),
    Turn(id="T3", speaker="user", text="Is it any good?"),
]


@pytest.mark.parametrize(
    ("reply", "claims"),
    [
        ("It's rated 4.6 stars by its clients.", {"average_rating=4.6": "Verified"}),
        ("It's rated 4.9 stars by its clients.", {"average_rating=4.9": "Contradicted"}),
        ("It's very popular, with 12 stylists.", {}),
    ],
)
def test_a_bare_number_is_the_focus_entitys_only_where_words_name_its_column(
    reply: str, claims: dict
) -> None:
    result = engine_of(SALONS).postprocess(
        reply, OFFERED[-1].text, OFFERED, reference_time=REFERENCE
    )
    assert verdicts(result) == claims


@pytest.mark.parametrize(
    ("reply", "claims"),
    [
        (
            "Children on the Castle Walk need to be at least 12, and it lasts 90 minutes.",
            {"duration=90 minutes": "Verified"},
        ),
        (
            "Children on the Castle Walk need to be at least 12, and it lasts 2 hours.",
            {"duration=2 hours": "Contradicted"},
        ),
    ],
)
def test_a_pronoun_after_a_clause_break_points_back_to_the_name(reply: str, claims: dict) -> None:
    walks = [
        {
            "id": "castle",
            "name": "Castle Walk",
            "type": "Event",
            "attributes": {"duration": "90 minutes", "min_age": 12},
        },
        {
            "id": "river",
            "name": "River Walk",
            "type": "Event",
            "attributes": {"duration": "1 hour", "min_age": 8},
        },
    ]
    result = engine_of(walks).postprocess(
        reply, "Can my 13-year-old do the Castle Walk?", reference_time=REFERENCE
    )
    assert {c: s for c, s in verdicts(result).items() if c.startswith("duration")} == claims


@pytest.mark.parametrize(
    ("reply", "claims"),
    [
        (
            "Priya teaches the Wheel Taster on Sundays, and the class lasts 2 hours.",
            {"duration=2 hours": "Verified"},
        ),
        (
            "Priya teaches the Wheel Taster on Sundays, and the class lasts 3 hours.",
            {"duration=3 hours": "Contradicted"},
        ),
    ],
)
def test_the_class_is_the_thing_in_focus(reply: str, claims: dict) -> None:
    studio = [
        {
            "id": "wheel",
            "name": "Wheel Taster",
            "type": "Event",
            "attributes": {"day": "Sunday", "duration": "2 hours", "teacher": "Priya"},
        },
        {
            "id": "clay",
            "name": "Kids Clay Club",
            "type": "Event",
            "attributes": {"day": "Saturday", "duration": "1 hour", "teacher": "Sam"},
        },
    ]
    result = engine_of(studio).postprocess(
        reply, "Tell me about the Wheel Taster.", reference_time=REFERENCE
    )
    assert {c: s for c, s in verdicts(result).items() if c.startswith("duration")} == claims
