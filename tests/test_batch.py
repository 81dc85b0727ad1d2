"""`replyguard batch`: bad lines are one line each, runs resume, and -j 2 matches -j 1."""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest
from conftest import SEED_KB, run_cli

import replyguard.engine
import replyguard.kb
from replyguard import batch, cli

REFERENCE = "2026-11-30T09:00:00"
QUERY = "What do you know about them?"
REPLIES = [
    "John Smith's email is john.smith@company.com.",
    "John Smith's email is john.s@company.org.",
    "Sarah Johnson works in Marketing.",
    "Bob Marley works in Finance.",
    "Sarah Johnson joined in 2015.",
    "Emily Chen works in Finance.",
]


def _case(reply: str, **extra: object) -> str:
    return json.dumps({"query": QUERY, "response": reply, **extra})


# Line numbers: 2 is invalid JSON, 4 lacks its response, 5 is blank (not a case), 8 names a KB
# file that does not exist; every other line is a good case.
LINES = [
    _case(REPLIES[0], id="first"),
    '{"query": "x", oops}',
    _case(REPLIES[1], kb="kb.json", session_id="s1", turn_id="T9"),
    json.dumps({"query": QUERY, "id": "no-response"}),
    "",
    _case(REPLIES[2], kb=SEED_KB),
    _case(REPLIES[3], kb=SEED_KB),
    _case(REPLIES[4], kb="missing.json"),
    _case(REPLIES[5]),
]
GOOD = [1, 3, 6, 7, 9]
BAD = {2: "invalid JSON", 4: "response: Field required", 8: "KB file not found"}


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "kb.json").write_text(json.dumps(SEED_KB))
    (tmp_path / "cases.jsonl").write_text("\n".join(LINES) + "\n")
    return tmp_path


def _batch(workdir: Path, *extra: str, output: str = "out.jsonl") -> int:
    argv = ["batch", str(workdir / "cases.jsonl"), "-o", str(workdir / output)]
    argv += ["--kb", str(workdir / "kb.json"), "--reference-time", REFERENCE]
    return cli.main([*argv, *extra])


def _records(path: Path) -> list[dict]:
    """The output's records with the run-dependent timings removed."""
    records = [json.loads(line) for line in path.read_text().splitlines()]
    for record in records:
        if "result" in record:
            del record["result"]["timings_ms"]
    return records


@pytest.fixture(scope="module")
def serial(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict], str, str]:
    """One -j 1 run over LINES: its folder, records, stdout and stderr. Tests comparing against
    it write their own outputs in the same folder, since error records name absolute KB paths."""
    workdir = tmp_path_factory.mktemp("serial")
    (workdir / "kb.json").write_text(json.dumps(SEED_KB))
    (workdir / "cases.jsonl").write_text("\n".join(LINES) + "\n")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert _batch(workdir, output="serial.jsonl") == 1
    return workdir, _records(workdir / "serial.jsonl"), out.getvalue(), err.getvalue()


def test_every_line_is_written_once_in_input_order(serial):
    _, records, _, _ = serial
    assert [r["line"] for r in records] == sorted(GOOD + list(BAD))
    assert [r["line"] for r in records if "result" in r] == GOOD
    ids = {r["line"]: r["case_id"] for r in records}
    assert ids[1] == "first" and ids[3] == "line-3" and ids[4] == "no-response"
    by_line = {r["line"]: r for r in records}
    assert by_line[1]["result"]["recommendation"]["kind"] == "Accept"
    assert by_line[3]["result"]["session_id"] == "s1"
    assert "ContradictsFact" in {
        f["hallucination_type"] for f in by_line[3]["result"]["hallucination_flags"]
    }


def test_bad_lines_are_reported_with_their_number_and_the_run_goes_on(serial):
    workdir, records, _, stderr = serial
    err = stderr.splitlines()
    source = workdir / "cases.jsonl"
    assert [line.split(":")[1] for line in err] == [str(n) for n in BAD]
    for line, (number, message) in zip(err, BAD.items(), strict=True):
        assert line.startswith(f"{source}:{number}: ") and message in line
    by_line = {r["line"]: r for r in records}
    assert all(message in by_line[n]["error"] for n, message in BAD.items())


