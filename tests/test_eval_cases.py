"""`replyguard eval cases`: a user's labelled cases read, validated, checked and scored."""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from replyguard import cli
from replyguard.errors import InputError
from replyguard.evaluation.expect import Expect
from replyguard.evaluation.user_cases import (
    _same_value,
    check_all,
    load_labelled,
    summarise,
)
from replyguard.kb import load_kb

DATA = Path(__file__).parent / "data" / "eval_cases"
SUITES = Path(__file__).parent.parent / "docs" / "suites"
WHEN = datetime(2026, 12, 1, 10, 0)


def _cases_file(tmp_path: Path, *lines: dict) -> Path:
    """A cases file beside a copy of the fixture KB (cases name it as "kb.json")."""
    shutil.copy(DATA / "kb.json", tmp_path / "kb.json")
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _line(response: str, expect: dict, **extra: object) -> dict:
    return {
        "kb": "kb.json",
        "query": "How much is Study Room A?",
        "response": response,
        "reference_time": "2026-12-01T10:00:00",
        "expect": expect,
        **extra,
    }


# --------------------------------------------------------------------------- reading


def test_labels_are_kept_apart_from_the_case_and_kb_paths_resolve_beside_the_file():
    items = load_labelled(DATA / "cases.jsonl")
    assert [i.case_id for i in items] == ["lib-seats", "lib-rate", "cases:4"]  # blank line 2
    assert [i.line for i in items] == [1, 3, 4]
    assert items[0].metadata == {"author": "fixture"}
    assert items[0].expect.recommendation == ["Accept", "AcceptWithFlags"]
    assert items[1].expect.contradicted[0].corrections == ["£5"]
    assert items[2].expect == Expect()
    assert {e.name for e in items[0].case.kb.entities} >= {"Study Room A", "Storytime"}


def test_kb_option_replaces_every_case_kb(tmp_path):
    csv = tmp_path / "other.csv"
    csv.write_text("name,hourly_rate\nStudy Room A,£9\n", encoding="utf-8")
    items = load_labelled(DATA / "cases.jsonl", kb=str(csv))
    assert all([e.name for e in i.case.kb.entities] == ["Study Room A"] for i in items)


def test_names_of_verdicts_and_flags_are_read_in_any_case():
    expect = Expect.model_validate(
        {"recommendation": "correctanddeliver", "flags": ["nonexistententity"]}
    )
    assert expect.recommendation == ["CorrectAndDeliver"]
    assert expect.flags == ["NonexistentEntity"]
    assert expect.band == "CorrectAndDeliver"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (_line("It is £8.", {"recomendation": "Accept"}), "line 1: expect.recomendation: unknown"),
        (_line("It is £8.", {"recommendation": "Approve"}), "unknown recommendation 'Approve'"),
        (_line("It is £8.", {"flags": ["MadeUp"]}), "expect.flags.0: "),
        (
            _line("It is £8.", {"contradicted": [{"value": "£7", "correct": "£5"}]}),
            "expect.contradicted.0.value: '£7' does not occur in the response",
        ),
        (
            _line("It is £8.", {"flags": ["TopicDrift"], "no_flags": ["topicdrift"]}),
            "TopicDrift in both flags and no_flags",
        ),
        (_line("It is £8.", {}, metadata=["a"]), "line 1: metadata: "),
        (_line("It is £8.", {}, colour="red"), "line 1: colour: unknown field"),
        ({**_line("It is £8.", {}), "query": 3}, "line 1: query: "),
    ],
)
def test_a_bad_label_is_one_line_naming_file_line_and_field(tmp_path, line, message):
    path = _cases_file(tmp_path, line)
    with pytest.raises(InputError, match="cases.jsonl: ") as caught:
        load_labelled(path)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_an_unknown_flag_lists_the_accepted_names():
    with pytest.raises(ValueError, match="NonexistentEntity.*QUDNotAddressed"):
        Expect.model_validate({"no_flags": ["Invented"]})


