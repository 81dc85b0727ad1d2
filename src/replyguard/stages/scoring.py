"""Stage 5, confidence and recommendation (metta/scoring.metta decides; this module assembles).

The recommendation rules get the call's findings counted here (what was corrected, what is
wrong, invented, contradicted or never checked) and decide the band; this module then builds the
band's payload: flagged spans, the text to deliver, guidance, review reasons.

Guidance goes back to an LLM, so every piece of reply or dialogue text placed in it is quoted
as data: collapsed to one line, shortened, escaped and wrapped in <reply-quote> tags it cannot
close; KB values go in as quoted literals.
"""

from __future__ import annotations

import html
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hyperon.atoms import Atom

from replyguard.metta_host import Sym, V, call, to_atom
from replyguard.models import (
    Cardinality,
    CoherenceIssueType,
    CoherenceResult,
    CorrectedResponse,
    CorrectionType,
    EntityType,
    Explanation,
    FactualValidationResult,
    HallucinationFlag,
    Recommendation,
    RecommendationKind,
    ResponseCorrection,
    Severity,
    Span,
    UnreadValue,
    ValueType,
)
from replyguard.stages.context import CHECKED, CallContext, ClaimRecord, said_key, user_value_keys
from replyguard.text.analysis import ReadText, unread_values
from replyguard.text.lexer import Lexeme
from replyguard.text.temporal import covers_weekday, mention_weekday, normalise_weekday
from replyguard.values import fold, value_key

if TYPE_CHECKING:
    from replyguard.engine import Engine

_QUOTE_LIMIT = 160
_QUOTE_OPEN = "<reply-quote>"


def quote_for_llm(text: str) -> str:
    """Reply text as inert data inside guidance: one line, bounded, escaped, tagged."""
    line = " ".join(text.split())
    if len(line) > _QUOTE_LIMIT:
        line = line[: _QUOTE_LIMIT - 1] + "…"
    return f"{_QUOTE_OPEN}{html.escape(line, quote=False)}</reply-quote>"