def test_summary_counts_what_the_output_holds(serial):
    _, records, summary, _ = serial
    results = [r["result"] for r in records if "result" in r]
    kinds = Counter(r["recommendation"]["kind"] for r in results)
    flags = Counter(f["hallucination_type"] for r in results for f in r["hallucination_flags"])
    assert f"lines: {len(results)} checked, {len(BAD)} bad, 0 already done" in summary
    line = next(s for s in summary.splitlines() if s.startswith("recommendations:"))
    assert all(f"{kind} {count}" in line for kind, count in kinds.items())
    line = next(s for s in summary.splitlines() if s.startswith("flags:"))
    assert flags and all(f"{flag} {count}" in line for flag, count in flags.items())
    assert "replies/s" in summary
    assert f"reference time for cases without one: {REFERENCE}" in summary


def test_resume_checks_only_the_rest_and_repairs_a_torn_line(serial, monkeypatch, capsys):
    workdir, records, _, _ = serial
    done = (workdir / "serial.jsonl").read_bytes().splitlines(keepends=True)
    # Lines 1, 2 and 3 were written; the run was killed while writing line 4's record.
    (workdir / "resumed.jsonl").write_bytes(b"".join(done[:3]) + done[3][:25])
    checked: list[int] = []
    original = batch._lines

    def spy(path, skip):  # the lines handed to the workers (the first call only counts them)
        checked.clear()
        for number, raw in original(path, skip):
            checked.append(number)
            yield number, raw

    monkeypatch.setattr(batch, "_lines", spy)
    assert _batch(workdir, output="resumed.jsonl") == 1
    captured = capsys.readouterr()
    assert checked == [4, 6, 7, 8, 9]
    assert "dropped a torn last line" in captured.err
    assert "lines: 3 checked, 2 bad (plus 1 in earlier runs), 3 already done" in captured.out
    assert _records(workdir / "resumed.jsonl") == records

    checked.clear()
    assert _batch(workdir, output="resumed.jsonl") == 1  # nothing left, but earlier lines failed
    assert checked == []
    assert "lines: 0 checked, 0 bad (plus 3 in earlier runs), 8 already done" in (
        capsys.readouterr().out
    )


def test_two_processes_write_what_one_does(serial, capsys, monkeypatch):
    workdir, records, summary, _ = serial
    monkeypatch.setattr(batch, "CHUNK_LINES", 1)  # spread the lines over both workers
    assert _batch(workdir, "-j", "2", output="parallel.jsonl") == 1
    assert _records(workdir / "parallel.jsonl") == records
    # The same counts, in the same order of bad lines.
    captured = capsys.readouterr()
    assert captured.out.splitlines()[:3] == summary.splitlines()[:3]
    assert [line.split(":")[1] for line in captured.err.splitlines()] == [str(n) for n in BAD]


def test_one_engine_per_distinct_kb(workdir, monkeypatch):
    built: list[int] = []

    class Counting(replyguard.engine.Engine):
        def __init__(self, kb, **kwargs):
            built.append(len(kb.entities))
            super().__init__(kb, **kwargs)

    monkeypatch.setattr(replyguard.engine, "Engine", Counting)
    kb_path = (workdir / "kb.json").resolve()
    default = (f"path:{kb_path}", replyguard.kb.load_kb(kb_path))
    settings = batch.Settings(workdir, default, None, "plain", datetime(2026, 11, 30, 9))
    checker = batch.Checker(settings)  # what each worker process runs
    lines = (workdir / "cases.jsonl").read_bytes().splitlines()
    outcomes = [checker.check(n, raw) for n, raw in enumerate(lines, 1) if raw.strip()]
    assert [o.line for o in outcomes if o.result is not None] == GOOD
    # --kb and the line naming kb.json share one engine; the two inline copies share another.
    assert built == [len(SEED_KB["entities"])] * 2


