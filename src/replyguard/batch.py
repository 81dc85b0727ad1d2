"""`replyguard batch`: check a JSONL file of cases, one result line per case, resumable.

Audits run over thousands of logged replies, so the command is built around three promises:

- **Resumable.** The output file is the record of what is done: a re-run reads the line numbers it
  already holds and checks only the rest. Every line is written whole and flushed, so a killed
  run leaves at most one torn last line, which the next run cuts off.
- **A bad line is one line.** Invalid JSON, a schema error or a reply the engine refuses is
  reported with its line number and written as an error record (so resume skips it too); the
  run goes on.
- **`-j N` changes speed, not results.** Worker processes check chunks of lines; the parent puts
  the results back in input order and is the only writer of the output and the trace. Every
  case without its own reference time gets the run's single one, so workers agree.

The CLI imports this module to build its parser, so the engine, models and trace store are
imported inside the functions that use them: `replyguard check` does not pay for them.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import signal
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from datetime import datetime
from itertools import islice
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

from replyguard.cli_options import add_engine_options
from replyguard.errors import InputError, RuleError, describe_validation_error, parse_json_line

if TYPE_CHECKING:
    from replyguard.engine import Engine
    from replyguard.models import Case, KnowledgeBase, PostprocessedResponse
    from replyguard.trace import FileTraceStore

# Lines per task sent to a worker: large enough that the hand-off is cheap next to ~10 ms per
# reply, small enough that the parent can write results (and show progress) steadily.
CHUNK_LINES = 8
# Chunks in flight per worker: keeps every worker busy while bounding what waits in memory.
CHUNKS_IN_FLIGHT = 4
# How often a worker looks whether the batch process is still there (where no death signal is).
PARENT_POLL_SECONDS = 1.0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "batch",
        help="check a JSONL file of cases (resumable, parallel)",
        description="Check every case of a JSONL file and write one result line per case. "
        "Re-running with the same output skips the lines it already holds.",
    )
    p.add_argument("cases", help="JSONL file: one case per line (the case-file format)")
    p.add_argument("-o", "--output", required=True, metavar="RESULTS", help="results JSONL")
    p.add_argument("--kb", metavar="KB", help="knowledge base for every line without a 'kb'")
    add_engine_options(p)
    p.add_argument("--trace", metavar="FILE", help="also store every result in this trace file")
    p.add_argument(
        "-j", "--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)"
    )
    p.add_argument(
        "--reference-time",
        metavar="ISO",
        help="what 'tomorrow' is resolved against in cases without reference_time "
        "(default: now, one value for the whole run)",
    )
    p.set_defaults(handler=run)


@dataclass(frozen=True)
class Settings:
    """Everything a worker needs to check a line exactly as every other worker would."""

    base_dir: Path  # `kb` paths in lines are relative to the JSONL file
    default_kb: tuple[str, KnowledgeBase] | None  # --kb: (engine cache key, loaded KB)
    rules_dir: str | None
    style: str
    reference_time: datetime


@dataclass
class Outcome:
    line: int
    case_id: str
    result: PostprocessedResponse | None = None
    error: str | None = None
    # the line's own `metadata` and `expect`, passed to its output record unread
    labels: dict[str, Any] = field(default_factory=dict)


# The fields of a line the engine does not read, which its output record carries unchanged.
LABEL_FIELDS = ("metadata", "expect")
WORKER_DIED = (
    "the worker process checking this line died (a crash in native code); the line is "
    "recorded as bad and the run goes on"
)


class Checker:
    """Checks lines; one Engine per distinct KB, since building one costs far more than a check.

    KBs given by path are keyed by resolved path, inline ones by a hash of their JSON, so a
    thousand lines that repeat the same inline KB still build one engine.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._engines: dict[str, Engine | str] = {}  # a str is the KB's error, kept once

    def check(self, line: int, raw: bytes) -> Outcome:
        """One line's outcome. Any failure is this line's error, except a rule file that cannot
        be loaded, which is every line's: it stops the run (RuleError from building an engine)."""
        outcome = Outcome(line, f"line-{line}")
        try:
            document = _json_object(raw)
            outcome.case_id = _case_id(document, line)
            outcome.labels = _labels(document)
            case, kb_key, load = self._case(document)
            engine = self._engine(kb_key, load)  # a RuleError here is the run's: not caught
            try:
                outcome.result = engine.check_case(case)
            except RuleError as exc:  # a rule that fails on this line's evidence
                outcome.error = f"rule error: {exc}"
        except InputError as exc:
            outcome.error = str(exc)
        except RuleError:
            raise
        except Exception as exc:  # an internal error on one reply must not end an audit
            if os.environ.get("REPLYGUARD_DEBUG"):
                raise
            outcome.error = f"internal error: {type(exc).__name__}: {exc}"
        return outcome

    def _case(self, document: dict[str, Any]) -> tuple[Case, str, Callable[[], KnowledgeBase]]:
        """The validated case, and its KB's cache key and loader: the KB is swapped for its key
        before validation, so it is read and validated once per engine, not once per line."""
        from pydantic import ValidationError

        from replyguard.models import Case

        key, load = self._kb_source(document.get("kb"))
        try:
            case = Case.model_validate({**document, "kb": key})
        except ValidationError as exc:
            raise InputError(describe_validation_error(exc)) from None
        if case.reference_time is None:
            case.reference_time = self.settings.reference_time
        return case, key, load

    def _kb_source(self, kb: object) -> tuple[str, Callable[[], KnowledgeBase]]:
        from replyguard.kb import load_kb

        if kb is None:
            if self.settings.default_kb is None:
                raise InputError("kb: missing (give it in the line, or --kb for every line)")
            key, default = self.settings.default_kb
            return key, lambda: default
        if isinstance(kb, str):
            path = (self.settings.base_dir / kb).resolve()
            return f"path:{path}", lambda: load_kb(path)
        if isinstance(kb, dict | list):
            try:
                digest = hashlib.sha256(json.dumps(kb, sort_keys=True).encode()).hexdigest()
            except RecursionError:
                raise InputError("kb: nested too deeply to read") from None
            return f"inline:{digest}", lambda: _inline_kb(kb)
        raise InputError(f"kb: expected a KB object or a path, got {type(kb).__name__}")

    def _engine(self, key: str, load: Callable[[], KnowledgeBase]) -> Engine:
        from replyguard.engine import Engine

        engine = self._engines.get(key)
        if engine is None:
            try:
                s = self.settings
                engine = Engine(load(), rules_dir=s.rules_dir, annotation_style=s.style)
            except InputError as exc:
                engine = str(exc)
            self._engines[key] = engine
        if isinstance(engine, str):
            raise InputError(engine)
        return engine


