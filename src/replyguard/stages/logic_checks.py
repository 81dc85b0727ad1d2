"""LogicalInconsistency candidates: P and not-P, two values for a single-valued attribute, and a
universal claim against its negation ("all X" and "no X")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from replyguard.metta_host import Sym
from replyguard.models import Cardinality, HallucinationType, Span, ValueType
from replyguard.stages.candidates import Candidate
from replyguard.stages.context import CallContext, ClaimRecord
from replyguard.text.words import STOPWORDS, stem
from replyguard.values import grade

if TYPE_CHECKING:
    from replyguard.engine import Engine

_JOINERS = {"and", "but", "yet", ",", "both"}
_BE = {"is", "are", "was", "were", "be", "it", "'s", "does", "do", "did"}
_NEGATORS = {"not", "n't", "never"}
_NO_WORDS = {"no", "none", "nobody", "not"}


def logic_candidates(engine: Engine, ctx: CallContext) -> list[Candidate]:
    return [
        *_self_negation(ctx),
        *_claim_negation(engine, ctx),
        *_two_values(engine, ctx),
        *_quantifiers(ctx),
    ]


def _self_negation(ctx: CallContext) -> list[Candidate]:
    """ "running and not running": a word, a joiner, a negator, the same word again."""
    out = []
    tokens = ctx.reply.lexed.tokens
    words = [t.lower for t in tokens]
    for i, word in enumerate(words):
        if word not in _NEGATORS:
            continue
        j = i + 1
        while j < len(words) and words[j] in _BE:
            j += 1
        if j >= len(words) or words[j] in STOPWORDS or not words[j].isalpha():
            continue
        target = stem(words[j])
        k = i - 1
        while k >= 0 and (words[k] in _JOINERS or words[k] in _BE):
            k -= 1
        if (
            k >= 0
            and k < i - 1
            and stem(words[k]) == target
            and any(w in _JOINERS for w in words[k + 1 : i])
        ):
            out.append(
                Candidate(
                    HallucinationType.LogicalInconsistency,
                    Sym("SelfNegation"),
                    Span(start=tokens[k].start, end=tokens[j].end),
                    f"'{tokens[j].text}' is both asserted and denied",
                    suggestion="State one or the other",
                )
            )
    return out


def _key(record: ClaimRecord) -> tuple[str, str]:
    a = record.attached
    return (a.subject_id or a.subject_text.casefold(), a.predicate)


def _same_value(engine: Engine, record: ClaimRecord, other: ClaimRecord) -> bool:
    g = grade(
        ValueType(record.value_type),
        record.attached.value.text,
        other.attached.value.text,
        engine.words.equivalents,
    )
    return g.kind in ("Exact", "Normalised", "Compatible")


def _claim_negation(engine: Engine, ctx: CallContext) -> list[Candidate]:
    """The same claim made and denied ("John is in Sales ... John is not in Sales")."""
    out = []
    same = _SameValue(engine)
    for record, earlier in _by_key(ctx.claims):
        for other in earlier:
            if other.model.negated != record.model.negated and same(record, other):
                out.append(
                    Candidate(
                        HallucinationType.LogicalInconsistency,
                        Sym("SelfNegation"),
                        record.span,
                        f"{record.model.subject}'s {record.model.predicate} "
                        f"'{record.model.object}' "
                        "is both asserted and denied",
                        suggestion="State one or the other",
                    )
                )
    return out


def _two_values(engine: Engine, ctx: CallContext) -> list[Candidate]:
    out = []
    same = _SameValue(engine)
    for record, earlier in _by_key(ctx.claims):
        spec = engine.index.schema.get(record.attached.predicate)
        if record.model.negated or (spec is not None and spec.cardinality == Cardinality.many):
            continue
        for other in earlier:
            if other.model.negated or same(record, other) or _both_held(record, other):
                continue
            between = ctx.response[other.span.end : record.span.start].lower().split()
            if "or" in between:
                continue  # alternatives, not two assertions
            out.append(
                Candidate(
                    HallucinationType.LogicalInconsistency,
                    Sym("TwoValuesForOne"),
                    record.span,
                    f"{record.model.subject}'s {record.model.predicate} is given as both "
                    f"'{other.model.object}' and '{record.model.object}'",
                    suggestion="Keep the correct value",
                )
            )
            break
    return out


def _both_held(record: ClaimRecord, other: ClaimRecord) -> bool:
    """Two ways of saying the one value the KB holds ("every Tuesday, so today's has left"):
    both matched it."""
    return (
        record.status == other.status == "Verified"
        and record.best_kb_value is not None
        and record.best_kb_value == other.best_kb_value
    )


def _by_key(claims: list[ClaimRecord]) -> Iterator[tuple[ClaimRecord, list[ClaimRecord]]]:
    """Each claim with the earlier claims about the same subject and attribute, in order: the
    pairs worth comparing, found in one pass instead of over all pairs."""
    groups: dict[tuple[str, str], list[ClaimRecord]] = {}
    for record in claims:
        earlier = groups.setdefault(_key(record), [])
        yield record, list(earlier)
        earlier.append(record)


class _SameValue:
    """`_same_value`, graded once per (value type, value, value): a long reply repeats them."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.seen: dict[tuple[str, str, str], bool] = {}

    def __call__(self, record: ClaimRecord, other: ClaimRecord) -> bool:
        key = (record.value_type, record.attached.value.text, other.attached.value.text)
        hit = self.seen.get(key)
        if hit is None:
            hit = self.seen[key] = _same_value(self.engine, record, other)
        return hit


def _quantifiers(ctx: CallContext) -> list[Candidate]:
    """ "All employees ..." against "No employees ..." / "none of the employees"."""
    tokens = ctx.reply.lexed.tokens
    words = [t.lower for t in tokens]
    universal: dict[str, int] = {}
    negative: dict[str, int] = {}
    for marker in ctx.reply.lexed.markers:
        if marker.kind not in ("universal-quantifier", "exception-marker"):
            continue
        after = [i for i, t in enumerate(tokens) if t.start >= marker.end][:4]
        noun = next(
            (stem(words[i]) for i in after if words[i] not in STOPWORDS and words[i].isalpha()),
            None,
        )
        if noun is None:
            continue
        if marker.kind == "universal-quantifier" and marker.text.lower() not in _NO_WORDS:
            universal.setdefault(noun, marker.start)
        elif marker.text.lower().split()[0] in _NO_WORDS:
            negative.setdefault(noun, marker.start)
    out = []
    for noun, start in negative.items():
        if noun in universal:
            lo, hi = sorted((start, universal[noun]))
            end_sentence = ctx.sentence_of(hi)[1]
            out.append(
                Candidate(
                    HallucinationType.LogicalInconsistency,
                    Sym("QuantifierConflict"),
                    Span(start=lo, end=end_sentence),
                    f"'all' and 'no' are both said of {noun}",
                    suggestion="Reconcile the two statements",
                )
            )
    return out
