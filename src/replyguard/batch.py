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
import sys
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from itertools import islice
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

from replyguard.cli_options import add_engine_options
from replyguard.errors import InputError, ReplyguardError, describe_validation_error

if TYPE_CHECKING:
    from replyguard.engine import Engine
    from replyguard.models import Case, KnowledgeBase, PostprocessedResponse
    from replyguard.trace import FileTraceStore

# Lines per task sent to a worker: large enough that the hand-off is cheap next to ~10 ms per
# reply, small enough that the parent can write results (and show progress) steadily.
CHUNK_LINES = 8
# Chunks in flight per worker: keeps every worker busy while bounding what waits in memory.
CHUNKS_IN_FLIGHT = 4


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


class Checker:
    """Checks lines; one Engine per distinct KB, since building one costs far more than a check.

    KBs given by path are keyed by resolved path, inline ones by a hash of their JSON, so a
    thousand lines that repeat the same inline KB still build one engine.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._engines: dict[str, Engine | str] = {}  # a str is the KB's error, kept once

    def check(self, line: int, raw: bytes) -> Outcome:
        case_id = f"line-{line}"
        try:
            document = _json_object(raw)
            if "id" in document:
                case_id = document.pop("id")
                if not isinstance(case_id, str) or not case_id:
                    case_id = f"line-{line}"
                    raise InputError("id: expected a non-empty string")
            case, kb_key, load = self._case(document)
            return Outcome(line, case_id, result=self._engine(kb_key, load).check_case(case))
        except InputError as exc:
            return Outcome(line, case_id, error=str(exc))
        except ReplyguardError:
            raise  # a rule error is the run's problem, not this line's: stop
        except Exception as exc:  # an internal error on one reply must not end an audit
            if os.environ.get("REPLYGUARD_DEBUG"):
                raise
            return Outcome(line, case_id, error=f"internal error: {type(exc).__name__}: {exc}")

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
        if isinstance(kb, dict):
            digest = hashlib.sha256(json.dumps(kb, sort_keys=True).encode()).hexdigest()
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
    try:
        document = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(document, dict):
        raise InputError(f"expected a JSON object (a case), got {type(document).__name__}")
    return document


def _inline_kb(document: dict[str, Any]) -> KnowledgeBase:
    from pydantic import ValidationError

    from replyguard.models import KnowledgeBase

    try:
        return KnowledgeBase.model_validate(document)
    except ValidationError as exc:
        raise InputError(f"kb: {describe_validation_error(exc)}") from None


# ------------------------------------------------------------------ workers

_worker: Checker | None = None


def _start_worker(settings: Settings) -> None:
    global _worker
    _worker = Checker(settings)


def _check_chunk(chunk: list[tuple[int, bytes]]) -> list[Outcome]:
    assert _worker is not None, "the pool's initializer sets the checker"
    return [_worker.check(line, raw) for line, raw in chunk]


def _outcomes(
    settings: Settings, lines: Iterable[tuple[int, bytes]], jobs: int
) -> Iterator[Outcome]:
    """Outcomes in input order. With several jobs, chunks complete out of order; waiting on the
    oldest chunk in flight puts them back in order without holding more than a window."""
    if jobs == 1:
        checker = Checker(settings)
        for line, raw in lines:
            yield checker.check(line, raw)
        return
    # spawn: a forked hyperon runtime is not safe to reuse; each worker builds its own engines.
    # An executor, not a Pool: if a worker dies (a native abort), a Pool would wait forever for
    # its lost task; the executor raises BrokenProcessPool and the run stops, resumable.
    pool = ProcessPoolExecutor(
        jobs, get_context("spawn"), initializer=_start_worker, initargs=(settings,)
    )
    try:
        in_flight: deque[Future[list[Outcome]]] = deque()
        iterator = iter(lines)
        while chunk := list(islice(iterator, CHUNK_LINES)):
            in_flight.append(pool.submit(_check_chunk, chunk))
            if len(in_flight) >= jobs * CHUNKS_IN_FLIGHT:
                yield from in_flight.popleft().result()
        while in_flight:
            yield from in_flight.popleft().result()
    finally:
        pool.shutdown(cancel_futures=True)


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


def _resume(fh: BinaryIO, path: Path) -> tuple[set[int], int]:
    """The input line numbers the output already holds, and how many of those are errors.

    A last line without its newline is the one in flight when a run was killed: it is cut off
    (and rechecked). Any other line that is not a result means this is not our file: refuse.
    """
    done: set[int] = set()
    errors = 0
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
        except (ValueError, TypeError, KeyError):
            raise InputError(
                f"{path}:{number}: not a replyguard batch result; refusing to append to it"
            ) from None
        done.add(line)
        errors += "error" in record
        offset += len(raw)
    return done, errors


def _record(outcome: Outcome) -> bytes:
    record: dict[str, Any] = {"line": outcome.line, "case_id": outcome.case_id}
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
        done, earlier_errors = _resume(out, output)
        total = sum(1 for _ in _lines(source, done))
        summary = Summary(skipped=len(done), earlier_errors=earlier_errors)
        progress = Progress(total, sys.stderr)
        store = _open_trace(args.trace)
        try:
            for outcome in _outcomes(settings, _lines(source, done), args.jobs):
                if outcome.result is None:
                    summary.errors += 1
                    progress.message(f"{source}:{outcome.line}: {outcome.error}")
                else:
                    summary.add(outcome.result)
                    if store is not None:
                        _trace(store, outcome, source.stem)
                # The trace first: a result in the output then always has its trace.
                out.write(_record(outcome))
                out.flush()
                progress.advance()
        finally:
            progress.clear()
            if store is not None:
                store.close()
    print(summary.render(time.perf_counter() - started, settings.reference_time))
    return 1 if summary.errors or earlier_errors else 0


def _trace(store: FileTraceStore, outcome: Outcome, default_session: str) -> None:
    from replyguard.trace_paths import write_result

    result = outcome.result
    assert result is not None
    session = result.session_id or default_session
    write_result(store, result, session, result.turn_id or f"line-{outcome.line}")