def _json_object(raw: bytes) -> dict[str, Any]:
    document = parse_json_line(raw)
    if not isinstance(document, dict):
        raise InputError(f"expected a JSON object (a case), got {type(document).__name__}")
    return document


def _case_id(document: dict[str, Any], line: int) -> str:
    """The line's `id` when it is usable as one (the Case model reports it otherwise)."""
    from replyguard.models import text_problem

    case_id = document.get("id")
    if isinstance(case_id, str) and case_id and text_problem(case_id) is None:
        return case_id
    return f"line-{line}"


def _labels(document: dict[str, Any]) -> dict[str, Any]:
    """The line's metadata and expect objects, for its output record; left out when they are
    not objects a record can carry (the Case model then reports them)."""
    from replyguard.models import text_problem

    return {
        key: document[key]
        for key in LABEL_FIELDS
        if isinstance(document.get(key), dict) and text_problem(document[key]) is None
    }


def _inline_kb(document: dict[str, Any] | list[Any]) -> KnowledgeBase:
    """An inline KB, read as a KB file's document is (entities nested or written as rows)."""
    from replyguard.kb import kb_from_document

    return kb_from_document(document, "kb")


# ------------------------------------------------------------------ workers

_worker: Checker | None = None


def _start_worker(settings: Settings, parent: int) -> None:
    global _worker
    _follow_parent(parent)
    _worker = Checker(settings)


def _follow_parent(parent: int) -> None:
    """End this worker when the batch process goes, even by kill -9: the kernel sends SIGKILL
    on the parent's death (Linux), and a watcher thread polls for it elsewhere."""
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None).prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # gone before the death signal was asked for
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)


def _check_chunk(chunk: list[tuple[int, bytes]]) -> list[Outcome]:
    assert _worker is not None, "the pool's initializer sets the checker"
    return [_worker.check(line, raw) for line, raw in chunk]


