"""`replyguard trace list|show`: read a trace file from the shell.

An audit's trace holds every checked reply under `/postprocessing/{session}/{turn}/…`; these
commands answer "which sessions and turns are there" (`list --depth`) and "what was stored for
this one" (`show`), without writing a line of Python. The file is opened read-only: a reader takes
no lock, so it works while a batch run is still writing, and stops at the last complete record.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from replyguard.errors import InputError

if TYPE_CHECKING:
    from replyguard.trace import FileTraceStore


def register(subparsers: argparse._SubParsersAction) -> None:
    trace = subparsers.add_parser("trace", help="read a trace file (list paths, show values)")
    sub = trace.add_subparsers(dest="trace", required=True, metavar="WHAT")

    listing = sub.add_parser("list", help="paths under a prefix, or the distinct prefixes")
    listing.add_argument("file", help="trace file (written by `batch --trace` or the Python API)")
    listing.add_argument("prefix", nargs="?", default="", help="e.g. /postprocessing/s1")
    listing.add_argument(
        "--depth",
        type=int,
        metavar="N",
        help="list distinct prefixes of N segments instead (2: /postprocessing/SESSION)",
    )
    listing.set_defaults(handler=run)

    show = sub.add_parser("show", help="the values under a prefix")
    show.add_argument("file", help="trace file")
    show.add_argument("prefix", help="e.g. /postprocessing/s1/T3")
    form = show.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="nested JSON from the root")
    form.add_argument("--metta", action="store_true", help='MeTTa atoms: (trace "path" value)')
    show.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from replyguard.trace_paths import normalize_prefix

    depth = getattr(args, "depth", None)
    if depth is not None and depth < 1:
        raise InputError(f"--depth: expected at least 1 segment, got {depth}")
    try:
        prefix = normalize_prefix(args.prefix)
    except ValueError as exc:
        raise InputError(f"prefix: {exc}") from None
    store = open_trace(args.file)
    leaves = list(store.scan(prefix))
    if not leaves:
        print(f"{args.file}: nothing stored under {prefix or '/'}", file=sys.stderr)
        return 1
    if args.trace == "list":
        paths = [path for path, _ in leaves]
        print("\n".join(paths if depth is None else _prefixes(paths, depth)))
    elif args.json:
        print(json.dumps(store.export_json(prefix), indent=2))
    elif args.metta:
        print(store.export_metta(prefix), end="")
    else:
        print(
            "\n".join(f"{path} = {json.dumps(value, ensure_ascii=False)}" for path, value in leaves)
        )
    return 0


def _prefixes(paths: list[str], depth: int) -> list[str]:
    """Distinct prefixes of `depth` segments, in scan order (a subtree stays together)."""
    return list(dict.fromkeys("/" + "/".join(path.split("/")[1 : depth + 1]) for path in paths))


def open_trace(path: str) -> FileTraceStore:
    """A trace file opened for reading; a missing or broken one is a one-line InputError."""
    from replyguard.trace import FileTraceStore, TraceStoreError

    try:
        return FileTraceStore(path, readonly=True)
    except FileNotFoundError:
        raise InputError(f"{path}: trace file not found") from None
    except TraceStoreError as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read trace file ({exc.strerror})") from None