def _literal(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _overlaps(a: Span, b: Span) -> bool:
    return a.start < b.end and b.start < a.end


def _unread(engine: Engine, ctx: CallContext, flags: list[HallucinationFlag]) -> list[UnreadValue]:
    """Values of the KB's types the reply states that no claim checked (a flag over a value
    judged it, so it is not unread; nor is a day that chose or agrees with a claim of its
    sentence, see `_day_read`; nor a value the user gave, said back to them: "a 17-year-old can
    come" to "is it suitable for my 17-year-old?" is theirs to know, not the KB's)."""
    users = user_value_keys(ctx.dialogue)
    out = []
    for lexeme, vtype in unread_values(ctx.reply, engine.index.schema):
        span = Span(start=lexeme.start, end=lexeme.end)
        if any(_overlaps(span, f.span) for f in flags) or _day_read(engine, ctx.reply, lexeme):
            continue
        if said_key(lexeme) in users:
            continue
        out.append(UnreadValue(text=lexeme.text, span=span, value_type=vtype))
    return out


def _held_by_claimed(engine: Engine, ctx: CallContext, unread: UnreadValue) -> bool:
    """Whether an entity a claim of the reply is about holds the unread value, compared by its
    type's key ("two weeks" is "2 weeks"): the value was said, but in words no claim read."""
    key = value_key(unread.value_type, unread.text)
    for subject in {r.attached.subject_id for r in ctx.claims}:
        entity = engine.index.entities.get(subject or "")
        if entity is not None and any(
            value_key(unread.value_type, str(v)) == key
            for attribute in entity.attributes
            for v in entity.values_of(attribute)[0]
        ):
            return True
    return False


def _day_read(engine: Engine, read: ReadText, lexeme: Lexeme) -> bool:
    """Whether a day the reply names ("on Sundays", "tomorrow", "today's talk") was read with a
    claim of its sentence: it chose the claim's attribute (a claim on `sunday_hours`; the reader
    picks an attribute by the days its sentence speaks of), or the claim's entity holds that
    day ("today's class" of a class held on the day today is). A day the claim's entity does
    not hold stays unread."""
    day = mention_weekday(lexeme.temporal) if lexeme.temporal else None
    sentence = next((s for s in read.lexed.sentences if s.start <= lexeme.start < s.end), None)
    if day is None or sentence is None:
        return False
    for claim in read.claims:
        if not sentence.start <= claim.value.start < sentence.end:
            continue
        if covers_weekday(claim.predicate, day):  # "£20 a player Tuesday to Friday"
            return True
        entity = engine.index.entities.get(claim.subject_id or "")
        if entity is not None and (
            any(day in _weekdays_of(value) for value in entity.attributes.values())
            # "reach our booking office on ..., Monday to Saturday": it has hours on the day
            or any(covers_weekday(a, day) for a in entity.attributes)
        ):
            return True
    return False


def _weekdays_of(value: object) -> set[str]:
    """The weekdays a KB value names (a weekday, or a list of them)."""
    values = value if isinstance(value, list) else [value]
    days = (normalise_weekday(v) for v in values if isinstance(v, str))
    return {d for d in days if d is not None}


def score_confidence(
    engine: Engine,
    coherence: CoherenceResult,
    factual: FactualValidationResult,
    flags: list[HallucinationFlag],
) -> tuple[float, Explanation]:
    """The confidence, and its explanation (the score's rule call and the penalty's)."""
    burdens = tuple(
        float(
            engine.host.value(  # type: ignore[arg-type]
                "flag-burden", Sym(f.hallucination_type.value), f.confidence
            )
        )
        for f in flags
    )
    contradictions = tuple(
        v.status.confidence
        for v in factual.claim_validations  # type: ignore[union-attr]
        if v.status.kind == "Contradicted"
    )
    penalty_args = (
        tuple(i.severity for i in coherence.issues),
        contradictions,
        tuple(f.confidence for f in flags),
    )
    penalty = engine.host.value("severity-penalty", *penalty_args)
    score_args = (
        coherence.score,
        factual.score,
        burdens,
        coherence.entity_consistency.score,
        penalty,
    )
    confidence = engine.host.value("confidence-score", *score_args)
    explanation = engine.host.explain(
        "confidence-score",
        *score_args,
        because=[engine.host.explain("severity-penalty", *penalty_args)],
    )
    return round(float(confidence), 4), explanation  # type: ignore[arg-type]


@dataclass
class Findings:
    """What the call found that the recommendation acts on (the `Findings` atom's parts)."""

    fixes: list[ResponseCorrection]  # factual corrections applied in place
    corrected: list[ClaimRecord]  # contradicted claims those corrections replaced
    contradicted: list[ClaimRecord]
    shaky: list[ClaimRecord]  # contradicted claims whose KB value cannot be trusted
    conflicts: list[ClaimRecord]  # claims an earlier turn contradicts
    checked: int  # the reply's values claims checked (`_values`)
    wrong: list[HallucinationFlag]
    invented: list[HallucinationFlag]
    dialogue: list[HallucinationFlag]  # contradicting flags over no conflicting claim
    unanswered: bool
    unread: list[UnreadValue]
    stray: int  # of the unread values, those no entity the reply's claims are about holds
    _atom: Atom | None = field(default=None, repr=False)

    def atom(self) -> Atom:
        """(Findings ...), built once: every rule call and the &reply record share it."""
        if self._atom is None:
            self._atom = to_atom(self._parts())
        return self._atom

    def _parts(self) -> tuple[object, ...]:
        return (
            Sym("Findings"),
            _values(self.corrected),
            _values(self.contradicted),
            _values(self.shaky),
            _values(self.conflicts),
            self.checked,
            len(self.wrong),
            len(self.invented),
            _values(self.conflicts) + len(self.dialogue),
            self.unanswered,
            len(self.unread),
            self.stray,
        )


def _values(records: list[ClaimRecord]) -> int:
    """How many of the reply's values the claims are: one value read against several columns
    ("Monday to Thursday we open at 7am": four weekdays' opening times) is one value said, one
    wrong value if they contradict it."""
    return len({(r.span.start, r.span.end) for r in records})


def findings(
    engine: Engine,
    ctx: CallContext,
    coherence: CoherenceResult,
    flags: list[HallucinationFlag],
    corrected: CorrectedResponse | None,
) -> Findings:
    fixes = [
        c
        for c in (corrected.corrections if corrected else [])
        if c.correction_type == CorrectionType.Factual and c.replacement is not None
    ]
    contradicted = [r for r in ctx.claims if r.status == "Contradicted"]
    conflicts = [r for r in ctx.claims if r.status == "HistoryConflict"]
    by_kind: dict[str, list[HallucinationFlag]] = {}
    for flag in flags:
        kind = str(
            engine.host.value("flag-finding", Sym(flag.hallucination_type.value), flag.confidence)
        )
        by_kind.setdefault(kind, []).append(flag)

    def over(records: list[ClaimRecord], flag: HallucinationFlag) -> bool:
        return any(_overlaps(r.span, flag.span) for r in records)

    issues = {i.issue_type for i in coherence.issues}
    unread = _unread(engine, ctx, flags)
    return Findings(
        fixes=fixes,
        corrected=[r for r in contradicted if any(f.span == r.span for f in fixes)],
        contradicted=contradicted,
        shaky=[r for r in contradicted if not _kb_trusted(engine, r)],
        conflicts=conflicts,
        checked=_values([r for r in ctx.claims if r.status in CHECKED]),
        # a flag over a contradicted claim is accounted for by the claim (corrected or not)
        wrong=[f for f in by_kind.get("Wrong", []) if not over(contradicted, f)],
        invented=by_kind.get("Invented", []),
        dialogue=[
            f for f in by_kind.get("Contradicts", []) if not over(contradicted + conflicts, f)
        ],
        unanswered=engine.host.value(
            "unanswered-question",
            CoherenceIssueType.QUDNotAddressed in issues,
            CoherenceIssueType.TopicUnrelated in issues,
            Sym(coherence.discourse_coherence.reply_act),
            coherence.qud_relevance.answers_another_question,
        )
        is True,
        unread=unread,
        stray=sum(not _held_by_claimed(engine, ctx, u) for u in unread),
    )


def _kb_trusted(engine: Engine, record: ClaimRecord) -> bool:
    spec = engine.index.schema.get(record.model.predicate)
    many = spec is not None and spec.cardinality == Cardinality.many
    # rows sharing a name checked together (resolution Several) each hold one value
    held = (
        1
        if record.attached.rows
        else len({value_key(ValueType(record.value_type), v) for v in record.kb_values})
    )
    return engine.host.value("kb-trusted", record.kb_confidence, held, many) is True


def recommend(
    engine: Engine,
    ctx: CallContext,
    confidence: float,
    coherence: CoherenceResult,
    factual: FactualValidationResult,
    flags: list[HallucinationFlag],
    corrected: CorrectedResponse | None,
    found: Findings,
    because: Explanation,
) -> Recommendation:
    atom = found.atom()
    kinds = [k.value for k in RecommendationKind]
    band = Sym(engine.host.choice("confidence-band", kinds, confidence))
    kind = RecommendationKind(engine.host.choice("recommendation", kinds, band, atom))
    recommendation = _payload(engine, ctx, kind, confidence, coherence, flags, corrected, found)
    # the policy's clauses are cited without evaluating it again (a user's may read &reply)
    policy = call("policy-band", V("band"), atom)
    recommendation.explanation = engine.host.explain(
        "recommendation",
        band,
        atom,
        because=[
            engine.host.explain("confidence-band", confidence, because=[because]),
            Explanation(
                rule=str(policy),
                result=kind.value,
                clauses=[f"{f.file}:{f.line}" for f in engine.host.matching_clauses(policy)],
            ),
        ],
    )
    return recommendation


def _payload(
    engine: Engine,
    ctx: CallContext,
    kind: RecommendationKind,
    confidence: float,
    coherence: CoherenceResult,
    flags: list[HallucinationFlag],
    corrected: CorrectedResponse | None,
    found: Findings,
) -> Recommendation:
    if kind == RecommendationKind.Accept:
        return Recommendation(kind=kind, deliver=ctx.response)
    if kind in (RecommendationKind.AcceptWithFlags, RecommendationKind.CorrectAndDeliver):
        spans = [r.span for r in ctx.claims if r.status == "Unverifiable"]
        spans += [
            f.span for f in flags if engine.host.value("flag-for-review", f.confidence) is True
        ]
        spans += [u.span for u in found.unread]
        marked = sorted({(s.start, s.end) for s in spans})
        delivered = ctx.response
        if kind == RecommendationKind.CorrectAndDeliver and corrected is not None:
            delivered = corrected.corrected
        return Recommendation(
            kind=kind,
            flags=[Span(start=a, end=b) for a, b in marked],
            severity=(
                Severity(
                    engine.host.choice("review-severity", (s.value for s in Severity), len(marked))
                )
                if marked
                else None
            ),
            corrections=found.fixes if kind == RecommendationKind.CorrectAndDeliver else [],
            deliver=delivered,
        )
    messages = {str(k): str(t) for k, t in engine.host.facts("message")}
    guidance = _guidance(engine, ctx, coherence, flags, found, messages)
    if kind == RecommendationKind.Regenerate:
        return Recommendation(kind=kind, guidance=guidance, corrections=found.fixes)
    reasons = engine.host.value(
        "review-reasons",
        confidence,
        coherence.score,
        len(coherence.issues),
        found.atom(),
        tuple(f.confidence for f in flags),
    )
    parts = []
    for item in reasons:  # type: ignore[union-attr]
        if isinstance(item, tuple) and item[0] == "Reason":
            number = item[2]
            n = int(number) if float(number).is_integer() else number
            parts.append(messages[str(item[1])].format(n=n))
    return Recommendation(
        kind=kind, reason=". ".join(parts), guidance=guidance, corrections=found.fixes
    )


def _guidance(
    engine: Engine,
    ctx: CallContext,
    coherence: CoherenceResult,
    flags: list[HallucinationFlag],
    found: Findings,
    messages: dict[str, str],
) -> str:
    parts = []
    if found.unanswered or not coherence.qud_relevance.addresses_qud:
        parts.append(messages["AddressQuestion"])
    if found.unanswered:
        parts.append(messages["KeepToTopic"])
    if engine.lookup_found_nothing and found.invented:
        # every tool returned nothing: one note for everything offered
        offered = ", ".join(quote_for_llm(f.content) for f in found.invented)
        parts.append(messages["NothingFound"].format(content=offered))
    else:
        parts += [_no_such_entity(engine, ctx, flag, messages) for flag in found.invented]
    for record in found.conflicts:
        earlier = [e for e, agrees in record.history if not agrees]
        parts.append(
            messages["KeepToDialogue"].format(
                content=quote_for_llm(record.model.object),
                earlier=quote_for_llm(earlier[-1].text or "") if earlier else "",
            )
        )
    for flag in found.dialogue:
        turns = [e.text for e in flag.evidence if e.kind == "turn" and e.text]
        parts.append(
            messages["KeepToDialogue"].format(
                content=quote_for_llm(flag.content),
                earlier=quote_for_llm(turns[-1]) if turns else "",
            )
        )
    for record in found.contradicted:
        status = record.validation.status  # type: ignore[union-attr]
        entity = engine.index.entities.get(record.model.subject_id or "")
        parts.append(
            messages["CorrectValue"].format(
                subject=entity.label if entity else record.model.subject,
                attribute=record.model.predicate.replace("_", " "),
                value=_literal(status.kb_value),  # type: ignore[union-attr]
            )
        )
    named = found.invented + found.dialogue
    for flag in flags:
        if flag in named or any(_overlaps(r.span, flag.span) for r in found.contradicted):
            continue  # already named above, with what to put instead
        if engine.host.value("guidance-for-flag", flag.confidence) is True:
            parts.append(messages["VerifyOrRemove"].format(content=quote_for_llm(flag.content)))
    parts = list(dict.fromkeys(parts))  # two wrong days of one attribute: one note
    if any(_QUOTE_OPEN in p for p in parts):
        parts.insert(0, messages["QuotedData"])
    return " ".join(parts or [messages["Rewrite"]])


def _no_such_entity(
    engine: Engine, ctx: CallContext, flag: HallucinationFlag, messages: dict[str, str]
) -> str:
    """'There is no X; the <kind> it lists include A, B, C': the KB entities whose names end in
    the same word ("Suite"), else those of the type the conversation is about."""
    entities = [e for e in engine.index.entities.values() if e.name and e.name.split()]
    head = fold(flag.content.split()[-1]) if flag.content.split() else ""
    alike = [engine.index.entities[i] for i in engine.index.name_heads.get(head, [])]
    # the real ones the detector named beside an invented thing or person (its KB evidence)
    alike = alike or [
        engine.index.entities[e.entity_id]
        for e in flag.evidence
        if e.kind == "kb" and e.attribute is None and e.entity_id in engine.index.entities
    ]
    if not alike:
        kind = _kind_in_focus(engine, ctx)
        alike = [e for e in entities if e.type == kind] if kind is not None else []
    name = quote_for_llm(flag.content)
    if not alike:
        return messages["NoSuchEntityNoAlternative"].format(name=name)
    cap = int(engine.setting("guidance-alternatives"))
    nouns = {str(t): str(n) for t, n in engine.host.facts("kind-noun")}
    return messages["NoSuchEntity"].format(
        name=name,
        kind=nouns.get(alike[0].type.value, nouns[EntityType.Unknown.value]),
        names=", ".join(_literal(e.name) for e in alike[:cap]),
    )


def _kind_in_focus(engine: Engine, ctx: CallContext) -> EntityType | None:
    """The entity type the reply names most, else the dialogue, else the KB's only type."""
    for mentions in (
        ctx.reply.mentions,
        [m for r in ctx.dialogue.readings for m in r.reading.mentions],
    ):
        types = Counter(
            engine.index.entities[m.entity_id].type
            for m in mentions
            if m.entity_id in engine.index.entities
        )
        if types:
            return types.most_common(1)[0][0]
    kinds = {e.type for e in engine.index.entities.values()}
    return kinds.pop() if len(kinds) == 1 else None
