"""Offers from nothing: the agent's tools were called and every one returned no rows, yet the
reply offers values as found ("you're free from 9 am to 5 pm", "it will be 24 degrees") — the
database-failure case, where the reply invents what the lookup did not return. Names such a
reply offers are already unknown to the (empty) KB; this finds the values. A sentence that
denies ("there are no free slots on the 6th"), asks, or repeats what the dialogue said is no
offer. The confidence is `(flag-confidence NonexistentEntity NothingReturned)` in
metta/hallucination.metta."""

from __future__ import annotations

from typing import TYPE_CHECKING

from replyguard.metta_host import Sym
from replyguard.models import HallucinationType, Span
from replyguard.stages.candidates import Candidate
from replyguard.stages.context import CallContext

if TYPE_CHECKING:
    from replyguard.engine import Engine


def nothing_found_candidates(engine: Engine, ctx: CallContext) -> list[Candidate]:
    if not engine.lookup_found_nothing:
        return []
    said_before = {
        lx.value_key
        for r in ctx.dialogue.readings
        for lx in r.reading.lexed.lexemes
        if lx.cat == "VAL" and lx.value_key
    }
    out = []
    lexed = ctx.reply.lexed
    denials = lexed.markers_of("negative-marker")
    for sentence, row in zip(lexed.sentences, lexed.sentence_lexemes, strict=True):
        text = ctx.response[sentence.start : sentence.end].rstrip()
        if text.endswith("?") or any(lx.cat == "NEG" for lx in row):
            continue
        if any(sentence.start <= m.start < sentence.end for m in denials):
            continue
        for lx in row:
            if lx.cat != "VAL" or lx.pronoun is not None or lx.value_key in said_before:
                continue
            if ctx.dialogue.mentions(lx.text):
                continue
            out.append(
                Candidate(
                    HallucinationType.NonexistentEntity,
                    Sym("NothingReturned"),
                    Span(start=lx.start, end=lx.end),
                    f"'{lx.text}' is offered, but the lookup returned nothing",
                    suggestion="Say that nothing was found",
                )
            )
    return out
