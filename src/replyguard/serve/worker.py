"""What runs inside a worker process of the EnginePool: one Worker per process, built when the
process starts (replyguard.serve.replica), holding the Engine of the served KB and rules.

Hyperon engines are not thread-safe, so each process has its own and checks one request at a
time. Functions sent with `pool.call(fn, *args)` are module-level (picklable) and take the
process's Worker first: `fn(worker, *args)`; they return plain JSON-ready values. A KB or rules
that fail to load do not kill the process: the error is kept and raised by every call, so the
pool can report it (`EnginePool.start`).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from replyguard.errors import InputError, ReplyguardError, describe_validation_error

if TYPE_CHECKING:
    from replyguard.engine import Engine
    from replyguard.session import Session

# Sessions whose tracker a worker keeps between checks; an evicted one is rebuilt from its turns.
CACHED_SESSIONS = 256
_EMPTY_KB: dict[str, object] = {"entities": []}


@dataclass(frozen=True)
class EngineSpec:
    """How every worker builds its engine: the served KB and rules, as the config names them."""

    kb: str
    rules: str | None = None
    config: tuple[tuple[str, object], ...] = ()
    annotation_style: str = "plain"


class Worker:
    def __init__(self, spec: EngineSpec) -> None:

        self.spec = spec
        self.error: ReplyguardError | None = None
        self.engine: Engine | None = None
        self._scratch: tuple[str, Engine] | None = None
        self._sessions: OrderedDict[str, tuple[list[tuple[object, ...]], Session]] = OrderedDict()
        self._statuses: dict[str, str] | None = None
        try:
            self.engine = self._build(spec.kb)
        except ReplyguardError as exc:
            self.error = exc

    def _build(self, kb: object) -> Engine:
        from replyguard.engine import Engine

        return Engine(
            kb,  # type: ignore[arg-type]
            rules_dir=self.spec.rules,
            config=dict(self.spec.config) or None,
            annotation_style=self.spec.annotation_style,
        )

    def served(self) -> Engine:
        if self.error is not None:
            raise self.error
        assert self.engine is not None
        return self.engine

    def engine_for(self, kb: object) -> Engine:
        """The served engine for no KB; for an inline KB, a second engine of this process with
        that KB swapped in (the rules are loaded once; the last KB is kept for the next call)."""
        served = self.served()
        if kb is None:
            return served
        from replyguard.kb import complete_schema
        from replyguard.models import KnowledgeBase

        assert isinstance(kb, KnowledgeBase)
        key = hashlib.sha256(kb.model_dump_json(by_alias=True).encode()).hexdigest()
        if self._scratch is None:
            self._scratch = (key, self._build(kb))
        elif self._scratch[0] != key:
            self._scratch[1].replace_kb(complete_schema(kb))
            self._scratch = (key, self._scratch[1])
        return self._scratch[1]

    def session(self, session_id: str, turns: list[dict[str, Any]]) -> Session:
        """The session `session_id` holding exactly `turns` (as stored): the cached one brought
        up to date when it holds a prefix of them, else one rebuilt from them all."""
        from replyguard.models import Turn

        parsed = [Turn.model_validate(t) for t in turns]
        keys = [(t.id, t.speaker, t.text, t.act, t.timestamp) for t in parsed]
        cached = self._sessions.pop(session_id, None)
        if cached is None or cached[0] != keys[: len(cached[0])]:
            cached = ([], self.served().session(session_id))
        done, session = cached
        for turn in parsed[len(done) :]:
            session.add_turn(
                turn.speaker, turn.text, id=turn.id, timestamp=turn.timestamp, act=turn.act
            )
        self._sessions[session_id] = (keys, session)
        while len(self._sessions) > CACHED_SESSIONS:
            self._sessions.popitem(last=False)
        return session

    def forget(self, session_id: str) -> None:
        self._sessions.pop(session_id, None)

    def summary(self, result: dict[str, Any]) -> dict[str, Any]:
        """The verdict in the convention of NeMo Guardrails' /v1/checks: `status` (from the
        rules' `check-status` facts, metta/service.metta, read once per process), the text
        delivered (none when blocked) and the recommendation."""
        if self._statuses is None:
            facts = self.served().host.facts("check-status")
            self._statuses = {str(k): str(s) for k, s in facts}
        kind = result["recommendation"]["kind"]
        status = self._statuses.get(kind)
        if status is None:
            raise ReplyguardError(f"metta: no (check-status {kind} ...) fact")
        corrected = result.get("corrected") or {}
        text = {"passed": result["original"], "modified": corrected.get("corrected")}.get(status)
        return {"status": status, "text": text, "recommendation": kind}


# ------------------------------------------------------------------ functions pool.call sends


def ping(worker: Worker, hold_seconds: float = 0.0) -> dict[str, Any]:
    """This process's id and engine, once the engine is built (raises its load error)."""
    engine = worker.served()
    time.sleep(hold_seconds)
    return {"pid": os.getpid(), "entities": len(engine.kb.entities), "atoms": engine.kb_atoms}


def check_case(worker: Worker, document: dict[str, Any]) -> dict[str, Any]:
    """A case in the case-file format (`kb` inline, or absent for the served KB) -> the full
    PostprocessedResponse as JSON, its `summary`, and `worker_ms`: the whole call's time in
    this process (validation, the check, the result as JSON)."""
    from replyguard.kb import kb_from_document, written_as_rows
    from replyguard.models import Case

    started = time.perf_counter()
    if not isinstance(document, dict):
        raise InputError(f"expected a JSON object, got {type(document).__name__}")
    kb = document.get("kb")
    if isinstance(kb, str):
        raise InputError("kb: a path is not read over HTTP; send the KB inline or leave it out")
    if isinstance(kb, list) or written_as_rows(kb):  # read as a KB file's document is
        kb = kb_from_document(kb, "kb")
    try:
        case = Case.model_validate({**document, "kb": _EMPTY_KB if kb is None else kb})
    except ValidationError as exc:
        raise InputError(describe_validation_error(exc)) from None
    engine = worker.engine_for(None if kb is None else case.kb)
    result = engine.check_case(case).model_dump(mode="json")
    worker_ms = round((time.perf_counter() - started) * 1000, 3)
    return {"summary": worker.summary(result), "result": result, "worker_ms": worker_ms}


def check_session(
    worker: Worker, session_id: str, turns: list[dict[str, Any]], request: dict[str, Any]
) -> dict[str, Any]:
    """Check a reply in a stored conversation; `request` holds Session.check's arguments."""
    started = time.perf_counter()
    session = worker.session(session_id, turns)
    result = session.check(**request).model_dump(mode="json")
    worker_ms = round((time.perf_counter() - started) * 1000, 3)
    return {"summary": worker.summary(result), "result": result, "worker_ms": worker_ms}


def session_state(worker: Worker, session_id: str, turns: list[dict[str, Any]]) -> dict[str, Any]:
    return worker.session(session_id, turns).state().model_dump(mode="json")


def forget_session(worker: Worker, session_id: str) -> None:
    worker.forget(session_id)
