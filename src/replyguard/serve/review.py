"""The review store: exchanges the guard would not deliver, queued for a person (SQLite).

One row per item: where it came from (the proxy, or LiteLLM's guardrail route), the model, the
dialogue as the client sent it, every attempt (the upstream's text and the full verdict on it)
and the reason. A person lists the open items, reads one and closes it.

The file is in WAL mode with `synchronous=FULL`: a commit is one flush of the log (~0.4 ms here;
the default rollback journal's flushes took ~24 ms), and a committed item survives the service
crashing and the machine losing power alike: an exchange held for a person is never lost. The
routes write from a thread (`asyncio.to_thread`), never on the event loop.

    store = ReviewStore("replyguard-review.sqlite3")
    item_id = store.add(source="proxy", model="m", dialogue=[...], attempts=[...], reason="...")
    store.items(status="open"), store.get(item_id), store.resolve(item_id, "answered by phone")
"""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from replyguard.errors import InputError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS review_items (
    id TEXT PRIMARY KEY,
    created TEXT NOT NULL,
    source TEXT NOT NULL,
    model TEXT,
    reason TEXT NOT NULL,
    dialogue TEXT NOT NULL,
    attempts TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'open',
    note TEXT
)
"""
_COLUMNS = ("id", "created", "source", "model", "reason", "dialogue", "attempts", "status", "note")


class ReviewStore:
    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute(_SCHEMA)
            self._db.commit()
        except sqlite3.Error as exc:
            raise InputError(f"{self.path}: cannot open the review store ({exc})") from None
        self._lock = threading.Lock()

    def add(
        self,
        *,
        source: str,
        model: str | None,
        dialogue: list[Any],
        attempts: list[dict[str, Any]],
        reason: str,
    ) -> str:
        item_id = f"rev-{uuid.uuid4().hex[:16]}"
        row = (
            item_id,
            datetime.now(UTC).isoformat(timespec="seconds"),
            source,
            model,
            reason,
            json.dumps(dialogue),
            json.dumps(attempts),
        )
        with self._lock:
            self._db.execute(
                "INSERT INTO review_items (id, created, source, model, reason, dialogue, attempts)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                row,
            )
            self._db.commit()
        return item_id

    def get(self, item_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {', '.join(_COLUMNS)} FROM review_items WHERE id = ?", (item_id,)
            ).fetchone()
        return _item(row) if row else None

    def items(self, status: str | None = "open", limit: int = 100) -> list[dict[str, Any]]:
        """The newest items first (of every status for None)."""
        query = f"SELECT {', '.join(_COLUMNS)} FROM review_items"
        args: tuple[object, ...] = ()
        if status is not None:
            query, args = query + " WHERE status = ?", (status,)
        with self._lock:
            order = " ORDER BY created DESC, rowid DESC LIMIT ?"
            found = self._db.execute(query + order, (*args, limit)).fetchall()
        return [_item(r) for r in found]

    def resolve(self, item_id: str, note: str | None = None) -> bool:
        with self._lock:
            done = self._db.execute(
                "UPDATE review_items SET status = 'resolved', note = ? WHERE id = ?",
                (note, item_id),
            )
            self._db.commit()
        return done.rowcount == 1

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _item(row: tuple[Any, ...]) -> dict[str, Any]:
    item = dict(zip(_COLUMNS, row, strict=True))
    item["dialogue"] = json.loads(item["dialogue"])
    item["attempts"] = json.loads(item["attempts"])
    return item
