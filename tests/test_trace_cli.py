"""`replyguard trace list|show` read a trace file, even one another process is writing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hyperon import MeTTa

from replyguard import cli
from replyguard.trace import FileTraceStore

LEAVES = [
    ("/postprocessing/s1/T1/result/recommendation", "Accept"),
    ("/postprocessing/s1/T1/result/confidence", 0.93),
    ("/postprocessing/s1/T2/result/recommendation", "HumanReview"),
    ("/postprocessing/s1/T2/hallucinations/count", 1),
    ("/postprocessing/s10/T1/result/recommendation", "Regenerate"),
    ("/hallucination/s1/T2/0/type", "ContradictsFact"),
]


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    path = tmp_path / "trace.rgt"
    with FileTraceStore(path, fsync=False) as store:
        store.put_many(LEAVES)
    return path


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_list_prints_every_path_under_a_whole_segment_prefix(trace, capsys):
    status, out, _ = _run(capsys, "trace", "list", str(trace), "/postprocessing/s1")
    assert status == 0
    assert out.splitlines() == [
        "/postprocessing/s1/T1/result/confidence",
        "/postprocessing/s1/T1/result/recommendation",
        "/postprocessing/s1/T2/hallucinations/count",
        "/postprocessing/s1/T2/result/recommendation",
    ]  # "/postprocessing/s10" is another session, not a match


def test_list_depth_gives_the_distinct_sessions_and_turns(trace, capsys):
    _, sessions, _ = _run(capsys, "trace", "list", str(trace), "--depth", "2")
    assert sessions.splitlines() == [
        "/hallucination/s1",
        "/postprocessing/s1",
        "/postprocessing/s10",
    ]
    _, turns, _ = _run(capsys, "trace", "list", str(trace), "/postprocessing", "--depth", "3")
    assert turns.splitlines() == [
        "/postprocessing/s1/T1",
        "/postprocessing/s1/T2",
        "/postprocessing/s10/T1",
    ]


def test_show_prints_values_as_text_json_or_metta(trace, capsys):
    prefix = "/postprocessing/s1/T1"
    _, text, _ = _run(capsys, "trace", "show", str(trace), prefix)
    assert text.splitlines() == [
        f"{prefix}/result/confidence = 0.93",
        f'{prefix}/result/recommendation = "Accept"',
    ]
    _, as_json, _ = _run(capsys, "trace", "show", str(trace), prefix, "--json")
    assert json.loads(as_json) == {
        "postprocessing": {
            "s1": {"T1": {"result": {"confidence": 0.93, "recommendation": "Accept"}}}
        }
    }
    _, as_metta, _ = _run(capsys, "trace", "show", str(trace), prefix, "--metta")
    atoms = MeTTa().parse_all(as_metta)
    assert [str(a) for a in atoms] == [
        f'(trace "{prefix}/result/confidence" 0.93)',
        f'(trace "{prefix}/result/recommendation" "Accept")',
    ]


def test_reading_does_not_wait_for_a_writer(trace, capsys):
    with FileTraceStore(trace, fsync=False) as writer:  # holds the writer's lock
        writer.put("/postprocessing/s2/T1/result/recommendation", "Accept")
        status, out, _ = _run(capsys, "trace", "show", str(trace), "/postprocessing/s2")
    assert status == 0
    assert out == '/postprocessing/s2/T1/result/recommendation = "Accept"\n'


@pytest.mark.parametrize(
    ("argv", "status", "message"),
    [
        (["show", "{trace}", "/postprocessing/s3"], 1, "nothing stored under /postprocessing/s3"),
        (["list", "{missing}"], cli.EXIT_INPUT, "trace file not found"),
        (["list", "{not_trace}"], cli.EXIT_INPUT, "not a replyguard trace file"),
        (["list", "{trace}", "no-slash"], cli.EXIT_INPUT, "prefix: not a trace path"),
        (["list", "{trace}", "--depth", "0"], cli.EXIT_INPUT, "--depth: expected at least 1"),
    ],
)
def test_problems_are_one_line(trace, capsys, argv, status, message):
    not_trace = trace.parent / "notes.txt"
    not_trace.write_text("hello\n")
    names = {"trace": trace, "missing": trace.parent / "nope.rgt", "not_trace": not_trace}
    got, out, err = _run(capsys, "trace", *(a.format(**names) for a in argv))
    assert got == status
    assert out == "" and len(err.splitlines()) == 1 and message in err
