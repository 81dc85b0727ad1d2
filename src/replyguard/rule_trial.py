"""Trying the rules on sample evidence, for `replyguard rules check`.

A rule can parse and name only known predicates and still fail when it runs: it never ends,
returns a kind the host does not know, or calls something with arguments no clause matches. The
trial builds an engine with the rules under test over a small built-in KB and checks a few
replies that reach every stage and each band of the recommendation (a confirmed claim, a wrong
value, an unknown entity, an off-topic answer, a sentence its passage does not support), each
rule call under the usual step budget. What fails becomes a problem with the rule's file and line.

The KB and the dialogue are sample evidence for this self-test only, not data of any user.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from replyguard.errors import ReplyguardError
from replyguard.models import KnowledgeBase, Turn

SAMPLE_KB = {
    "entities": [
        {
            "id": "P1",
            "name": "Nadia Okafor",
            "type": "Person",
            "aliases": ["Nadia"],
            "gender": "Feminine",
            "attributes": {
                "email": "nadia.okafor@example.org",
                "office": "Lisbon",
                "start_year": {"value": 2019, "confidence": 0.9, "source": "HR"},
            },
        },
        {
            "id": "O1",
            "name": "Harbour Labs",
            "type": "Organization",
            "attributes": {"city": "Lisbon", "founded": 2011},
        },
    ],
    "schema": {
        "email": {"value_type": "email", "cues": ["email", "email address"]},
        "office": {"value_type": "enum", "cues": ["works from", "office"]},
        "start_year": {"value_type": "year", "cues": ["started", "joined"]},
        "founded": {"value_type": "year", "cues": ["founded"]},
    },
}
SAMPLE_TURNS = [
    Turn(id="T1", speaker="user", text="Nadia started in 2019, I think."),
    Turn(id="T2", speaker="assistant", text="Noted."),
    Turn(id="T3", speaker="user", text="What is Nadia's email address?"),
]
SAMPLE_REPLIES = (
    "Nadia's email address is nadia.okafor@example.org.",
    "Nadia's email is nadia.o@example.com and she works from Porto.",
    "Dr. Velloso from Harbour Labs founded the company in 2005 with Nadia.",
    "The weather in Lisbon is usualy mild in winter.",
)
SAMPLE_PASSAGE = "Harbour Labs was founded in Lisbon in 2011 and builds sensors for ships."
_WHERE = re.compile(r" \((\S+:\d+)(?:, \S+:\d+)*\)$")


def trial_problems(rules_dir: str | Path | None) -> list[tuple[str, str]]:
    """(file:line or "sample check", message) of each failure, the first at each place."""
    from replyguard.engine import Engine

    try:
        engine = Engine(KnowledgeBase.model_validate(SAMPLE_KB), rules_dir=rules_dir)
    except ReplyguardError as exc:
        return [_located(str(exc))]
    found: dict[str, tuple[str, str]] = {}
    reference = datetime(2026, 3, 2, 10, 0)
    for n, reply in enumerate(SAMPLE_REPLIES):
        try:
            engine.postprocess(
                reply,
                SAMPLE_TURNS[-1].text,
                SAMPLE_TURNS,
                reference_time=reference,
                passages=[SAMPLE_PASSAGE] if n == 2 else [],
            )
        except ReplyguardError as exc:
            where, message = _located(str(exc))
            found.setdefault(where, (where, message))
        except (ValueError, TypeError, KeyError) as exc:  # a rule result the host cannot read
            message = f"a rule gave what the host cannot read ({exc.__class__.__name__}: {exc})"
            found.setdefault("sample check", ("sample check", message))
    return list(found.values())


def _located(message: str) -> tuple[str, str]:
    """Split "... (file:line, ...)" or "file:line: ..." into where and what."""
    at_end = _WHERE.search(message)
    if at_end:
        return at_end.group(1), message[: at_end.start()]
    head, sep, rest = message.partition(": ")
    if sep and re.search(r":\d+$", head):
        return head, rest
    return "sample check", message
