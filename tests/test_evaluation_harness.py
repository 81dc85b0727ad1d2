"""`replyguard eval` end to end on tiny fixtures in each dataset's real format.

The fixtures are written to a temporary data root laid out like ../shared/data (kvret/,
halueval/, begin/wow/), so the runner finds them exactly as it finds the real files; nothing here
reads ../shared. One module-scoped run of `eval all` serves most tests, because every engine
build costs a fraction of a second.
"""

from __future__ import annotations

import gzip
import io
import json
import os
from pathlib import Path

import pytest

from replyguard import cli
from replyguard.evaluation import harness
from replyguard.evaluation.cases import EvalCase, GoldTurn
from replyguard.models import Case, KnowledgeBase

_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


def _turn(who: str, text: str, slots: dict | None = None) -> dict:
    data: dict = {"end_dialogue": False, "utterance": text}
    if who == "assistant":
        data |= {"requested": {}, "slots": slots or {}}
    return {"turn": who, "data": data}


def _calendar_row(event: str, time: str, date: str) -> dict:
    return {"event": event, "time": time, "date": date, "room": "-", "agenda": "-", "party": "-"}


def _forecast(location: str, skies: list[str]) -> dict:
    row = {
        day: f"{sky}, low of {30 + 5 * i}F, high of {50 + 5 * i}F"
        for i, (day, sky) in enumerate(zip(_DAYS, skies, strict=True))
    }
    return row | {"location": location, "today": "monday"}


CALENDAR = {
    "dialogue": [
        _turn("driver", "When is my dentist appointment?"),
        _turn("assistant", "Your dentist appointment is at 2 pm.", {"event": "dentist"}),
        _turn("driver", "Thanks."),
        _turn("assistant", "You're welcome!"),
    ],
    "scenario": {
        "kb": {
            "items": [
                _calendar_row("dentist", "2 pm", "tuesday"),
                _calendar_row("yoga activity", "5pm", "thursday"),
                _calendar_row("tennis", "11am", "friday"),
            ],
            "column_names": ["event", "time", "date", "room", "agenda", "party"],
            "kb_title": "calendar",
        },
        "task": {"intent": "schedule"},
        "uuid": "cal-1",
    },
}
WEATHER = {
    "dialogue": [
        _turn("driver", "Will it snow in Boston on Friday?"),
        _turn("assistant", "It will snow in Boston on Friday.", {"location": "Boston"}),
    ],
    "scenario": {
        "kb": {
            "items": [
                _forecast("boston", ["hail", "dew", "rain", "cloudy", "snow", "foggy", "windy"]),
                _forecast("fresno", ["dew", "hail", "windy", "rain", "foggy", "snow", "cloudy"]),
            ],
            "column_names": ["location", *_DAYS, "today"],
            "kb_title": "weekly forecast",
        },
        "task": {"intent": "weather"},
        "uuid": "wx-1",
    },
}
HALUEVAL = [
    {
        "knowledge": "Iron Man is starring Robert Downey Jr.Robert Downey Jr. starred in Zodiac",
        "dialogue_history": "[Human]: Do you like Iron Man? [Assistant]: Sure do! [Human]: Who "
        "starred in it? ",
        "right_response": "Robert Downey Jr. starred in Iron Man.",
        "hallucinated_response": "Tom Hanks starred in Iron Man.",
    },
    {
        "knowledge": "Thriller was released 1982",
        "dialogue_history": "[Human]: When did Thriller come out? ",
        "right_response": "Thriller was released in 1982.",
        "hallucinated_response": "Thriller was released in 1975.",
    },
    {  # wrong only by world knowledge: the knowledge says nothing of Zodiac's genre
        "knowledge": "Zodiac is starring Jake Gyllenhaal",
        "dialogue_history": "[Human]: Do you know Zodiac? ",
        "right_response": "Yes, Jake Gyllenhaal starred in it.",
        "hallucinated_response": "Yes, it is a musical comedy.",
    },
]
BEGIN_TSV = (
    "model_name\tdata_source\tknowledge\tmessage\tresponse\tbegin_label\n"
    "t5\twow\tcheerleading is an activity wherein the participants cheer for their team.\ti love "
    "cheerleading!\tcheerleading is an activity where participants cheer for their team\t"
    "Fully attributable\n"
    'gpt2\twow\tThe garment is associated with the "Roaring Twenties".\tOh, nice\tI think there '
    "is a very large thread going into university .\tNot fully attributable\n"
)


