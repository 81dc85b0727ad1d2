"""Class 1 of issue 11: a cue phrase is resolved against the KB's own schema."""

from __future__ import annotations

from reading_domain import domain, read  # noqa: F401 - the fixture

from replyguard.engine import Engine


def test_a_place_cue_reads_the_attribute_the_kb_has(domain: Engine):  # noqa: F811
    # "located in" names `location` in the shipped lexicon; this KB says where by `area`
    assert read(domain, "Marrow and Vine is located in the west of the city.") == [
        ("Marrow and Vine", "area", "west", "Verified")
    ]
    assert read(domain, "Quarry Lane Bakery is based in the west.") == [
        ("Quarry Lane Bakery", "area", "west", "Contradicted")
    ]


def test_a_cue_for_an_attribute_nobody_has_still_flags_an_unknown_value(domain: Engine):  # noqa: F811
    claims = read(domain, "Quarry Lane Bakery was founded in 1962.")
    assert [(c[1], c[3]) for c in claims] == [("founded", "Unverifiable")]