def _pool(settings: Settings, jobs: int) -> ProcessPoolExecutor:
    # spawn: a forked hyperon runtime is not safe to reuse; each worker builds its own engines.
    # An executor, not a Pool: if a worker dies (a native abort), a Pool would wait forever for
    # its lost task; the executor raises BrokenProcessPool.
    return ProcessPoolExecutor(
        jobs, get_context("spawn"), initializer=_start_worker, initargs=(settings, os.getpid())
    )


Chunk = list[tuple[int, bytes]]


def _outcomes(
    settings: Settings, lines: Iterable[tuple[int, bytes]], jobs: int
) -> Iterator[Outcome]:
    """Outcomes in input order, checked in worker processes (one for -j 1), so that nothing a
    line does to its process can end the run. Chunks complete out of order; waiting on the
    oldest chunk in flight puts them back in order without holding more than a window.

    When a worker dies, the pool is lost with every chunk in flight: the chunks that had
    finished keep their results, the others are checked again one line at a time, alone in a
    fresh process, so the line that kills its process is the one recorded as bad."""
    pool = _pool(settings, jobs)
    in_flight: deque[tuple[Chunk, Future[list[Outcome]]]] = deque()
    iterator = iter(lines)
    try:
        while True:
            while len(in_flight) < jobs * CHUNKS_IN_FLIGHT and (
                chunk := list(islice(iterator, CHUNK_LINES))
            ):
                in_flight.append((chunk, pool.submit(_check_chunk, chunk)))
            if not in_flight:
                return
            chunk, future = in_flight.popleft()
            try:
                outcomes = future.result()
            except BrokenProcessPool:
                lost = [(chunk, future), *in_flight]
                in_flight.clear()
                pool.shutdown(cancel_futures=True)
                for chunk, future in lost:
                    if future.done() and not future.cancelled() and future.exception() is None:
                        yield from future.result()
                    else:
                        yield from _isolated(settings, chunk)
                pool = _pool(settings, jobs)
                continue
            yield from outcomes
    finally:
        pool.shutdown(cancel_futures=True)


def _isolated(settings: Settings, chunk: Chunk) -> Iterator[Outcome]:
    """Each line of a chunk checked alone in a one-worker pool; a line its worker dies on is a
    bad line, and the next line gets a fresh worker."""
    pool = _pool(settings, 1)
    try:
        for line, raw in chunk:
            try:
                yield from pool.submit(_check_chunk, [(line, raw)]).result()
            except BrokenProcessPool:
                yield Outcome(line, _died_case_id(raw, line), error=WORKER_DIED)
                pool.shutdown(cancel_futures=True)
                pool = _pool(settings, 1)
    finally:
        pool.shutdown(cancel_futures=True)


def _died_case_id(raw: bytes, line: int) -> str:
    try:
        return _case_id(_json_object(raw), line)
    except InputError:
        return f"line-{line}"


# ------------------------------------------------------------------ files