def test_trace_holds_every_checked_reply(workdir, capsys):
    trace = workdir / "trace.rgt"
    assert _batch(workdir, "--trace", str(trace)) == 1
    capsys.readouterr()
    assert cli.main(["trace", "list", str(trace), "/postprocessing", "--depth", "3"]) == 0
    turns = capsys.readouterr().out.split()
    expected = ["cases/line-1", "cases/line-6", "cases/line-7", "cases/line-9", "s1/T9"]
    assert turns == [f"/postprocessing/{t}" for t in expected]
    assert cli.main(["trace", "show", str(trace), "/postprocessing/s1/T9/result", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["postprocessing"]["s1"]["T9"]["result"]
    line3 = next(r for r in _records(workdir / "out.jsonl") if r["line"] == 3)["result"]
    assert shown["recommendation"] == line3["recommendation"]["kind"]
    assert shown["corrected_response"] == line3["corrected"]["corrected"]


def test_lines_without_a_kb_need_the_kb_option(workdir, capsys):
    (workdir / "cases.jsonl").write_text(_case(REPLIES[0]) + "\n")
    argv = ["batch", str(workdir / "cases.jsonl"), "-o", str(workdir / "out.jsonl")]
    assert cli.main(argv) == 1
    assert "cases.jsonl:1: kb: missing" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["-j", "0"], "-j: expected at least 1"),
        (["--reference-time", "soon"], "--reference-time: expected an ISO datetime"),
        (["--kb", "nowhere.json"], "nowhere.json: KB file not found"),
        (["--rules", "nowhere"], "nowhere: rules directory not found"),
    ],
)
def test_unusable_arguments_stop_before_any_work(workdir, capsys, extra, message):
    argv = ["batch", str(workdir / "cases.jsonl"), "-o", str(workdir / "out.jsonl"), *extra]
    assert cli.main(argv) == cli.EXIT_INPUT
    assert message in capsys.readouterr().err
    assert not (workdir / "out.jsonl").exists()


def test_an_output_that_is_not_ours_is_left_alone(workdir, capsys):
    foreign = workdir / "out.jsonl"
    foreign.write_text('{"line": 1, "result": {}}\nhello\n')
    assert _batch(workdir) == cli.EXIT_INPUT
    assert "out.jsonl:2: not a replyguard batch result" in capsys.readouterr().err
    assert foreign.read_text() == '{"line": 1, "result": {}}\nhello\n'


def test_a_second_run_on_the_same_output_is_refused(workdir, capsys):
    with open(workdir / "out.jsonl", "ab") as running:
        fcntl.flock(running.fileno(), fcntl.LOCK_EX)
        assert _batch(workdir) == cli.EXIT_INPUT
    assert "out.jsonl: another batch run is writing it" in capsys.readouterr().err
    assert (workdir / "out.jsonl").read_bytes() == b""


def test_the_installed_command_exits_1_and_names_bad_lines(workdir):
    argv = "batch cases.jsonl -o out.jsonl --kb kb.json --reference-time".split()
    run = run_cli(*argv, REFERENCE, cwd=workdir)
    assert run.returncode == 1
    assert run.stderr.splitlines() == [
        "cases.jsonl:2: invalid JSON (Expecting property name enclosed in double quotes at "
        "column 16)",
        "cases.jsonl:4: response: Field required",
        f"cases.jsonl:8: {(workdir / 'missing.json').resolve()}: KB file not found",
    ]
    assert run.stdout.startswith("lines: 5 checked, 3 bad, 0 already done (skipped)\n")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_drawn_on_a_terminal_only():
    terminal, pipe = _Terminal(), io.StringIO()
    for stream in (terminal, pipe):
        progress = batch.Progress(2, stream)
        progress.advance()
        progress.message("cases.jsonl:2: invalid JSON")
        progress.advance()
        progress.clear()
    assert pipe.getvalue() == "cases.jsonl:2: invalid JSON\n"
    drawn = terminal.getvalue()
    assert "] 2/2 " in drawn and "/s  ETA 0:00" in drawn
    # The message clears the bar's line first, so it never shares a line with it.
    assert "\r\033[Kcases.jsonl:2: invalid JSON\n" in drawn and drawn.endswith("\r\033[K")


