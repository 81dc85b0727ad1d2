"""Speculation: a sentence that says what the speaker only supposes ("it's probably warm
enough", "it is generally on time", "I can't confirm that") about something no claim of the
sentence checked. The KB cannot back it, so it is an unsupported claim to mark for a reader;
how sure that flag is, and whether a checked claim in the sentence answers for it, is the rule
`(flag-confidence UnsupportedClaim (Speculated CHECKED))` in metta/hallucination.metta. The
phrases are the `(speculation PHRASE)` word list of metta/lexicon.metta."""

from __future__ import annotations

from replyguard.metta_host import Sym
from replyguard.models import HallucinationType, Span
from replyguard.stages.candidates import Candidate
from replyguard.stages.context import CHECKED, CallContext


def speculation_candidates(ctx: CallContext) -> list[Candidate]:
    markers = ctx.reply.lexed.markers_of("speculation")
    if not markers:
        return []
    out = []
    for sentence in ctx.reply.lexed.sentences:
        said = [m for m in markers if sentence.start <= m.start < sentence.end]
        if not said or ctx.response[sentence.start : sentence.end].rstrip().endswith("?"):
            continue
        checked = any(
            sentence.start <= r.span.start < sentence.end and r.status in CHECKED
            for r in ctx.claims
        )
        out.append(
            Candidate(
                HallucinationType.UnsupportedClaim,
                (Sym("Speculated"), checked),
                Span(start=sentence.start, end=sentence.end),
                f"'{said[0].text}': a supposition the knowledge base does not check",
                suggestion="State only what the knowledge base supports, or say it is not known",
            )
        )
    return out
