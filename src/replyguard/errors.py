"""Errors a user can act on: one line naming the file, field, rule or line at fault."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from replyguard.models import TEXT_FIELD_MARK, enum_hint


class ReplyguardError(Exception):
    """Base of every error replyguard raises on purpose; the CLI prints it as one line."""


class InputError(ReplyguardError):
    """A KB, dialogue or case file (or an API argument) that cannot be used as given."""


class RuleError(ReplyguardError):
    """A rule file or grammar that cannot be loaded: the message names the file and line."""


def read_input_file(path: Path, what: str) -> str:
    """The text of a file the user named, or an `InputError` saying "{path}: {what} not found"
    or that it cannot be read."""
    try:
        return path.read_text(encoding="utf-8-sig")  # a byte-order mark is not content
    except FileNotFoundError:
        raise InputError(f"{path}: {what} not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read {what} ({exc.__class__.__name__})") from None


def describe_validation_error(exc: ValidationError) -> str:
    """The first problem of a pydantic error as "field.path: message" (plus a count of others)."""
    errors = exc.errors()
    # Of a union's failed branches, the deepest path is the one the author meant.
    first = max(errors, key=lambda e: len([p for p in e["loc"] if not _is_union_tag(p)]))
    parts = [str(part) for part in first["loc"] if not _is_union_tag(part)]
    msg = first["msg"].removeprefix("Value error, ")
    if msg.startswith(TEXT_FIELD_MARK):  # a model's check that names one of its fields
        field, _, msg = msg.removeprefix(TEXT_FIELD_MARK).partition(": ")
        parts.append(field)
    loc = ".".join(parts)
    if first["type"] == "extra_forbidden":
        msg = "unknown field"
    elif first["type"] == "enum":
        msg += enum_hint(str(first.get("ctx", {}).get("expected", "")))
    more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
    return f"{loc or '<root>'}: {msg}{more}"


_UNION_TAGS = {"str", "int", "float", "bool", "KnowledgeBase", "AttributeValue", "DialogueState"}


def _is_union_tag(part: object) -> bool:
    """Union branch names pydantic puts in error paths ("str", "AttributeValue")."""
    return isinstance(part, str) and (
        part in _UNION_TAGS or part.startswith(("list[", "function-"))
    )


def parse_json(text: str, where: str) -> object:
    """A JSON document, or an InputError naming `where` and the line: invalid JSON and JSON
    nested too deeply to read are the user's to fix, not internal errors."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: line {exc.lineno}: invalid JSON ({exc.msg})") from None
    except RecursionError:
        raise InputError(f"{where}: invalid JSON (nested too deeply to read)") from None


def parse_json_line(raw: bytes) -> object:
    """One line of a JSON-lines stream (a batch file, a session's stdin), or an InputError whose
    message the caller prefixes with the line's number. A byte-order mark is not content."""
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise InputError("invalid JSON (nested too deeply to read)") from None