def _lines(path: Path, skip: set[int]) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) of every non-blank line not in `skip`; numbers count every line."""
    try:
        with open(path, "rb") as fh:
            for number, raw in enumerate(fh, 1):
                if number not in skip and raw.strip():
                    yield number, raw
    except OSError as exc:
        raise InputError(f"{path}: cannot read cases file ({exc.strerror})") from None


def _open_output(path: Path) -> BinaryIO:
    """The output for reading back and appending, locked: two runs appending to one file would
    each skip only what they saw at the start and write every later line twice."""
    try:
        fh = open(path, "a+b")  # noqa: SIM115 - returned to the caller's `with`
    except OSError as exc:
        raise InputError(f"{path}: cannot open the output ({exc.strerror})") from None
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.close()
        raise InputError(f"{path}: another batch run is writing it") from None
    return fh


@dataclass
class Resumed:
    """What the output already holds: every input line done, how many of them are errors, and
    where each result record is, with its session and turn (the keys of its trace entry)."""

    done: set[int] = field(default_factory=set)
    errors: int = 0
    results: dict[int, tuple[int, str | None, str | None]] = field(default_factory=dict)


def _resume(fh: BinaryIO, path: Path) -> Resumed:
    """The output's records, read back.

    A last line without its newline is the one in flight when a run was killed: it is cut off
    (and rechecked). Any other line that is not a result means this is not our file: refuse.
    """
    resumed = Resumed()
    offset = 0
    fh.seek(0)
    for number, raw in enumerate(fh, 1):
        if not raw.endswith(b"\n"):
            fh.truncate(offset)
            print(
                f"{path}: dropped a torn last line ({len(raw)} bytes) left by an "
                "interrupted run; it is checked again",
                file=sys.stderr,
            )
            break
        try:
            record = json.loads(raw)
            line = record["line"]
            if type(line) is not int or not ("result" in record or "error" in record):
                raise TypeError
            if "result" in record:
                result = record["result"]
                keys = (result.get("session_id"), result.get("turn_id"))
        except (ValueError, TypeError, KeyError, AttributeError):
            raise InputError(
                f"{path}:{number}: not a replyguard batch result; refusing to append to it"
            ) from None
        resumed.done.add(line)
        if "result" in record:
            resumed.results[line] = (offset, *keys)
        else:
            resumed.errors += 1
        offset += len(raw)
    return resumed


def _restore_trace(
    store: FileTraceStore, out: BinaryIO, resumed: Resumed, default_session: str
) -> list[int]:
    """The lines whose result the output holds but the trace lost (a corrupt record moved aside
    on open, a deleted trace file), their entries written again from the output's results:
    the output is the record of what is done, and rechecking would write those lines twice."""
    from pydantic import ValidationError

    from replyguard.models import PostprocessedResponse
    from replyguard.trace_paths import turn_prefixes, write_result

    lost = []  # found before any is written: lines sharing a turn would hide each other
    for line, (offset, session, turn) in resumed.results.items():
        session, turn = session or default_session, turn or f"line-{line}"
        base, _ = turn_prefixes(session, turn)
        if store.get(f"{base}/input/llm_response") is None:
            lost.append((offset, line, session, turn))
    for offset, line, session, turn in sorted(lost):  # in the order first written: last wins
        out.seek(offset)
        try:
            result = PostprocessedResponse.model_validate(json.loads(out.readline())["result"])
        except ValidationError as exc:
            raise InputError(
                f"line {line}'s result in the output cannot be read back to restore its "
                f"trace ({describe_validation_error(exc)})"
            ) from None
        write_result(store, result, session, turn)
    restored = sorted(line for _, line, _, _ in lost)
    out.seek(0, os.SEEK_END)
    return restored


def _record(outcome: Outcome) -> bytes:
    record: dict[str, Any] = {"line": outcome.line, "case_id": outcome.case_id, **outcome.labels}
    if outcome.result is not None:
        record["result"] = outcome.result.model_dump(mode="json")
    else:
        record["error"] = outcome.error
    # ASCII: a lone surrogate from the input stays a valid \u escape instead of failing.
    return (json.dumps(record) + "\n").encode("ascii")


def _open_trace(path: str | None) -> FileTraceStore | None:
    """The trace store, or None. Not fsynced per result: a crash costs at most the results the
    output file would also lose, and a re-run rewrites them (each write replaces its turn)."""
    if path is None:
        return None
    from replyguard.trace import FileTraceStore, TraceStoreError

    try:
        store = FileTraceStore(path, fsync=False)
    except TraceStoreError as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"{path}: cannot open trace file ({exc.strerror})") from None
    if store.recovered:
        print(f"{path}: {store.recovered}", file=sys.stderr)
    return store


# ------------------------------------------------------------------ reporting


class Progress:
    """done/total, rate and ETA on one redrawn stderr line, only when stderr is a terminal."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total, self.done, self.stream = total, 0, stream
        self.enabled = total > 0 and stream.isatty()
        self.started = self.drawn = time.perf_counter()

    def advance(self) -> None:
        self.done += 1
        now = time.perf_counter()
        if self.enabled and (now - self.drawn >= 0.1 or self.done == self.total):
            self.drawn = now
            rate = self.done / max(now - self.started, 1e-9)
            eta = int((self.total - self.done) / rate)
            filled = 30 * self.done // self.total
            bar = "#" * filled + "-" * (30 - filled)
            self.stream.write(
                f"\r[{bar}] {self.done}/{self.total}  {rate:.1f}/s  ETA {eta // 60}:{eta % 60:02d}"
            )
            self.stream.flush()

    def message(self, text: str) -> None:
        """A line of its own, without tearing the bar."""
        self.clear()
        print(text, file=self.stream)

    def clear(self) -> None:
        if self.enabled:
            self.stream.write("\r\033[K")
            self.stream.flush()


