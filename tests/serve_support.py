"""Helpers for the service's tests: the in-process server (replyguard.serve.local) and KB files."""

from __future__ import annotations

import json
from pathlib import Path

from replyguard.serve.config import ServeConfig
from replyguard.serve.local import running, serving

__all__ = ["one_worker", "running", "serving", "setting", "write_kb"]


def write_kb(path: Path, kb: dict[str, object]) -> str:
    path.write_text(json.dumps(kb), encoding="utf-8")
    return str(path)


def one_worker(folder: Path, kb: dict[str, object], **settings: object) -> ServeConfig:
    """A one-worker service of `kb` (written into `folder`, as are its sessions)."""
    return ServeConfig(
        kb=write_kb(folder / "kb.json", kb),
        workers=1,
        session_store=str(folder / "sessions.sqlite3"),
        **settings,  # type: ignore[arg-type]
    )


def setting(worker: object, key: str) -> dict[str, object]:
    """A metta/config.metta setting as one worker's engine has it, with the worker's process id
    (sent with pool.call or pool.each, so it runs in a worker process)."""
    import os

    return {"pid": os.getpid(), key: worker.served().setting(key)}  # type: ignore[attr-defined]
