"""`replyguard session`: a dialogue fed turn by turn on stdin, one JSON object per line.

    {"speaker": "user", "text": "John works in Engineering."}       adds a turn
    {"role": "user", "content": "John works in Engineering."}       ... an OpenAI chat message
    {"check": "John is in Marketing.", "query": "..."}              checks a reply -> one line out
    {"check": "...", "passages": ["a retrieved document", ...]}     ... against passages

A chat backend (or a script) can keep one process per conversation and stream its messages; the
session keeps the dialogue state incrementally (replyguard.session). A bad line is one line on
stderr ("stdin:N: field: problem") and changes nothing; a check line always gets one line out,
its result or {"line": N, "error": "..."}. The format is in docs/session.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import datetime

from pydantic import TypeAdapter, ValidationError

from replyguard.cli_options import add_engine_options
from replyguard.engine import Engine
from replyguard.errors import InputError, describe_validation_error, parse_json_line
from replyguard.models import Turn
from replyguard.session import Session

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


_CHECK_FIELDS = {"check", "query", "turn_id", "reference_time", "passages"}


def handle(session: Session, event: object) -> str | None:
    """Apply one event; the result line for a check, None for a turn."""
    if not isinstance(event, dict):
        raise InputError(f"expected a JSON object, got {type(event).__name__}")
    if "check" in event:
        unknown = set(event) - _CHECK_FIELDS
        if unknown:
            raise InputError(f"{sorted(unknown)[0]}: unknown field")
        try:
            result = session.check(
                event["check"],
                event.get("query"),
                reference_time=_time(event.get("reference_time"), "reference_time"),
                turn_id=event.get("turn_id"),
                passages=event.get("passages", ()),
            )
        except InputError as exc:  # the API calls the reply `response`; this line, `check`
            message = str(exc)
            if message.startswith("response:"):
                message = "check:" + message.removeprefix("response:")
            raise InputError(message) from None
        return result.model_dump_json()
    try:
        turn = Turn.model_validate(event)
    except ValidationError as exc:
        raise InputError(describe_validation_error(exc)) from None
    session.add_turn(turn.speaker, turn.text, id=turn.id, timestamp=turn.timestamp, act=turn.act)
    return None


def run(args: argparse.Namespace) -> int:
    engine = Engine(args.kb, rules_dir=args.rules, annotation_style=args.style)
    session = engine.session(args.id)
    failed = False
    for number, raw in enumerate(sys.stdin.buffer, start=1):
        event = None
        try:
            event = _event(raw)
            if event is None:
                continue
            out = handle(session, event)
        except InputError as exc:
            error = str(exc)
        except Exception as exc:  # one line must not end a conversation's session
            if os.environ.get("REPLYGUARD_DEBUG"):
                raise
            error = f"internal error: {type(exc).__name__}: {exc}"
        else:
            if out is not None:
                print(out, flush=True)
            continue
        failed = True
        print(f"stdin:{number}: {error}", file=sys.stderr, flush=True)
        if isinstance(event, dict) and "check" in event:
            # A client waits for one line per check: it gets the error in its place.
            print(json.dumps({"line": number, "error": error}), flush=True)
    return 1 if failed else 0


def _event(raw: bytes) -> object:
    """One stdin line as JSON, None for a blank line."""
    return parse_json_line(raw) if raw.strip() else None
