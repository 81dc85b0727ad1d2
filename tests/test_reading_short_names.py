"""Things of one kind named short, as replies name them: the word that tells apart names that
end alike ("juniors" for "Junior Swim" beside "Adult Swim"), and a name's own last word after
the/our ("the session" of the one session)."""

from __future__ import annotations

import pytest
from reading_domain import read  # noqa: I001

from replyguard.engine import Engine
from replyguard.kb import kb_from_csv

# A leisure pool: three swim sessions priced by who swims, one class, a lifeguard.
POOL = "\n".join(
    [
        "name,type,price,length,role",
        "Adult Swim,Object,£5.10,,",
        "Junior Swim,Object,£3.20,,",
        "Senior Swim,Object,£4.00,,",
        "Aqua Aerobics Session,Event,£6.50,45 minutes,",
        "Rhona Dale,Person,,,Head Lifeguard",
    ]
)


@pytest.fixture(scope="module")
def pool() -> Engine:
    return Engine(kb_from_csv(POOL, origin="pool.csv"))


def test_the_word_that_tells_siblings_apart_names_each(pool: Engine):
    assert read(pool, "An adult swim is £5.10, and juniors are £3.20.") == [
        ("Adult Swim", "price", "£5.10", "Verified"),
        ("Junior Swim", "price", "£3.20", "Verified"),
    ]
    assert read(pool, "Adult swims are £5.10 and seniors are £4.50.")[1] == (
        "Senior Swim",
        "price",
        "£4.50",
        "Contradicted",
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "The session lasts 45 minutes.",
            ("Aqua Aerobics Session", "length", "45 minutes", "Verified"),
        ),
        (
            "our session lasts an hour.",
            ("Aqua Aerobics Session", "length", "an hour", "Contradicted"),
        ),
    ],
)
def test_a_last_word_no_other_name_ends_with_names_it_after_the(pool: Engine, text, expected):
    assert read(pool, text) == [expected]


def test_a_word_of_a_kb_value_names_nothing():
    # "session" is also a word of a role here: "our session leader" is the role, not the session
    staffed = Engine(kb_from_csv(POOL.replace("Head Lifeguard", "Session Leader"), origin="p.csv"))
    assert read(staffed, "Rhona Dale is our session leader.") == [
        ("Rhona Dale", "role", "session leader", "Verified")
    ]
    assert read(staffed, "The session lasts 45 minutes.") == []
