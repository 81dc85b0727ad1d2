"""`replyguard session`: a dialogue fed turn by turn on stdin, one JSON object per line.

    {"speaker": "user", "text": "John works in Engineering."}       adds a turn
    {"check": "John is in Marketing.", "query": "..."}              checks a reply -> one line out
    {"check": "...", "passages": ["a retrieved document", ...]}     ... against passages

A chat backend (or a script) can keep one process per conversation and stream its messages; the
session keeps the dialogue state incrementally (replyguard.session).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime

from pydantic import TypeAdapter, ValidationError

from replyguard.cli_options import add_engine_options
from replyguard.engine import Engine
from replyguard.errors import InputError, describe_validation_error

_WHEN = TypeAdapter(datetime)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("session", help="feed a dialogue turn by turn on stdin (JSON lines)")
    p.add_argument("--kb", required=True, help="the knowledge base (.json, .csv, .tsv)")
    p.add_argument("--id", help="session id carried into the results")
    add_engine_options(p)
    p.set_defaults(handler=run)


def _time(value: object, field: str) -> datetime | None:
    if value is None:
        return None
    try:
        return _WHEN.validate_python(value)
    except ValidationError as exc:
        raise InputError(f"{field}: {describe_validation_error(exc)}") from None


def handle(session, event: object) -> str | None:  # noqa: ANN001 - a Session
    """Apply one event; the result line for a check, None for a turn."""
    if not isinstance(event, dict):
        raise InputError("expected a JSON object")
    if "check" in event:
        unknown = set(event) - {"check", "query", "turn_id", "reference_time", "passages"}
        if unknown:
            raise InputError(f"{sorted(unknown)[0]}: unknown field")
        result = session.check(
            event["check"],
            event.get("query"),
            reference_time=_time(event.get("reference_time"), "reference_time"),
            turn_id=event.get("turn_id"),
            passages=event.get("passages", ()),
        )
        return result.model_dump_json()
    unknown = set(event) - {"speaker", "text", "id", "timestamp", "act"}
    if unknown or "text" not in event or "speaker" not in event:
        missing = "speaker" if "speaker" not in event else "text"
        field = sorted(unknown)[0] if unknown else missing
        raise InputError(f"{field}: {'unknown field' if unknown else 'field required'}")
    session.add_turn(
        event["speaker"],
        event["text"],
        id=event.get("id"),
        timestamp=_time(event.get("timestamp"), "timestamp"),
        act=event.get("act"),
    )
    return None


def run(args: argparse.Namespace) -> int:
    engine = Engine(args.kb, rules_dir=args.rules, annotation_style=args.style)
    session = engine.session(args.id)
    failed = False
    for number, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        try:
            out = handle(session, json.loads(line))
        except json.JSONDecodeError as exc:
            print(f"stdin:{number}: invalid JSON ({exc.msg})", file=sys.stderr)
            failed = True
            continue
        except InputError as exc:
            print(f"stdin:{number}: {exc}", file=sys.stderr)
            failed = True
            continue
        if out is not None:
            print(out, flush=True)
    return 1 if failed else 0