# ------------------------------------------------------------------ robustness

REPRO = Path(__file__).parent / "data" / "repro"
DOOMED = "Emily Chen works in Finance (this line takes its worker down)."


def _dies_on_doomed(chunk: list[tuple[int, bytes]]) -> list[batch.Outcome]:
    """Runs in the worker in place of batch._check_chunk: a native crash on one reply."""
    if any(DOOMED.encode() in raw for _, raw in chunk):
        os.kill(os.getpid(), signal.SIGKILL)
    return batch._check_chunk(chunk)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_worker_that_dies_is_a_bad_line_and_the_run_finishes(tmp_path, monkeypatch, capsys, jobs):
    (tmp_path / "kb.json").write_text(json.dumps(SEED_KB))
    replies = [REPLIES[0], REPLIES[2], DOOMED, REPLIES[5], REPLIES[1]]
    (tmp_path / "cases.jsonl").write_text(
        "".join(_case(r, id=f"c{i}") + "\n" for i, r in enumerate(replies, 1))
    )
    monkeypatch.setattr(batch, "_check_chunk", _dies_on_doomed)
    monkeypatch.setattr(batch, "CHUNK_LINES", 2)
    assert _batch(tmp_path, "-j", jobs) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [f"{tmp_path / 'cases.jsonl'}:3: {batch.WORKER_DIED}"]
    records = _records(tmp_path / "out.jsonl")
    assert [(r["line"], r["case_id"], "result" in r) for r in records] == [
        (1, "c1", True),
        (2, "c2", True),
        (3, "c3", False),
        (4, "c4", True),
        (5, "c5", True),
    ]
    assert _batch(tmp_path, "-j", jobs) == 1  # resumed: the line is done, nothing stops again
    assert "lines: 0 checked, 0 bad (plus 1 in earlier runs), 5 already done" in (
        capsys.readouterr().out
    )


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_workers_end_when_the_batch_process_is_killed(tmp_path):
    argv = [sys.executable, "-m", "replyguard.cli", "batch", str(REPRO / "R25_cases.jsonl")]
    argv += ["-o", str(tmp_path / "out.jsonl"), "--kb", str(REPRO / "R25_kb.json"), "-j", "2"]
    parent = subprocess.Popen([*argv, "--reference-time", REFERENCE], stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        workers: list[int] = []
        while len(workers) < 2 and time.monotonic() < deadline and parent.poll() is None:
            time.sleep(0.2)
            workers = [
                p
                for p in _children(parent.pid)
                if b"spawn_main" in Path(f"/proc/{p}/cmdline").read_bytes()
            ]
        assert len(workers) >= 2, "the batch run started no workers"
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 30
        while any(map(_alive, workers)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(map(_alive, workers))
    finally:
        if parent.poll() is None:
            parent.kill()
        for pid in _children(parent.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_a_surrogate_turn_id_is_a_bad_line_and_resume_goes_on(tmp_path, capsys):
    for name in ("R07_batch_trace_surrogate_turn.jsonl", "kb.json"):
        (tmp_path / name).write_bytes((REPRO / name).read_bytes())
    argv = ["batch", str(tmp_path / "R07_batch_trace_surrogate_turn.jsonl")]
    argv += ["-o", str(tmp_path / "out.jsonl"), "--kb", str(tmp_path / "kb.json")]
    argv += ["--trace", str(tmp_path / "t.rgt"), "--reference-time", REFERENCE]
    assert cli.main(argv) == 1
    assert "jsonl:2: turn_id: holds a lone surrogate" in capsys.readouterr().err
    assert [("result" in r) for r in _records(tmp_path / "out.jsonl")] == [True, False, True]
    assert cli.main(argv) == 1
    assert "lines: 0 checked, 0 bad (plus 1 in earlier runs), 3 already done" in (
        capsys.readouterr().out
    )


def test_metadata_and_expect_reach_the_output_unchanged(tmp_path, capsys):
    (tmp_path / "kb.json").write_text(json.dumps(SEED_KB))
    labels = {"metadata": {"agent": "v2", "score": [1, 2.5]}, "expect": {"kind": ["Accept"]}}
    lines = [
        _case(REPLIES[5], id="a", **labels),
        json.dumps({"query": QUERY, "id": "b", **labels}),  # no response: a bad line
        _case(REPLIES[2], metadata={"only": "metadata"}),
    ]
    (tmp_path / "cases.jsonl").write_text("\n".join(lines) + "\n")
    assert _batch(tmp_path) == 1
    capsys.readouterr()
    first, second, third = _records(tmp_path / "out.jsonl")
    assert {k: first[k] for k in labels} == labels and "result" in first
    assert {k: second[k] for k in labels} == labels and "response" in second["error"]
    assert third["metadata"] == {"only": "metadata"} and "expect" not in third


def _corrupt_second_record(path: Path) -> None:
    """Flip a payload byte of the trace file's second record (header: magic, then frames of
    u32 length, u32 CRC, payload)."""
    data = bytearray(path.read_bytes())
    first = len(b"RGTRACE1\n")
    length = int.from_bytes(data[first : first + 4], "little")
    second = first + 8 + length
    data[second + 8 + 5] ^= 0x20
    path.write_bytes(bytes(data))


def test_results_whose_trace_entries_were_lost_are_written_again(workdir, capsys):
    trace = workdir / "trace.rgt"
    assert _batch(workdir, "--trace", str(trace)) == 1
    capsys.readouterr()
    assert cli.main(["trace", "list", str(trace), "/postprocessing", "--depth", "3"]) == 0
    before = capsys.readouterr().out
    output_before = (workdir / "out.jsonl").read_bytes()
    _corrupt_second_record(trace)

    assert _batch(workdir, "--trace", str(trace)) == 1
    err = capsys.readouterr().err
    assert "moved" in err and "corrupt" in err  # the trace store's own report
    # The first record (line 1) survived; lines 3, 6, 7 and 9 were lost and are named.
    assert "the trace had lost the entries of 4 results" in err and "(lines 3, 6, 7, 9)" in err
    assert (workdir / "out.jsonl").read_bytes() == output_before  # nothing checked twice
    assert cli.main(["trace", "list", str(trace), "/postprocessing", "--depth", "3"]) == 0
    assert capsys.readouterr().out == before
    assert _batch(workdir, "--trace", str(trace)) == 1
    assert "lost the entries" not in capsys.readouterr().err


def test_a_deleted_trace_is_rebuilt_from_the_output_last_write_winning(tmp_path, capsys):
    (tmp_path / "kb.json").write_text(json.dumps(SEED_KB))
    shared = {"session_id": "desk", "turn_id": "T2"}
    lines = [_case(REPLIES[2], **shared), _case(REPLIES[5]), _case(REPLIES[4], **shared)]
    (tmp_path / "cases.jsonl").write_text("\n".join(lines) + "\n")
    trace = tmp_path / "trace.rgt"
    assert _batch(tmp_path, "--trace", str(trace)) == 0
    trace.unlink()
    capsys.readouterr()
    assert _batch(tmp_path, "--trace", str(trace)) == 0
    assert "lost the entries of 3 results" in capsys.readouterr().err
    path = "/postprocessing/desk/T2/input/llm_response"
    assert cli.main(["trace", "show", str(trace), path]) == 0
    assert REPLIES[4] in capsys.readouterr().out  # line 3 overwrote line 1, as in the first run