@dataclass
class Summary:
    skipped: int
    earlier_errors: int
    checked: int = 0
    errors: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    flags: Counter[str] = field(default_factory=Counter)

    def add(self, result: PostprocessedResponse) -> None:
        self.checked += 1
        self.kinds[result.recommendation.kind.value] += 1
        self.flags.update(f.hallucination_type.value for f in result.hallucination_flags)

    def render(self, seconds: float, reference_time: datetime) -> str:
        from replyguard.models import HallucinationType, RecommendationKind

        kinds = ", ".join(f"{k.value} {self.kinds[k.value]}" for k in RecommendationKind)
        flags = ", ".join(
            f"{t.value} {self.flags[t.value]}" for t in HallucinationType if self.flags[t.value]
        )
        earlier = f" (plus {self.earlier_errors} in earlier runs)" if self.earlier_errors else ""
        return "\n".join(
            [
                f"lines: {self.checked} checked, {self.errors} bad{earlier}, "
                f"{self.skipped} already done (skipped)",
                f"recommendations: {kinds}",
                f"flags: {flags or 'none'}",
                f"time: {seconds:.1f} s, {self.checked / max(seconds, 1e-9):.1f} replies/s",
                f"reference time for cases without one: {reference_time.isoformat()}",
            ]
        )


# ------------------------------------------------------------------ the command


def _settings(args: argparse.Namespace, source: Path) -> Settings:
    """Arguments checked before any file is touched, so a typo costs nothing."""
    from replyguard.kb import load_kb

    if not source.is_file():
        raise InputError(f"{source}: cases file not found")
    if args.jobs < 1:
        raise InputError(f"-j: expected at least 1 process, got {args.jobs}")
    if args.rules is not None and not Path(args.rules).is_dir():
        raise InputError(f"{args.rules}: rules directory not found")
    output = Path(args.output)
    if output.resolve() == source.resolve():
        raise InputError(f"{output}: the output must not be the cases file")
    if output.is_dir() or not output.parent.is_dir():
        raise InputError(f"{output}: not a file in an existing folder")
    if args.reference_time is None:
        reference = datetime.now().replace(microsecond=0)
    else:
        try:
            reference = datetime.fromisoformat(args.reference_time)
        except ValueError:
            raise InputError(
                f"--reference-time: expected an ISO datetime, got {args.reference_time!r}"
            ) from None
    default_kb = None
    if args.kb is not None:
        kb_path = Path(args.kb).resolve()
        default_kb = (f"path:{kb_path}", load_kb(kb_path))
    return Settings(source.parent, default_kb, args.rules, args.style, reference)


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    source, output = Path(args.cases), Path(args.output)
    settings = _settings(args, source)
    with _open_output(output) as out:
        resumed = _resume(out, output)
        done = resumed.done
        total = sum(1 for _ in _lines(source, done))
        summary = Summary(skipped=len(done), earlier_errors=resumed.errors)
        progress = Progress(total, sys.stderr)
        store = _open_trace(args.trace)
        try:
            if store is not None:
                _report_restored(
                    args.trace, output, _restore_trace(store, out, resumed, source.stem)
                )
            for outcome in _outcomes(settings, _lines(source, done), args.jobs):
                if outcome.result is not None and store is not None:
                    _trace(store, outcome, source.stem)
                if outcome.result is None:
                    summary.errors += 1
                    progress.message(f"{source}:{outcome.line}: {outcome.error}")
                else:
                    summary.add(outcome.result)
                # The trace first: a result in the output then always has its trace.
                out.write(_record(outcome))
                out.flush()
                progress.advance()
        finally:
            progress.clear()
            if store is not None:
                store.close()
    print(summary.render(time.perf_counter() - started, settings.reference_time))
    return 1 if summary.errors or resumed.errors else 0


def _report_restored(trace: str, output: Path, restored: list[int]) -> None:
    if restored:
        shown = ", ".join(map(str, restored[:20])) + (", ..." if len(restored) > 20 else "")
        print(
            f"{trace}: the trace had lost the entries of {len(restored)} results in {output} "
            f"(lines {shown}); written again from the output",
            file=sys.stderr,
        )


def _trace(store: FileTraceStore, outcome: Outcome, default_session: str) -> None:
    """Store a result in the trace; one it cannot hold (an id the trace refuses) makes the line
    a bad line instead."""
    from replyguard.trace_paths import write_result

    result = outcome.result
    assert result is not None
    session = result.session_id or default_session
    try:
        write_result(store, result, session, result.turn_id or f"line-{outcome.line}")
    except ValueError as exc:
        outcome.result, outcome.error = None, f"trace: cannot store this result ({exc})"
