"""Bad input gets one line naming the file, field or line, a non-zero exit, and no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SEED_KB, run_cli

from replyguard.cases import load_case
from replyguard.engine import MAX_RESPONSE_CHARS, Engine
from replyguard.errors import InputError, RuleError
from replyguard.kb import load_kb

GOOD_CASE = {
    "kb": SEED_KB,
    "query": "What is John's email?",
    "response": "John's email is john.smith@company.com.",
    "dialogue": [{"speaker": "user", "text": "Hi"}],
}


def _write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"entities": [', "line 1: invalid JSON"),
        ('{"entities": [{"name": "A", "attributes": {}}]}', "entities.0.id: Field required"),
        (
            # beside `attributes`, a field of its own is a typo, not a fact (a flat entity's
            # fields are its facts: tests/test_kb_as_written.py)
            '{"entities": [{"id": "E1", "name": "A", "colour": "red", "attributes": {}}]}',
            "entities.0.colour: unknown field",
        ),
        (
            '{"entities": [{"id": "E1", "name": "A"}, {"id": "E1", "name": "B"}]}',
            "duplicate entity",
        ),
        ('{"entities": [{"id": "has space", "name": "A"}]}', "entities.0.id"),
        ('{"entities": [], "schema": {"x": {"value_type": "colour"}}}', "schema.x.value_type"),
        (
            '{"entities": [{"id": "E1", "name": "A", "attributes": {"age": {"value": 3, '
            '"confidence": 7}}}]}',
            "entities.0.attributes.age.confidence",
        ),
    ],
)
def test_bad_kb_documents(tmp_path, content, message):
    path = _write(tmp_path, "kb.json", content)
    with pytest.raises(InputError, match="kb.json") as info:
        load_kb(path)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_bad_tables_and_triples(tmp_path):
    with pytest.raises(InputError, match="line 3: more cells than header"):
        load_kb(_write(tmp_path, "kb.csv", "name,dept\nJohn,Eng\nSue,Ops,extra\n"))
    with pytest.raises(InputError, match="line 2: expected subject<TAB>predicate<TAB>object"):
        load_kb(_write(tmp_path, "kb.tsv", "John\tdept\tEng\nbroken line\n"))
    with pytest.raises(InputError, match="not found"):
        load_kb(tmp_path / "missing.json")
    with pytest.raises(InputError, match="cannot read"):
        load_kb(_write(tmp_path, "latin.json", b'{"entities": ["\xff"]}'))


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ({**GOOD_CASE, "response": 42}, "response: Input should be a valid string"),
        ({k: v for k, v in GOOD_CASE.items() if k != "response"}, "response: Field required"),
        ({**GOOD_CASE, "dialogue": [{"speaker": "user"}]}, "dialogue.turns.0.text: Field required"),
        ({**GOOD_CASE, "dialogue": "hello"}, "dialogue"),
        ({**GOOD_CASE, "reference_time": "yesterday"}, "reference_time"),
        ({**GOOD_CASE, "kb": "nowhere.json"}, "nowhere.json: KB file not found"),
        ({**GOOD_CASE, "extra": 1}, "extra: unknown field"),
        ({**GOOD_CASE, "passages": "one text"}, "passages: Input should be a valid list"),
        ({**GOOD_CASE, "passages": ["ok", 3]}, "passages.1: Input should be a valid string"),
    ],
)
def test_bad_case_files(tmp_path, case, message):
    path = _write(tmp_path, "case.json", json.dumps(case))
    with pytest.raises(InputError) as info:
        load_case(path)
    assert message in str(info.value)


def test_case_with_kb_path_relative_to_case(tmp_path):
    _write(tmp_path, "kb.json", json.dumps(SEED_KB))
    case = load_case(_write(tmp_path, "case.json", json.dumps({**GOOD_CASE, "kb": "kb.json"})))
    assert case.kb.entities[0].name == "John Smith"


@pytest.mark.parametrize(
    ("rule_text", "message"),
    [
        ("(= (config accept-threshold) 0.8\n", "bad.metta:1: '(' is never closed"),
        ('; fine\n(= (f $x) $x)\n(= (g "open) 1)\n', "bad.metta:3: string literal runs past"),
        ("(a b))\n", "bad.metta:1: unexpected ')'"),
        ("(= (f) 1)\n!(f)\n", "bad.metta:2: rule files hold definitions"),
    ],
)
def test_bad_rule_files(seed_kb, tmp_path, rule_text, message):
    _write(tmp_path, "bad.metta", rule_text)
    with pytest.raises(RuleError) as info:
        Engine(seed_kb, rules_dir=tmp_path)
    assert message in str(info.value)


def test_unreadable_rule_file_and_missing_directory(seed_kb, tmp_path):
    _write(tmp_path, "binary.metta", b"\xff\xfe(= (f) 1)")
    with pytest.raises(RuleError, match="binary.metta: cannot read rule file"):
        Engine(seed_kb, rules_dir=tmp_path)
    with pytest.raises(RuleError, match="rules directory not found"):
        Engine(seed_kb, rules_dir=tmp_path / "nope")


def test_empty_and_enormous_responses(engine):
    with pytest.raises(InputError, match="response: empty"):
        engine.postprocess("   ", "Hi")
    with pytest.raises(InputError, match="more than the limit"):
        engine.postprocess("word " * (MAX_RESPONSE_CHARS // 4), "Hi")
    with pytest.raises(InputError, match="response: expected text, got bytes"):
        engine.postprocess(b"bytes", "Hi")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="dialogue: expected"):
        engine.postprocess("Fine.", "Hi", dialogue="not turns")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "John 👋 works in Engineering 🚀.",
        "جون يعمل في الهندسة. John works in Engineering.",
        "Null\x00byte in John's email john.smith@company.com.",
        "ＪＯＨＮ works in Ｅｎｇｉｎｅｅｒｉｎｇ.",
        "\u200b\u200d\ufeff",
        '(((((( )))))) ;;; """ $x &kb !(f)',
    ],
)
def test_odd_unicode_gets_a_defined_result(engine, text):
    result = engine.postprocess(text, "Where does John work?")
    assert result.original == text
    assert 0.0 <= result.confidence <= 1.0


def test_cli_reports_one_line_and_exits_non_zero(tmp_path):
    case = _write(tmp_path, "case.json", json.dumps({**GOOD_CASE, "response": ""}))
    run = run_cli("check", str(case))
    assert run.returncode == 2
    assert run.stderr.strip().count("\n") == 0
    assert "Traceback" not in run.stderr
    assert "response: empty" in run.stderr
    rules = _write(tmp_path, "rules/broken.metta", "(= (config x) 1")
    good = _write(tmp_path, "good.json", json.dumps(GOOD_CASE))
    run = run_cli("check", str(good), "--rules", str(rules.parent))
    assert run.returncode == 2 and "broken.metta:1:" in run.stderr
    assert "Traceback" not in run.stderr


def test_cli_check_prints_report_and_json(tmp_path):
    good = _write(tmp_path, "good.json", json.dumps(GOOD_CASE))
    report = run_cli("check", str(good), "--color", "never", "--explain")
    assert report.returncode == 0, report.stderr
    assert "Recommendation: Accept" in report.stdout
    assert "rule: (claim-status" in report.stdout
    as_json = run_cli("check", str(good), "--json")
    assert json.loads(as_json.stdout)["recommendation"]["kind"] == "Accept"
