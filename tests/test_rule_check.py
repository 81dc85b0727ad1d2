"""`replyguard rules check`: syntax, unknown predicates and settings, seed coverage, grammars."""

from __future__ import annotations

from importlib.resources import files

import pytest
from conftest import REFERENCE

from replyguard.cli import main
from replyguard.engine import Engine
from replyguard.errors import RuleError
from replyguard.rule_check import check_rules


def test_shipped_rules_are_clean_and_cover_the_seed():
    report = check_rules()
    assert report.problems == []
    seed = (files("replyguard.metta") / "types.metta").read_text()
    assert seed.count("(: ") >= 27


def test_problems_are_named_with_file_and_line(tmp_path):
    (tmp_path / "bad.metta").write_text(
        "; typo in a predicate and a setting\n"
        "(= (recommendation $c)\n"
        "   (if (>= $c (config accept-treshold)) Accept (band-of $c)))\n"
    )
    (tmp_path / "types.metta").write_text("(: my-check (-> String Bool))\n")
    (tmp_path / "question.lark").write_text("start: clause\nclause: (\n")
    messages = [str(p) for p in check_rules(tmp_path).problems]
    bad = tmp_path / "bad.metta"
    assert f"{bad}:2: unknown setting (config accept-treshold)" in messages
    assert any(m.startswith(f"{bad}:2: unknown predicate 'band-of'") for m in messages)
    assert f"{tmp_path / 'types.metta'}:1: seed predicate 'my-check' has no definition" in messages
    assert any(m.startswith(f"{tmp_path / 'question.lark'}:2:") for m in messages)


def test_syntax_error_is_the_report(tmp_path, capsys):
    (tmp_path / "broken.metta").write_text("(= (config x) 1\n")
    assert main(["rules", "check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"{tmp_path / 'broken.metta'}:1: '(' is never closed" in out


def test_a_user_claim_grammar_replaces_the_shipped_one(seed_kb, tmp_path):
    shipped = (files("replyguard.grammars") / "claims.lark").read_text()
    # a grammar that never forms a value phrase: values become plain words
    grammar = shipped.replace("       | value_phrase\n", "").replace(
        "_word: W | COP | CUE | NEG | OF | POSS | PRON_POSS",
        "_word: W | COP | CUE | NEG | OF | POSS | PRON_POSS | VAL",
    )
    assert grammar != shipped
    (tmp_path / "claims.lark").write_text(grammar)
    assert check_rules(tmp_path).problems == []
    custom = Engine(seed_kb, rules_dir=tmp_path)
    result = custom.postprocess("John works in Marketing.", "", reference_time=REFERENCE)
    assert result.factual_validation.claims == []


def test_a_word_list_fact_with_the_wrong_shape_is_named_and_stops_the_engine(seed_kb, tmp_path):
    bad = tmp_path / "words.metta"
    bad.write_text('(verb-forms "go" "went" "gone")\n(superlative "nearest")\n')
    messages = [str(p) for p in check_rules(tmp_path).problems]
    assert messages == [f"{bad}:2: (superlative ...) takes 3 argument(s), not 1"]
    with pytest.raises(RuleError, match=r"words.metta:2: \(superlative \.\.\.\) takes 3"):
        Engine(seed_kb, rules_dir=tmp_path)
