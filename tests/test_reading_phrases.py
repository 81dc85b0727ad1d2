"""Class 7 of issue 11: values inside modifiers, appositions and lists; a qualified value named
by its head words; a sentence naming its entity only in the previous one."""

from __future__ import annotations

from reading_domain import domain, read  # noqa: F401 - the fixture

from replyguard.engine import Engine


def test_a_qualified_value_is_named_by_its_head_words(domain: Engine):  # noqa: F811
    assert read(domain, "Ingrid Valtonen is the head baker there.") == [
        ("Ingrid Valtonen", "role", "head baker", "Verified")
    ]
