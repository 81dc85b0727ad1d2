"""ServeConfig: one TOML file (documented in docs/service.md), command-line overrides, and secrets
from the environment (never from the file, which is usually committed).

    [serve]     kb, rules, host, port, workers, annotation_style
    [limits]    max_body_bytes, max_reply_chars, max_pending, check_timeout_seconds,
                retry_after_seconds
    [sessions]  store (a SQLite file path or a postgresql:// URL), ttl_seconds
    [engine]    overrides of settings in metta/config.metta (name = number or boolean)
    [upstream]  url, model: the OpenAI-compatible endpoint the proxy forwards to
    [proxy]     read by the proxy's own modules from `config.tables["proxy"]`

Environment: REPLYGUARD_API_KEYS (comma-separated bearer keys; none = routes are open),
REPLYGUARD_UPSTREAM_API_KEY, REPLYGUARD_SESSION_STORE (overrides [sessions] store, for a URL
holding a password).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from replyguard.errors import InputError, read_input_file

_TABLES: dict[str, dict[str, type | tuple[type, ...]]] = {
    "serve": {
        "kb": str,
        "rules": str,
        "host": str,
        "port": int,
        "workers": int,
        "annotation_style": str,
    },
    "limits": {
        "max_body_bytes": int,
        "max_reply_chars": int,
        "max_pending": int,
        "check_timeout_seconds": (int, float),
        "retry_after_seconds": int,
    },
    "sessions": {"store": str, "ttl_seconds": (int, float)},
    "upstream": {"url": str, "model": str},
}
# Tables whose keys other modules check: [engine] the Engine, [proxy] the proxy.
_FREE_TABLES = ("engine", "proxy")
_FIELD_OF = {("upstream", "url"): "upstream_url", ("upstream", "model"): "upstream_model"}
_STORE_FIELD = {("sessions", "store"): "session_store", ("sessions", "ttl_seconds"): "session_ttl"}


@dataclass(frozen=True)
class ServeConfig:
    kb: str | None = None
    rules: str | None = None
    host: str = "127.0.0.1"
    port: int = 8080
    workers: int = 1
    annotation_style: str = "plain"
    max_body_bytes: int = 1_000_000
    max_reply_chars: int = 20_000
    max_pending: int = 64  # checks waiting or running in the pool; more are answered 429
    check_timeout_seconds: float = 30.0
    retry_after_seconds: int = 1
    session_store: str = "replyguard-sessions.sqlite3"
    session_ttl: float = 3600.0
    upstream_url: str | None = None
    upstream_model: str | None = None
    engine: dict[str, object] = field(default_factory=dict)
    api_keys: tuple[str, ...] = ()
    upstream_api_key: str | None = field(default=None, repr=False)
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)  # the file as read

    def __post_init__(self) -> None:
        for name in ("port", "workers", "max_body_bytes", "max_reply_chars", "max_pending"):
            if getattr(self, name) < 1:
                raise InputError(f"{name}: must be a positive number")
        for name in ("check_timeout_seconds", "session_ttl"):
            if getattr(self, name) <= 0:
                raise InputError(f"{name}: must be a positive number")

    def with_overrides(self, **values: object) -> ServeConfig:
        """A copy with the given fields set, skipping those given as None (unset CLI flags)."""
        known = {f.name for f in fields(self)}
        given = {k: v for k, v in values.items() if v is not None}
        for key in given:
            if key not in known:
                raise InputError(f"{key}: not a setting")
        return replace(self, **given)  # type: ignore[arg-type]


def load_config(
    path: str | Path | None = None, environ: dict[str, str] | None = None
) -> ServeConfig:
    """The file's settings (relative paths resolved against its folder) and the environment's
    secrets. A wrong key or type is an InputError naming the file and `table.key`."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    tables: dict[str, dict[str, Any]] = {}
    if path is not None:
        p = Path(path)
        try:
            tables = tomllib.loads(read_input_file(p, "config file"))
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"{p}: invalid TOML ({exc})") from None
        values = _read_tables(tables, str(p), p.parent)
    keys = tuple(k.strip() for k in env.get("REPLYGUARD_API_KEYS", "").split(",") if k.strip())
    values["api_keys"] = keys
    values["upstream_api_key"] = env.get("REPLYGUARD_UPSTREAM_API_KEY") or None
    if env.get("REPLYGUARD_SESSION_STORE"):
        values["session_store"] = env["REPLYGUARD_SESSION_STORE"]
    return ServeConfig(**values, tables=tables)


def _read_tables(tables: dict[str, Any], origin: str, base: Path) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, table in tables.items():
        if name not in _TABLES and name not in _FREE_TABLES:
            raise InputError(f"{origin}: [{name}]: unknown table")
        if not isinstance(table, dict):
            raise InputError(f"{origin}: {name}: expected a table")
        if name == "engine":
            values["engine"] = dict(table)
            continue
        for key, value in table.items():
            if name == "proxy":
                continue
            expected = _TABLES[name].get(key)
            if expected is None:
                raise InputError(f"{origin}: {name}.{key}: unknown setting")
            if not isinstance(value, expected) or isinstance(value, bool):
                raise InputError(f"{origin}: {name}.{key}: expected {_type_name(expected)}")
            target = _FIELD_OF.get((name, key)) or _STORE_FIELD.get((name, key)) or key
            if key in ("kb", "rules") or (key == "store" and "://" not in value):
                value = str((base / value).resolve()) if not Path(value).is_absolute() else value
            values[target] = value
    return values


def _type_name(expected: type | tuple[type, ...]) -> str:
    kinds = expected if isinstance(expected, tuple) else (expected,)
    return "a number" if float in kinds else {str: "text", int: "a whole number"}[kinds[0]]
