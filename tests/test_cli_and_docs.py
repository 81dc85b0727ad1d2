"""The CLI's other commands, the case schema document, and the benchmark's report shape."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli

from replyguard.bench import format_table, measure
from replyguard.cases import case_json_schema, load_case

ROOT = Path(__file__).resolve().parents[1]


def test_schema_document_matches_the_model():
    on_disk = json.loads((ROOT / "docs" / "case.schema.json").read_text())
    assert on_disk == case_json_schema()
    assert json.loads(run_cli("schema").stdout) == on_disk


def test_bundled_example_is_a_valid_case():
    case = load_case(ROOT / "docs" / "examples" / "john_smith.json")
    assert case.kb.entities[0].id == "E42"


def test_rules_check_reports_overrides(tmp_path):
    (tmp_path / "x.metta").write_text("(= (config accept-threshold) 0.95)\n")
    run = run_cli("rules", "check", str(tmp_path))
    assert run.returncode == 0
    assert "1 shipped definitions overridden" in run.stdout


def test_benchmark_reports_every_measure():
    result = measure(size=60, replies=3)
    for key in (
        "p50_ms",
        "p95_ms",
        "build_seconds",
        "peak_rss_mb",
        "stage_p50_ms",
        "claims_per_reply",
        "replies_per_second",
    ):
        assert key in result
    assert result["claims_per_reply"] >= 3
    assert "p50 ms" in format_table([result])


def test_documented_example_rules_work():
    from replyguard.cases import case_kb
    from replyguard.engine import Engine
    from replyguard.rule_check import check_rules

    rules = ROOT / "docs" / "examples" / "rules"
    assert check_rules(rules).problems == []
    case = load_case(ROOT / "docs" / "examples" / "unknown_person.json")

    def nonexistent(engine: Engine) -> float:
        result = engine.check_case(case)
        return next(
            f.confidence
            for f in result.hallucination_flags
            if f.hallucination_type.value == "NonexistentEntity"
        )

    assert nonexistent(Engine(case_kb(case))) == 0.85
    assert nonexistent(Engine(case_kb(case), rules_dir=rules)) == 0.65