def test_a_repeated_id_and_a_broken_line_name_their_lines(tmp_path):
    twice = _cases_file(tmp_path, _line("It is £5.", {}, id="x"), _line("It is £5.", {}, id="x"))
    with pytest.raises(InputError, match=r"line 2: id: 'x' already used on line 1"):
        load_labelled(twice)
    twice.write_text('{"kb": "kb.json",\n', encoding="utf-8")
    with pytest.raises(InputError, match="line 1: invalid JSON"):
        load_labelled(twice)


def test_the_cli_reports_a_bad_file_in_one_line_with_exit_2(tmp_path, capsys):
    path = _cases_file(tmp_path, _line("It is £8.", {"recommendation": "Maybe"}))
    assert cli.main(["eval", "cases", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("replyguard: error: ") and "line 1: expect.recommendation" in err
    assert "\n" not in err
    assert cli.main(["eval", "cases"]) == 2
    assert cli.main(["eval", "kvret", str(path)]) == 2
    assert "only for 'eval cases'" in capsys.readouterr().err
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "broken.metta").write_text("(= (config x) 1\n", encoding="utf-8")
    good = str(DATA / "cases.jsonl")
    assert cli.main(["eval", "cases", good, "--rules", str(rules)]) == 2
    assert "broken.metta:1:" in capsys.readouterr().err


# --------------------------------------------------------------------------- scoring


def test_correction_matching_compares_letters_and_digits_never_inside_a_number():
    assert _same_value("9:30pm", "9:30 pm")
    assert _same_value("30 minutes", "30 minutes before departure")
    assert not _same_value("3", "13:20")
    assert not _same_value("£25", "£250")
    assert not _same_value("", "£5")


def test_a_correction_written_in_the_replys_own_format_is_the_right_value():
    assert _same_value("6:15am", "06:15")
    assert _same_value("7pm", "7:00 pm")
    assert not _same_value("7am", "7:00 pm")
    assert _same_value("€40", "40 euros")
    assert _same_value("8 December", "2026-12-08")
    assert not _same_value("18 December", "2026-12-08")


@pytest.fixture(scope="module")
def fixture_run():
    items = load_labelled(DATA / "cases.jsonl")
    return check_all(items, None, WHEN)


def test_a_wrong_value_is_scored_found_and_corrected_with_its_required_flag(fixture_run):
    rate = fixture_run[1]
    assert rate.found == [True]
    assert rate.corrected == [True]
    assert rate.raised == [True]
    assert rate.verdict_ok is None  # no recommendation was asked for
    summary = summarise(fixture_run)
    assert summary["contradictions_found"] == {"right": 1, "of": 1, "rate": 1.0}
    assert summary["corrected_right"]["right"] == 1


@pytest.mark.parametrize(
    ("correct", "right", "problem"),
    [
        (["£6", "£5"], True, None),  # any listed spelling of the right value counts
        ("£6", False, "'£8' corrected to '£5', expected '£6'"),
    ],
)
def test_a_correction_is_right_only_when_it_puts_an_accepted_value_in_place(
    tmp_path, correct, right, problem
):
    line = _line(
        "Study Room A costs £8 an hour.", {"contradicted": [{"value": "£8", "correct": correct}]}
    )
    scored = check_all(load_labelled(_cases_file(tmp_path, line)), None, WHEN)[0]
    assert scored.found == [True]
    assert scored.corrected == [right]
    assert scored.problems == ([problem] if problem else [])


def test_a_case_without_labels_is_checked_and_counts_as_met(fixture_run):
    unlabelled = fixture_run[2]
    assert unlabelled.result is not None and unlabelled.problems == []


def test_misses_are_named_and_filed_in_the_confusion_table(tmp_path):
    # What the engine says of this reply, whatever it is, is made the one verdict not accepted.
    reply = "Study Room A costs £5 an hour and seats 6 people."
    probe = check_all(load_labelled(_cases_file(tmp_path, _line(reply, {}))), None, WHEN)[0]
    got = probe.recommendation
    others = [
        k for k in ("Accept", "AcceptWithFlags", "CorrectAndDeliver", "Regenerate") if k != got
    ]
    raised = sorted({str(f.hallucination_type) for f in probe.result.hallucination_flags})
    expect = {
        "recommendation": others,
        "contradicted": [{"value": "£5", "correct": "£5"}],
        "no_flags": raised or ["NonexistentEntity"],
    }
    scored = check_all(load_labelled(_cases_file(tmp_path, _line(reply, expect))), None, WHEN)
    miss = scored[0]
    assert miss.verdict_ok is False
    assert f"verdict {got}, expected {' or '.join(others)}" in miss.problems
    assert miss.found == [False] and "'£5' not found contradicted" in miss.problems
    summary = summarise(scored)
    assert summary["verdicts"] == {"right": 0, "of": 1, "rate": 0.0}
    assert summary["confusion"] == {others[0]: {got: 1}}
    assert summary["forbidden_flags_raised"] == len(raised)
    assert summary["as_expected"] == 0
    unchecked = got == "Accept" and not probe.result.factual_validation.claims
    assert summary["accepted_unchecked"] == int(unchecked)


def test_the_command_prints_scores_and_misses_and_writes_a_report(tmp_path, capsys):
    out = tmp_path / "report.json"
    errors = tmp_path / "misses.jsonl"
    argv = ["eval", "cases", str(DATA / "cases.jsonl"), "--json", str(out), "--errors", str(errors)]
    assert cli.main(argv) == 0
    printed = capsys.readouterr().out
    assert "verdict as expected" in printed and "expected \\ got" in printed
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["command"].startswith("replyguard eval cases ")
    cases = report["cases"]
    assert [c["id"] for c in cases] == ["lib-seats", "lib-rate", "cases:4"]
    assert cases[0]["metadata"] == {"author": "fixture"}
    assert cases[1]["expect"]["note"] == "one wrong price"
    assert all(c["explanation"] and "recommendation" in c["got"] for c in cases)
    misses = [json.loads(line) for line in errors.read_text(encoding="utf-8").splitlines()]
    assert [m["id"] for m in misses] == [c["id"] for c in cases if not c["as_expected"]]
    for miss in misses:
        assert miss["id"] in printed
    assert cli.main([*argv, "--no-misses"]) == 0
    quiet = capsys.readouterr().out
    assert all(m["id"] not in quiet for m in misses)


# --------------------------------------------------------------------------- the shipped suites


def _facts(kb) -> dict:
    def plain(v: object) -> object:
        if isinstance(v, list):
            return [plain(x) for x in v]
        if isinstance(v, bool):
            return "yes" if v else "no"
        return str(v)

    return {
        e.id: (
            e.name,
            str(e.type),
            sorted(e.aliases),
            {k: plain(getattr(a, "value", a)) for k, a in e.attributes.items()},
        )
        for e in kb.entities
    }


SUITE_NAMES = sorted(str(p.parent.relative_to(SUITES)) for p in SUITES.rglob("cases.jsonl"))


@pytest.mark.parametrize("suite", SUITE_NAMES)
def test_each_shipped_suite_loads_and_scores(suite):
    items = load_labelled(SUITES / suite / "cases.jsonl")
    assert len(items) >= 30 and all(i.expect.recommendation for i in items)
    scored = check_all(items[:3], None, WHEN)  # proves they run and score; accuracy is a result
    assert all(s.result is not None for s in scored)
    assert summarise(scored)["cases"] == 3


@pytest.mark.parametrize("suite", SUITE_NAMES)
def test_each_shipped_suite_holds_the_same_facts_as_csv_and_as_json(suite):
    folder = SUITES / suite
    assert _facts(load_kb(folder / "kb.csv")) == _facts(load_kb(folder / "kb.json"))
