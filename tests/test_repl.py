"""The REPL: a piped session (scriptable, output only) and one under a pseudo-terminal (prompt,
readline history and completion), both through the real CLI."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import run_cli

from replyguard.engine import Engine
from replyguard.repl import Repl
from replyguard.trace import FileTraceStore

KB = {
    "entities": [
        {
            "id": "E42",
            "name": "John Smith",
            "type": "Person",
            "aliases": ["John"],
            "gender": "Masculine",
            "attributes": {"email": "john.smith@company.com", "department": "Engineering"},
        },
        {
            "id": "E43",
            "name": "Sarah Johnson",
            "type": "Person",
            "aliases": ["Sarah"],
            "gender": "Feminine",
            "attributes": {"email": "sarah.johnson@company.com", "department": "Marketing"},
        },
    ]
}
CASE = {
    "kb": KB,
    "dialogue": [
        {"id": "T1", "speaker": "user", "text": "John works in Engineering."},
        {"id": "T2", "speaker": "assistant", "text": "Noted."},
    ],
    "query": "Where does John work?",
    "response": "John Smith's email is john.smith@company.com and he works in Marketing.",
    "reference_time": "2026-11-30T09:00:00",
}
TIMEOUT = 60


def _repl(*args: str, **kwargs: object) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "replyguard.cli", "repl", *args],
        **kwargs,  # type: ignore[arg-type]
    )


class _Output:
    """What a REPL wrote to a pipe or a pseudo-terminal, read as it arrives."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.text = ""
        self.pos = 0

    def until(self, marker: str) -> str:
        """Read until `marker` appears past the previous marker found; the text up to it. A
        pseudo-terminal whose other end closed reads as EIO, a pipe as b""."""
        deadline = time.monotonic() + TIMEOUT
        while (found := self.text.find(marker, self.pos)) < 0:
            ready, _, _ = select.select([self.fd], [], [], max(0.0, deadline - time.monotonic()))
            try:
                chunk = os.read(self.fd, 4096) if ready else b""
            except OSError:
                chunk = b""
            if not chunk:
                raise AssertionError(f"no {marker!r} in {self.text[self.pos :]!r}")
            self.text += chunk.decode("utf-8", "replace")
        start, self.pos = self.pos, found + len(marker)
        return self.text[start : self.pos]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    kb = tmp_path / "kb.json"
    kb.write_text(json.dumps(KB), encoding="utf-8")
    case = tmp_path / "case.json"
    case.write_text(json.dumps(CASE), encoding="utf-8")
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "bands.metta").write_text("(= (config accept-threshold) 0.95)\n", encoding="utf-8")
    return {"kb": kb, "case": case, "rules": rules}


