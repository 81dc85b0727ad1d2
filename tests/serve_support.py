"""Helpers for the service's tests: the in-process server (replyguard.serve.local) and KB files."""

from __future__ import annotations

import json
from pathlib import Path

from replyguard.serve.local import running, serving

__all__ = ["running", "serving", "setting", "write_kb"]


def write_kb(path: Path, kb: dict[str, object]) -> str:
    path.write_text(json.dumps(kb), encoding="utf-8")
    return str(path)


def setting(worker: object, key: str) -> dict[str, object]:
    """A metta/config.metta setting as one worker's engine has it, with the worker's process id
    (sent with pool.call or pool.each, so it runs in a worker process)."""
    import os

    return {"pid": os.getpid(), key: worker.served().setting(key)}  # type: ignore[attr-defined]
