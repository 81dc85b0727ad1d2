"""SessionStore: conversations kept server-side, so a restart or a second replica continues them.

One local SQLite file by default; a `postgresql://` URL (the `postgres` extra, psycopg) for
several replicas sharing sessions. Two tables: `rg_sessions(id, created, touched)` and
`rg_turns(session_id, seq, turn)`, a turn stored as its JSON (id and timestamp always set, so a
replay reads it exactly as the first time). A session untouched for `ttl` seconds is expired:
reading it deletes it, and `purge` removes every expired one.

Appends to one session are serialised by the database (SQLite's write lock, PostgreSQL's row
lock on the session), so two replicas adding turns at once cannot give two turns one number.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from replyguard.errors import InputError, describe_validation_error
from replyguard.models import Turn

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS rg_sessions ("
    " id TEXT PRIMARY KEY, created DOUBLE PRECISION NOT NULL, touched DOUBLE PRECISION NOT NULL)",
    "CREATE TABLE IF NOT EXISTS rg_turns ("
    " session_id TEXT NOT NULL, seq INTEGER NOT NULL, turn TEXT NOT NULL,"
    " PRIMARY KEY (session_id, seq))",
)


class SessionStore:
    def __init__(self, target: str, ttl: float) -> None:
        self.target = target
        self.ttl = ttl
        self._lock = threading.Lock()
        self._postgres = target.startswith(("postgresql://", "postgres://"))
        if self._postgres:
            try:
                import psycopg
            except ImportError:
                raise InputError(
                    "sessions.store: a PostgreSQL URL needs psycopg: "
                    "pip install 'replyguard[postgres]'"
                ) from None
            try:
                self._db: Any = psycopg.connect(target)
            except psycopg.Error as exc:
                raise InputError(f"sessions.store: cannot connect ({exc})") from None
        else:
            try:
                Path(target).parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(
                    target, check_same_thread=False, isolation_level=None, timeout=30
                )
                self._db.execute("PRAGMA journal_mode=WAL")
                # a session survives the service crashing; a power cut may lose its last turn
                self._db.execute("PRAGMA synchronous=NORMAL")
            except (OSError, sqlite3.Error) as exc:
                raise InputError(f"{target}: cannot open the session store ({exc})") from None
        with self._transaction() as cur:
            for statement in _SCHEMA:
                cur.execute(statement)

    @contextmanager
    def _transaction(self) -> Iterator[Any]:
        with self._lock:
            if self._postgres:
                with self._db.transaction(), self._db.cursor() as cur:
                    yield _Cursor(cur, "%s")
                return
            cur = self._db.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                yield _Cursor(cur, "?")
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            cur.execute("COMMIT")

    def append(self, session_id: str, turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Add turns (ids T1, T2, ... and the time now where absent); every turn of the session
        after it. A bad turn or an id already used is an InputError naming it; nothing is added."""
        now = time.time()
        with self._transaction() as cur:
            stored = self._read(cur, session_id, now)
            cur.execute(
                "INSERT INTO rg_sessions (id, created, touched) VALUES (?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET touched = excluded.touched",
                (session_id, now, now),
            )
            if stored is None:  # created or expired under this lock: read again, now locked
                stored = self._read(cur, session_id, now) or []
            ids = {t["id"] for t in stored}
            added = []
            for k, raw in enumerate(turns):
                turn = _turn(raw, f"turns.{k}", f"T{len(stored) + len(added) + 1}")
                if turn["id"] in ids:
                    raise InputError(
                        f"turns.{k}.id: turn {turn['id']!r} is already in this session"
                    )
                ids.add(turn["id"])
                added.append(turn)
            for k, turn in enumerate(added):
                cur.execute(
                    "INSERT INTO rg_turns (session_id, seq, turn) VALUES (?, ?, ?)",
                    (session_id, len(stored) + k, json.dumps(turn)),
                )
        return stored + added

    def get(self, session_id: str) -> dict[str, Any] | None:
        """{id, created, touched, expires_at, turns}, touching the session; None if absent."""
        now = time.time()
        with self._transaction() as cur:
            turns = self._read(cur, session_id, now)
            if turns is None:
                return None
            cur.execute("UPDATE rg_sessions SET touched = ? WHERE id = ?", (now, session_id))
            cur.execute("SELECT created FROM rg_sessions WHERE id = ?", (session_id,))
            (created,) = cur.fetchone()
        return {
            "id": session_id,
            "created": _iso(created),
            "touched": _iso(now),
            "expires_at": _iso(now + self.ttl),
            "turns": turns,
        }

    def delete(self, session_id: str) -> bool:
        with self._transaction() as cur:
            cur.execute("DELETE FROM rg_turns WHERE session_id = ?", (session_id,))
            cur.execute("DELETE FROM rg_sessions WHERE id = ?", (session_id,))
            return bool(cur.rowcount)

    def purge(self, now: float | None = None) -> int:
        """Delete every session idle longer than the ttl; how many went."""
        limit = (time.time() if now is None else now) - self.ttl
        with self._transaction() as cur:
            cur.execute(
                "DELETE FROM rg_turns WHERE session_id IN "
                "(SELECT id FROM rg_sessions WHERE touched < ?)",
                (limit,),
            )
            cur.execute("DELETE FROM rg_sessions WHERE touched < ?", (limit,))
            return int(cur.rowcount)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _read(self, cur: _Cursor, session_id: str, now: float) -> list[dict[str, Any]] | None:
        cur.execute("SELECT touched FROM rg_sessions WHERE id = ?", (session_id,))
        row = cur.fetchone()
        if row is None:
            return None
        if row[0] < now - self.ttl:
            cur.execute("DELETE FROM rg_turns WHERE session_id = ?", (session_id,))
            cur.execute("DELETE FROM rg_sessions WHERE id = ?", (session_id,))
            return None
        cur.execute("SELECT turn FROM rg_turns WHERE session_id = ? ORDER BY seq", (session_id,))
        return [json.loads(text) for (text,) in cur.fetchall()]


class _Cursor:
    """A DB-API cursor taking `?` placeholders whatever the driver's style."""

    def __init__(self, cur: Any, placeholder: str) -> None:
        self._cur = cur
        self._placeholder = placeholder

    def execute(self, sql: str, params: tuple[object, ...] = ()) -> None:
        self._cur.execute(sql.replace("?", self._placeholder), params)

    def fetchone(self) -> Any:
        return self._cur.fetchone()

    def fetchall(self) -> list[Any]:
        return self._cur.fetchall()

    @property
    def rowcount(self) -> int:
        return self._cur.rowcount


def _turn(raw: object, where: str, default_id: str) -> dict[str, Any]:
    try:
        turn = Turn.model_validate(raw)
    except ValidationError as exc:
        raise InputError(f"{where}.{describe_validation_error(exc)}") from None
    return {
        "id": turn.id or default_id,
        "speaker": turn.speaker,
        "text": turn.text,
        "act": turn.act,
        "timestamp": (turn.timestamp or datetime.now()).isoformat(),
    }


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds).astimezone().isoformat(timespec="seconds")