def test_piped_session_checks_explains_and_reloads_an_edited_rule(files: dict[str, Path]) -> None:
    proc = _repl(
        "--kb", str(files["kb"]), "--rules", str(files["rules"]),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    try:
        first = [
            "; evaluate over &kb, query it, then load the case and check its reply",
            "!(match &kb (attr E42 $p $v) ($p $v))",
            '?(attr $e department "Marketing")',
            "?(name $e $n)",
            "",
            f":load {files['case']}",
            ":check",
            ":claims",
            ":flags",
            ":explain C1",
            ":entity Sarah Johnson",
            ":rules recommendation",
            ":config accept-threshold",
            "!(match &reply (validation $c $s) ($c $s))",
            '!"part one done"',
        ]
        proc.stdin.write("".join(f"{line}\n" for line in first).encode())
        proc.stdin.flush()
        out = _Output(proc.stdout.fileno()).until('["part one done"]\n')

        # edit the rule file while the session runs, then reload it
        with (files["rules"] / "bands.metta").open("a", encoding="utf-8") as fh:
            fh.write("(= (recommendation $band $findings) Regenerate)\n")
        second = [
            ":reload",
            ":check",
            ":rules recommendation",
            '!(+ 1 "a")',
            ":bogus",
            ":claims",
            ":quit",
            ":flags",
        ]
        rest, err = proc.communicate("".join(f"{line}\n" for line in second).encode(), TIMEOUT)
    finally:
        proc.kill()
    lines = (out + rest.decode()).splitlines()
    assert err == b""
    assert proc.returncode == 1  # two lines failed

    # part one: !-evaluation over &kb and ? queries, printed as MeTTa
    assert lines[0] == '[(email "john.smith@company.com"), (department "Engineering")]'
    assert lines[1] == "$e = E43"
    assert lines[2:4] == ['$e = E42, $n = "John Smith"', '$e = E43, $n = "Sarah Johnson"']
    assert lines[4] == f"loaded {files['case']}: 2 turns; KB of 2 entities"  # not rebuilt
    # the one wrong value is corrected in place: delivered corrected, however low the confidence
    before = lines.index("recommendation: CorrectAndDeliver  (confidence 0.18)")
    assert lines[before + 1 : before + 3] == [
        "claims: 2  (1 verified, 1 contradicted, 0 unverifiable, 0 history conflicts)",
        "flags: 3  (ContradictsFact 1, ContradictsPrior 1, WrongAttribute 1)",
    ]
    assert "C2 John Smith (E42) · department = 'Marketing'  Contradicted  KB 'Engineering'" in lines
    assert any(line.startswith("F3 WrongAttribute 0.75 @61-70 'Marketing'") for line in lines)
    # :explain C1 shows the rule call, the clause's text at its file:line, and the atoms
    explain = lines.index("C1: John Smith · email = 'john.smith@company.com': Verified")
    assert lines[explain + 1 : explain + 6] == [
        "  rule:   (claim-status (KbGrade Exact 1.0) NoHistory False)",
        "  result: (Verified 1.0)",
        "  clause metta/facts.metta:12",
        "    (= (claim-status (KbGrade $grade $conf) $history $negated)",
        "       (kb-status (value-accepted $grade) $negated $conf))",
    ]
    assert '    (attr E42 email "john.smith@company.com")' in lines[explain:]
    # :entity by name lists every &kb atom about E43, and nothing about E42
    assert '(attr E43 department "Marketing")' in lines
    assert "(held-by department v:marketing E43)" in lines
    assert not any(line.startswith("(") and " E42" in line for line in lines)
    shipped = lines.index(f"metta/scoring.metta:{_recommendation_line()}")
    assert lines[shipped + 1] == "  (= (recommendation $band $findings)"
    assert "accept-threshold = 0.95" in lines
    assert '[(C1 (Verified 1.0)), (C2 (Contradicted "Engineering" 1.0))]' in lines

    # part two: the edited rule is read again and changes the recommendation
    reloaded = next(line for line in lines if line.startswith("reloaded: "))
    assert "2 shipped definitions overridden; new session of 2 turns" in reloaded
    assert "recommendation: Regenerate  (confidence 0.18)" in lines
    user_rule = lines.index(f"{files['rules'] / 'bands.metta'}:2")
    assert lines[user_rule + 1 : user_rule + 3] == [
        "  (= (recommendation $band $findings) Regenerate)",
        f"replaced: metta/scoring.metta:{_recommendation_line()} (by a later rule file)",
    ]
    # errors are one line each, name the input line, and the session goes on until :quit
    errors = [line for line in lines if line.startswith("error: ")]
    assert errors == [
        'error: line 19: (Error "a" BadType)',
        "error: line 20: unknown command :bogus (:help lists them)",
    ]
    assert lines[-1].startswith("C2 John Smith (E42) · department = 'Marketing'  Contradicted")
    assert not any(line.startswith("F1 ") for line in lines[lines.index(errors[-1]) :])
    assert "replyguard>" not in "\n".join(lines)  # no prompt when stdin is a pipe


def test_clean_piped_session_exits_zero_queries_a_trace_and_switches_kb(
    files: dict[str, Path], tmp_path: Path
) -> None:
    trace = tmp_path / "audit.trace"
    with FileTraceStore(trace) as store:
        store.put_many(
            [
                ("/postprocessing/s1/T3/recommendation", "HumanReview"),
                ("/postprocessing/s1/T3/confidence", 0.17),
            ]
        )
    # a case whose KB gives John the address the reply uses: loading it rebuilds the engine
    john = {**KB["entities"][0], "attributes": {"email": "john.s@company.org"}}
    other = tmp_path / "other.json"
    other.write_text(
        json.dumps(
            {"kb": {"entities": [john]}, "query": "What is John's email?",
             "response": "John Smith's email is john.s@company.org."}
        ),
        encoding="utf-8",
    )  # fmt: skip
    script = [
        '?(trace $p "HumanReview") &trace',
        "!(match &trace (trace $p 0.17) $p)",
        ":turn user What is John's email?",
        ":check John Smith's email is john.s@company.org.",
        ":claims",
        '!"a\x00b"',  # a NUL would abort hyperon 0.2.6; it is replaced instead
        ":spaces",
        f":load {other}",
        "?(name $e $n)",
        "?(trace $p 0.17) &trace",
        ":check",
        ":claims",
    ]
    run = run_cli(
        "repl", "--kb", str(files["kb"]), "--trace", str(trace),
        input="\n".join(script), timeout=TIMEOUT,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[:3] == [
        '$p = "/postprocessing/s1/T3/recommendation"',
        '["/postprocessing/s1/T3/confidence"]',
        "T1 user: What is John's email?",
    ]
    assert lines[3].startswith("recommendation: ")
    assert (
        "C1 John Smith (E42) · email = 'john.s@company.org'  Contradicted"
        "  KB 'john.smith@company.com'"
    ) in lines[4:9]
    assert '["a\ufffdb"]' in lines
    assert "&trace     2 atoms" in lines
    assert "&kb        22 atoms" in lines
    loaded = lines.index(f"loaded {other}: 0 turns; KB of 1 entities (engine rebuilt)")
    assert lines[loaded + 1 : loaded + 3] == [
        '$e = E42, $n = "John Smith"',
        '$p = "/postprocessing/s1/T3/confidence"',
    ]
    assert lines[-1] == (
        "C1 John Smith (E42) · email = 'john.s@company.org'  Verified  KB 'john.s@company.org'"
    )


def test_terminal_session_prompts_completes_and_keeps_history(
    files: dict[str, Path], tmp_path: Path
) -> None:
    history = tmp_path / "history"
    master, slave = pty.openpty()
    env = {**os.environ, "REPLYGUARD_HISTORY": str(history), "TERM": "dumb"}
    proc = _repl("--kb", str(files["kb"]), stdin=slave, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    try:
        out = _Output(master)
        banner = out.until("replyguard> ")
        assert "2 entities" in banner and ":help lists commands" in banner
        os.write(master, b"!(+ 1 2)\n")
        assert "[3]" in out.until("replyguard> ")
        os.write(master, b":conf\taccept-threshold\n")  # tab completes ":config "
        assert "accept-threshold = 0.9" in out.until("replyguard> ")
        os.write(master, b":quit\n")
        assert proc.wait(TIMEOUT) == 0
    finally:
        proc.kill()
        os.close(master)
    assert history.read_text(encoding="utf-8").splitlines()[-3:] == [
        "!(+ 1 2)",
        ":config accept-threshold",
        ":quit",
    ]


def test_completions(engine: Engine) -> None:
    repl = Repl(engine)
    assert repl.completions(":re", ":re") == [":report ", ":reload"]
    assert "recommendation" in repl.completions(":rules recom", "recom")
    assert repl.completions(":config accept", "accept") == ["accept-threshold"]
    assert repl.completions("!(match &kb", "&kb") == []


def _recommendation_line() -> int:
    """The line of the shipped `recommendation` clause in metta/scoring.metta."""
    text = (Path(__file__).resolve().parents[1] / "metta" / "scoring.metta").read_text()
    return next(
        n for n, line in enumerate(text.splitlines(), 1) if line.startswith("(= (recommendation ")
    )
