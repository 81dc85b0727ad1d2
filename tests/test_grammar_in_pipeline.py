"""Spelling and grammar corrections in the pipeline, beside the factual ones (DESIGN §5.4)."""

from __future__ import annotations

from conftest import REFERENCE, check

from replyguard.engine import Engine
from replyguard.models import CorrectionType


def _by_type(result, kind):
    return [c for c in result.corrected.corrections if c.correction_type == kind]


def test_grammar_and_facts_in_one_offset_consistent_pass(engine):
    reply = "Sarah works in Finance. She joined in 2018 an she recieved an award"
    result = check(engine, reply, "Tell me about Sarah.")
    corrected = result.corrected
    assert corrected.corrected == (
        "Sarah works in Marketing. She joined in 2018 and she received an award."
    )
    assert [c.replacement for c in _by_type(result, CorrectionType.Factual)] == ["Marketing"]
    grammar = _by_type(result, CorrectionType.Grammar)
    assert {(c.original, c.replacement, c.tier) for c in grammar} >= {
        ("an", "and", "syntactic"),
        ("recieved", "received", "lexical"),
    }
    for c in corrected.corrections:
        assert reply[c.span.start : c.span.end] == c.original
        if c.replacement is not None:
            new = corrected.corrected[c.corrected_span.start : c.corrected_span.end]
            assert new == c.replacement


def test_names_values_and_typed_strings_are_never_rewritten(engine):
    reply = (
        "Acme's headquarters is in Boston; mail sarah.johnson@company.com or see "
        "https://acme.example/teh-docs about teh 42 items."
    )
    result = check(engine, reply, "Where is Acme?")
    grammar = _by_type(result, CorrectionType.Grammar)
    assert [(c.original, c.replacement) for c in grammar] == [("teh", "the")]
    assert "sarah.johnson@company.com" in result.corrected.corrected
    assert "https://acme.example/teh-docs" in result.corrected.corrected


def test_grammar_correction_can_be_switched_off_in_config(seed_kb):
    engine = Engine(seed_kb, config={"grammar-correction": False})
    result = engine.postprocess("Sarah recieved an award", "", reference_time=REFERENCE)
    assert result.corrected.corrected == "Sarah recieved an award"


def test_a_user_spelling_rule_without_python(seed_kb, tmp_path):
    (tmp_path / "house-style.metta").write_text(
        '(syntax-rule okay-spelling 0.1 (pattern (word "ok")) (replace 0 "okay") '
        '"house style spells it okay")\n'
    )
    engine = Engine(seed_kb, rules_dir=tmp_path)
    result = engine.postprocess("That is ok with John.", "", reference_time=REFERENCE)
    assert result.corrected.corrected == "That is okay with John."
