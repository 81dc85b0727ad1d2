"""Speculation: a sentence that says what the speaker only supposes ("it's probably warm
enough", "it is generally on time", "I can't confirm that") about something no claim of the
sentence checked. The KB cannot back it, so it is an unsupported claim to mark for a reader;
how sure that flag is, and whether a checked claim in the sentence answers for it, is the rule
`(flag-confidence UnsupportedClaim (Speculated CHECKED))` in metta/hallucination.metta; a claim
answers only for the clause it is in. The phrases are the `(speculation PHRASE)` word list of
metta/lexicon.metta."""

from __future__ import annotations

from replyguard.metta_host import Sym
from replyguard.models import HallucinationType, Span
from replyguard.stages.candidates import Candidate
from replyguard.stages.context import CHECKED, CallContext

# A clause of its own starts after a semicolon, or after a comma and one of these: a checked
# claim answers for the supposition of its own clause only ("Neutering is £60; most dogs are
# usually fine in a day, though it varies").
_CLAUSE_OPENERS = frozenset({"and", "but", "though", "although", "while", "whereas"})


def _clauses(ctx: CallContext) -> list[list[Span]]:
    """Each sentence's clauses."""
    tokens = ctx.reply.lexed.tokens
    out = []
    for sentence in ctx.reply.lexed.sentences:
        start, clauses = sentence.start, []
        for k in range(sentence.start_token, sentence.end_token - 1):
            after = tokens[k + 1].lower
            if tokens[k].text == ";" or (tokens[k].text == "," and after in _CLAUSE_OPENERS):
                clauses.append(Span(start=start, end=tokens[k].start))
                start = tokens[k + 1].start
        clauses.append(Span(start=start, end=sentence.end))
        out.append(clauses)
    return out


def speculation_candidates(ctx: CallContext) -> list[Candidate]:
    """One candidate per sentence that supposes: over its supposing clauses no claim checked
    (checked when each of them holds a checked claim)."""
    markers = ctx.reply.lexed.markers_of("speculation")
    if not markers:
        return []
    out = []
    for clauses in _clauses(ctx):
        if ctx.response[clauses[0].start : clauses[-1].end].rstrip().endswith("?"):
            continue
        supposing = [c for c in clauses if any(c.start <= m.start < c.end for m in markers)]
        if not supposing:
            continue
        unchecked = [
            c
            for c in supposing
            if not any(c.start <= r.span.start < c.end and r.status in CHECKED for r in ctx.claims)
        ]
        spans = unchecked or supposing
        said = next(m for m in markers if spans[0].start <= m.start < spans[-1].end)
        out.append(
            Candidate(
                HallucinationType.UnsupportedClaim,
                (Sym("Speculated"), not unchecked),
                Span(start=spans[0].start, end=spans[-1].end),
                f"'{said.text}': a supposition the knowledge base does not check",
                suggestion="State only what the knowledge base supports, or say it is not known",
            )
        )
    return out
