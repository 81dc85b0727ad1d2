"""Helpers for the service's tests: the in-process server (replyguard.serve.local) and KB files."""

from __future__ import annotations

import json
from pathlib import Path

from replyguard.serve.local import running, serving

__all__ = ["running", "serving", "write_kb"]


def write_kb(path: Path, kb: dict[str, object]) -> str:
    path.write_text(json.dumps(kb), encoding="utf-8")
    return str(path)
