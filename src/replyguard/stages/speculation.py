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


# "most swimmers find ...", "many members say ...": what people are said to think, the
# opinion of a few, not a fact of the KB (a quantifier, up to two words, then one of these)
_REPORTING_QUANTIFIERS = frozenset({"most", "many", "some", "lots", "plenty"})
_REPORTING_VERBS = frozenset(
    {"find", "finds", "say", "says", "feel", "feels", "reckon", "think", "agree", "tell"}
)
# a supposition ending in one of these supposes a state: "might be", "can get", "can feel"
_STATE_VERBS = frozenset({"be", "get", "feel", "seem", "look"})
# "can be" before a participle says what may be done ("can be booked online"), not a supposition
_PARTICIPLE_ENDINGS = ("ed", "en")
_IRREGULAR_PARTICIPLES = frozenset(
    {"made", "paid", "done", "held", "kept", "sent", "found", "bought", "brought", "left", "set"}
)


def supposition_spans(ctx: CallContext) -> list[Span]:
    """Where the reply supposes: the `speculation` markers ("can be" before a participle left
    out) and what people are said to think ("most visitors find")."""
    tokens = ctx.reply.lexed.tokens
    out = []
    for marker in ctx.reply.lexed.markers_of("speculation"):
        if marker.text.lower() == "can be":
            nxt = next((t.lower for t in tokens if t.start >= marker.end), "")
            if nxt.endswith(_PARTICIPLE_ENDINGS) or nxt in _IRREGULAR_PARTICIPLES:
                continue
        out.append(Span(start=marker.start, end=marker.end))
    for k, token in enumerate(tokens):
        if token.lower in _REPORTING_QUANTIFIERS and any(
            t.lower in _REPORTING_VERBS for t in tokens[k + 1 : k + 4]
        ):
            out.append(Span(start=token.start, end=token.end))
    return out


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


def supposing_clauses(ctx: CallContext) -> list[Span]:
    """The clauses of the reply that suppose (hold a supposition marker), questions left out."""
    markers = supposition_spans(ctx)
    if not markers:
        return []
    return [
        c
        for clauses in _clauses(ctx)
        if not ctx.response[clauses[0].start : clauses[-1].end].rstrip().endswith("?")
        for c in clauses
        if any(c.start <= m.start < c.end for m in markers)
    ]


# "can get on at", "can get a refund": "get" before a particle or a determiner is no state
_NOT_STATE_AFTER = frozenset(
    "on off in into out to at there back up a an the your their our some any".split()
)


def _supposes_state(ctx: CallContext, marker: Span) -> bool:
    """The marker ends in a verb of being ("might be", "can get" of "it can get busy"), not
    in one that does or receives something ("you can get on at the market square")."""
    last = ctx.response[marker.start : marker.end].lower().split()[-1]
    if last not in _STATE_VERBS:
        return False
    after = next((t.lower for t in ctx.reply.lexed.tokens if t.start >= marker.end), "")
    return not (last == "get" and after in _NOT_STATE_AFTER)


def _answered(ctx: CallContext, clause: Span, markers: list[Span]) -> bool:
    """Whether a checked claim of the clause answers for its supposition ("it usually runs
    over 2 days"). A supposed state ("it might be quiet on Thursdays", "it can get busy": a
    marker ending in a verb of being) is supposed of the checked value, not checked by it."""
    if all(_supposes_state(ctx, m) for m in markers if clause.start <= m.start < clause.end):
        return False
    return any(
        clause.start <= r.span.start < clause.end and r.status in CHECKED for r in ctx.claims
    )


def speculation_candidates(ctx: CallContext) -> list[Candidate]:
    """One candidate per sentence that supposes: over its supposing clauses no claim checked
    (checked when each of them holds a checked claim)."""
    markers = supposition_spans(ctx)
    if not markers:
        return []
    out = []
    for clauses in _clauses(ctx):
        if ctx.response[clauses[0].start : clauses[-1].end].rstrip().endswith("?"):
            continue
        supposing = [c for c in clauses if any(c.start <= m.start < c.end for m in markers)]
        if not supposing:
            continue
        unchecked = [c for c in supposing if not _answered(ctx, c, markers)]
        spans = unchecked or supposing
        said = next(m for m in markers if spans[0].start <= m.start < spans[-1].end)
        words = ctx.response[said.start : said.end]
        out.append(
            Candidate(
                HallucinationType.UnsupportedClaim,
                (Sym("Speculated"), not unchecked),
                Span(start=spans[0].start, end=spans[-1].end),
                f"'{words}': a supposition the knowledge base does not check",
                suggestion="State only what the knowledge base supports, or say it is not known",
            )
        )
    return out
