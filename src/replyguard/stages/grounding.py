"""UnsupportedClaim from passages: a reply sentence that says more than the passages given with
the call (retrieved documents, a knowledge snippet) is a candidate, with its support as evidence;
`(Ungrounded SUPPORT)` in metta/hallucination.metta decides whether and how strongly to flag it.
Without passages nothing is measured."""

from __future__ import annotations

from replyguard.metta_host import Sym
from replyguard.models import Evidence, HallucinationType, Span
from replyguard.stages.candidates import Candidate
from replyguard.stages.context import CallContext

_SHOWN_MISSING = 5


def ungrounded_candidates(ctx: CallContext) -> list[Candidate]:
    if not ctx.passages:
        return []
    tokens = ctx.reply.lexed.tokens
    out = []
    for sentence in ctx.reply.lexed.sentences:
        text = ctx.response[sentence.start : sentence.end]
        if text.rstrip().endswith("?"):
            continue  # a question asserts nothing
        words = [t.text for t in tokens[sentence.start_token : sentence.end_token]]
        support, missing, best = ctx.passages.support(words)
        if not missing:
            continue
        shown = ", ".join(f"'{w}'" for w in missing[:_SHOWN_MISSING])
        more = f" and {len(missing) - _SHOWN_MISSING} more" if len(missing) > _SHOWN_MISSING else ""
        evidence = (
            []
            if best is None
            else [Evidence(kind="passage", source=f"passage {best.passage + 1}", text=best.text)]
        )
        out.append(
            Candidate(
                HallucinationType.UnsupportedClaim,
                (Sym("Ungrounded"), round(support, 3)),
                Span(start=sentence.start, end=sentence.end),
                f"the passages support {support:.0%} of this sentence; not in them: {shown}{more}",
                suggestion="Keep to what the passages say, or cite where this comes from",
                support=evidence,
            )
        )
    return out
