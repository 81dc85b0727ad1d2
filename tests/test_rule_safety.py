"""Rules that would hang, crash or change the KB are rule errors with file and line (issue 10:
R11-R17, R24), and one engine shared between threads takes turns (issue 12, item 9)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import REFERENCE, SEED_KB, run_cli

from replyguard.engine import Engine
from replyguard.errors import RuleError
from replyguard.metta_host import Sym, call
from replyguard.rule_check import check_rules

REPRO = Path(__file__).parent / "data" / "repro"
EXAMPLE = Path(__file__).parents[1] / "docs" / "examples" / "john_smith.json"


def _rules(tmp_path: Path, text: str) -> Path:
    (tmp_path / "mine.metta").write_text(text, encoding="utf-8")
    return tmp_path / "mine.metta"


def test_a_rule_that_never_ends_stops_at_the_step_budget(seed_kb, tmp_path):
    path = _rules(
        tmp_path, "; counts up for ever\n(= (review-severity $n) (review-severity (+ $n 1)))\n"
    )
    engine = Engine(seed_kb, rules_dir=tmp_path)
    engine.host.step_limit = 5_000
    with pytest.raises(RuleError) as info:
        engine.host.value("review-severity", 4)
    message = str(info.value)
    assert "did not finish within 5,600 interpreter steps" in message  # + 200 x 3 atoms
    assert f"{path}:2" in message and "\n" not in message
    # the host goes on: the next call is answered as before
    assert engine.host.value("flag-for-review", 0.6) is True


def test_endless_recommendation_is_one_line_from_the_cli_and_found_by_rules_check():
    run = run_cli("check", str(EXAMPLE), "--rules", str(REPRO / "R11_rules_infinite"))
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "a.metta:1" in run.stderr
    problems = [str(p) for p in check_rules(REPRO / "R11_rules_infinite").problems]
    assert problems and all("a.metta:1: " in p and "did not finish" in p for p in problems)


@pytest.mark.parametrize("depth", [400, 20_000])
def test_deeply_nested_rule_files_are_refused_before_parsing(tmp_path, depth):
    _rules(tmp_path, "(= (foo) 1)\n(= (bar) " + "(" * depth + ")" * depth + ")\n")
    run = run_cli("rules", "check", str(tmp_path))
    assert run.returncode == 1, run.stderr[-500:]
    assert f"{tmp_path / 'mine.metta'}:2: brackets nested more than 200 deep" in run.stdout


def test_reproducer_rule_directories_are_rule_errors(seed_kb):
    expected = {
        "R12_rules_fact_with_space": "'add-atom' changes a space",
        "R13_rules_deep": "brackets nested more than 200 deep",
        "R14_rules_override_unknown": "unknown predicate 'no-such-fn'",
        "R15_rules_config_var": "must be a number, a boolean, a string or a symbol",
        "R16_rules_deep_1000": "brackets nested more than 200 deep",
        "R17_rules_wrong_kind": "'recommendation' gives Banana",
        "R24_rules_side_effect": "'add-atom' changes a space",
    }
    for name, message in expected.items():
        with pytest.raises(RuleError, match="a.metta:1: ") as info:
            Engine(seed_kb, rules_dir=REPRO / name)
        assert message in str(info.value), name
        problems = [str(p) for p in check_rules(REPRO / name).problems]
        assert any("a.metta:1: " in p and message in p for p in problems), (name, problems)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("(watched-spaces &dialogue Reply)\n", "a fact cannot hold a space"),
        (
            "(= (flag-for-review $c) (let $_ (remove-atom &kb (x)) True))\n",
            "'remove-atom' changes a space",
        ),
        ("(= (guidance-for-flag $c) (bind! &mine (new-space)))\n", "changes a space"),
        (
            "(= (review-severity $n) (severity-band-of $n))\n",
            "unknown predicate 'severity-band-of'",
        ),
        ("(= (config flag-threshold) $t)\n", "not a variable"),
        ("(= (config flag-threshold) (+ 0.5 0.2))\n", "not an expression"),
        ("(= (review-severity $n) (if (> $n 9) Critical Low))\n", "gives Critical"),
    ],
)
def test_rule_file_problems_at_engine_start_and_in_rules_check(seed_kb, tmp_path, text, message):
    path = _rules(tmp_path, "; a user's edit\n" + text)
    with pytest.raises(RuleError, match=f"{path}:2: ") as info:
        Engine(seed_kb, rules_dir=tmp_path)
    assert message in str(info.value)
    problems = [str(p) for p in check_rules(tmp_path).problems]
    assert any(p.startswith(f"{path}:2: ") and message in p for p in problems), problems


def test_a_new_kind_of_value_in_an_open_rule_is_allowed(seed_kb, tmp_path):
    # expected-answer gives kinds and calls: it is open to new answer types
    _rules(tmp_path, '(= (expected-answer Wh what "colour" $focus) Colour)\n')
    engine = Engine(seed_kb, rules_dir=tmp_path)
    results = engine.host.evaluate(call("expected-answer", Sym("Wh"), Sym("what"), "colour", None))
    assert "Colour" in [str(r) for r in results]


def test_checks_leave_the_kb_space_as_it_was(seed_kb, seed_history):
    engine = Engine(seed_kb)
    before = sorted(str(a) for a in engine.host.kb.get_atoms())
    asked = engine.host.query("&kb", "(attr E42 $a $v)")
    for reply in (
        "John's email is john.smith@company.com and he works in Finance.",
        "Sarah Johnson joined in 2019. Dr. Ortega leads Acme Corp.",
        "The Budget Review is on 2026-12-01 at 14:00 in Room 9.",
    ):
        engine.postprocess(reply, "Tell me about the team.", seed_history, reference_time=REFERENCE)
    assert sorted(str(a) for a in engine.host.kb.get_atoms()) == before
    assert engine.host.query("&kb", "(attr E42 $a $v)") == asked


_THREADS = textwrap.dedent(
    """
    import json, sys, threading
    from datetime import datetime
    from replyguard.engine import Engine
    from replyguard.models import KnowledgeBase

    engine = Engine(KnowledgeBase.model_validate(json.loads(sys.argv[1])))
    sys.setswitchinterval(1e-6)  # threads switch often, inside grounded operations too
    when = datetime(2026, 6, 1, 8, 30)
    replies = [
        "Emily Chen works in Finance.",
        "Sarah's email is sarah.j@company.com.",
        "Acme Corp is headquartered in Denver.",
        "John joined in 2020 and works in Engineering.",
    ]
    calls = [
        [f"{replies[(i + k) % 4]} Her desk is in Room {i}{k}." for k in range(10)]
        for i in range(4)
    ]
    found, errors = {}, []

    def work(i):
        try:
            for reply in calls[i]:
                found[reply] = engine.postprocess(reply, "Who?").confidence
            session = engine.session(f"s{i}")
            session.add_turn("user", "Who works in Finance?")
            session.check(calls[i][0], reference_time=when)
        except Exception as exc:
            errors.append(repr(exc))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    serial = {r: engine.postprocess(r, "Who?").confidence for r in found}
    print(json.dumps({"same": found == serial, "checked": len(found), "errors": errors}))
    """
)


def test_one_engine_shared_by_four_threads():
    run = subprocess.run(
        [sys.executable, "-c", _THREADS, json.dumps(SEED_KB)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-1500:]
    report = json.loads(run.stdout.splitlines()[-1])
    assert report == {"same": True, "checked": 40, "errors": []}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("(= (recommendation $c) (band-for $c))\n(= (band-for $c) Maybe)\n", "gave Maybe, not one"),
        ("(= (recommendation $c) (band-for $c))\n(= (band-for 0.5) Accept)\n", "no clause of"),
    ],
)
def test_the_trial_finds_what_only_running_the_rules_shows(seed_kb, tmp_path, text, message):
    path = _rules(tmp_path, "; computed, so no static check can tell\n" + text)
    engine = Engine(seed_kb, rules_dir=tmp_path)  # loads: every name is defined
    with pytest.raises(RuleError, match=f"{path}:2"):
        engine.postprocess("John works in Engineering.", "", reference_time=REFERENCE)
    problems = [str(p) for p in check_rules(tmp_path).problems]
    assert problems and all(p.startswith(f"{path}:2: ") and message in p for p in problems)
