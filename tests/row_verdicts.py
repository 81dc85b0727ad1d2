"""The verdict of each claim a reply makes, keyed by (entity id, attribute, value said): for the
tests of rows told by their values."""

from __future__ import annotations

from datetime import datetime

from replyguard.engine import Engine
from replyguard.models import Turn


def claim_verdicts(
    engine: Engine, reply: str, reference: datetime, turns: list[Turn] | None = None
) -> dict:
    result = engine.postprocess(reply, "", turns or [], reference_time=reference)
    fv = result.factual_validation
    status = {v.claim_id: v.status for v in fv.claim_validations}
    return {(c.subject_id, c.predicate, c.object): status[c.id] for c in fv.claims}