def write_data(root: Path) -> Path:
    (root / "kvret").mkdir(parents=True)
    (root / "kvret" / "kvret_dev_public.json").write_text(json.dumps([CALENDAR, WEATHER]))
    (root / "halueval").mkdir()
    (root / "halueval" / "dialogue_dev.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in HALUEVAL)
    )
    (root / "begin" / "wow").mkdir(parents=True)
    (root / "begin" / "wow" / "begin_dev_wow.tsv").write_text(BEGIN_TSV)
    fixtures = Path(__file__).parent / "data"
    (root / "sgd").mkdir()
    with gzip.open(root / "sgd" / "dialogues.json.gz", "wt", encoding="utf-8") as fh:
        fh.write((fixtures / "sgd_dialogues.json").read_text(encoding="utf-8"))
    (root / "sgd" / "schema.json").write_text((fixtures / "sgd_schema.json").read_text())
    return root


@pytest.fixture(scope="module")
def everything(tmp_path_factory):
    """One `eval all` run over the fixtures: (data root, report, failure records, stdout)."""
    tmp = tmp_path_factory.mktemp("eval")
    data = write_data(tmp / "data")
    out, errors = tmp / "report.json", tmp / "errors.jsonl"
    stdout = io.StringIO()
    argv = ["eval", "all", "--data", str(data), "--json", str(out), "--errors", str(errors)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("sys.stdout", stdout)
        assert cli.main(argv) == 0
    records = [json.loads(line) for line in errors.read_text().splitlines()]
    return data, json.loads(out.read_text()), records, stdout.getvalue()


def test_the_report_names_the_command_sizes_and_times_of_every_dataset(everything):
    data, report, _, stdout = everything
    assert report["command"].startswith(f"replyguard eval all --data {data} --seed 0 -j 1")
    assert set(report["datasets"]) == {"kvret", "halueval", "begin", "sgd"}
    assert report["wall_seconds"] > 0
    assert set(report["code"]) == {"replyguard", "git_commit", "git_dirty"}
    for section in report["datasets"].values():
        assert section["wall_seconds"] > 0 and len(section["data_sha256"]) == 64
        assert section["engines"]["built"] >= section["engines"]["distinct_kbs"] >= 1
        assert section["per_case_seconds"]["n"] == section["size"]["cases"]
        assert section["engine_errors"] == 0
        for row in section["table"]:
            assert set(row) == {"metric", "value", "target", "pass", "n"}
    kv = report["datasets"]["kvret"]["size"]
    assert (kv["dialogues"], kv["gold_turns"]) == (2, 3)
    assert report["datasets"]["halueval"]["size"] == {
        "records": 3,
        "cases": 6,
        "records_with_facts": 3,
    }
    assert report["datasets"]["begin"]["size"]["labels"] == {
        "Fully attributable": 1,
        "Not fully attributable": 1,
    }
    assert "false-alarm rate (gold turns)" in stdout and "≤ 0.05" in stdout
    assert report["command"] in stdout


def test_a_value_swap_in_a_calendar_reply_is_detected_and_corrected(everything):
    _, report, _, _ = everything
    swap = report["datasets"]["kvret"]["metrics"]["perturbations"]["value_swap"]
    assert swap["n"] >= 1 and swap["tp"] >= 1
    assert swap["detected_correctable"] >= 1 and swap["corrected"] >= 1
    qud = report["datasets"]["kvret"]["metrics"]["qud_auroc"]
    assert qud["n_pairs"] >= 1 and qud["auroc"] is not None


def test_halueval_and_begin_metrics_are_computed(everything):
    _, report, _, _ = everything
    halu = report["datasets"]["halueval"]["metrics"]
    for mode in ("contradiction", "all"):
        assert halu["all_records"][mode]["n_pairs"] == 3
        assert halu["all_records"][mode]["accuracy"] is not None
    begin = report["datasets"]["begin"]["metrics"]
    assert begin["n"] == 2 and begin["auroc"] is not None
    accuracy = next(
        r for r in report["datasets"]["halueval"]["table"] if r["metric"] == "all: accuracy"
    )
    assert accuracy["target"] == "≥ 0.75" and accuracy["pass"] in (True, False)


def test_each_failure_says_what_was_expected_and_what_the_engine_made_of_the_reply(everything):
    _, report, records, _ = everything
    assert records, "the fixtures hold cases the engine gets wrong"
    for record in records:
        assert {"dataset", "case_id", "kind", "reply", "expected", "got", "query"} <= set(record)
        got = record["got"]
        assert {"recommendation", "confidence", "claims", "flags", "qud"} <= set(got)
        for claim in got["claims"]:
            assert {"subject", "predicate", "object", "status", "text"} <= set(claim)
    for name, section in report["datasets"].items():
        assert sum(section["failures"].values()) == sum(r["dataset"] == name for r in records)


def test_worker_processes_give_the_same_numbers_as_one_process(everything, tmp_path):
    data, report, records, _ = everything
    out, errors = tmp_path / "r.json", tmp_path / "e.jsonl"
    argv = ["eval", "kvret", "--data", str(data), "-j", "2", "--json", str(out)]
    assert cli.main([*argv, "--errors", str(errors)]) == 0
    parallel = json.loads(out.read_text())["datasets"]["kvret"]
    assert parallel["metrics"] == report["datasets"]["kvret"]["metrics"]
    assert [json.loads(line) for line in errors.read_text().splitlines()] == [
        r for r in records if r["dataset"] == "kvret"
    ]


def _case(session: str, kb: KnowledgeBase) -> EvalCase:
    case = Case(kb=kb, query="q", response="r", session_id=session)
    return EvalCase(case_id=session, case=case, truth=GoldTurn(session, "schedule", "T2"))


def test_cases_with_identical_kbs_share_units_that_never_split_a_session(monkeypatch):
    empty, other = (
        KnowledgeBase(),
        KnowledgeBase.model_validate({"entities": [{"id": "E1", "name": "dentist"}]}),
    )
    cases = [_case("a", empty), _case("a", empty), _case("b", other), _case("c", empty)]
    units = harness.make_units("kvret", cases)
    assert [u.positions for u in units] == [(0, 1, 3), (2,)]
    monkeypatch.setattr(harness, "UNIT_CASES", 1)
    units = harness.make_units("kvret", cases)
    assert [u.positions for u in units] == [(0, 1), (3,), (2,)]


def _die_on_boom(units):
    """A worker's job that kills its process on the case "boom", as an abort or the kernel's OOM
    killer would (top level so that a spawned worker can unpickle it)."""
    if any(c.case_id == "boom" for u in units for c in u.cases):
        os._exit(3)
    return [harness.UnitResult(cases=len(u.cases)) for u in units]


def test_a_worker_that_dies_costs_only_the_unit_that_killed_it(monkeypatch):
    monkeypatch.setattr(harness, "UNITS_PER_PROCESS", 2)
    kbs = [
        KnowledgeBase.model_validate({"entities": [{"id": "E1", "name": f"place {i}"}]})
        for i in range(3)
    ]
    cases = [_case("ok", kbs[0]), _case("boom", kbs[1]), _case("fine", kbs[2])]
    units = harness.make_units("kvret", cases)
    results = [r for chunk in harness.execute(units, 2, work=_die_on_boom) for r in chunk]
    assert [r.engine_errors for r in results] == [0, 1, 0]
    assert results[1].unscored == 1
    assert [(p, f["case_id"], f["kind"]) for p, f in results[1].failures] == [
        (1, "boom", "engine_error")
    ]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["eval", "squad"], "unknown dataset 'squad'"),
        (["eval", "kvret", "--data", "/nonexistent/data"], "no such file or directory"),
        (["eval", "begin", "--data", "{data}/kvret"], "no begin_dev_wow.tsv"),
        (["eval", "kvret", "--data", "{data}", "--limit", "0"], "--limit"),
        (["eval", "kvret", "--data", "{data}", "-j", "0"], "-j"),
        (["eval", "kvret", "--data", "{data}", "--json", "{data}/no/dir/r.json"], "--json"),
    ],
)
def test_bad_arguments_are_one_line_errors_before_any_work(everything, capsys, argv, message):
    data = everything[0]
    status = cli.main([a.format(data=data) for a in argv])
    err = capsys.readouterr().err
    assert status == cli.EXIT_INPUT
    assert err.startswith("replyguard: error: ") and message in err and err.count("\n") == 1


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_shown_on_a_terminal_only():
    quiet = io.StringIO()
    progress = harness.Progress("kvret", 10, quiet)
    progress.advance(3)
    progress.close()
    assert quiet.getvalue() == ""
    terminal = _Terminal()
    progress = harness.Progress("kvret", 10, terminal)
    progress.advance(3)
    progress.close()
    assert "kvret: 3/10 cases" in terminal.getvalue() and terminal.getvalue().endswith("\n")


def test_a_metric_undefined_on_the_data_neither_passes_nor_fails():
    target = harness.Target(">=", 0.9)
    assert harness.Row("recall", None, 0, target).passed is None
    assert harness.Row("recall", 0.95, 20, target).passed is True
    assert harness.Row("false alarms", 0.1, 20, harness.Target("<=", 0.05)).passed is False
    assert harness.Row("F1", 0.5, 20).passed is None
