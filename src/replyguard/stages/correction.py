"""Stage 4, correction: replace contradicted values with the KB's, mark what stays doubtful.

Which claims are corrected and which spans are annotated is decided by metta/correction.metta;
this module does the span arithmetic. Every correction keeps its span in the original text and
gets its span in the corrected text, so both stay valid however many edits a reply needs.
"""

from __future__ import annotations

import html
import re
from datetime import date, datetime
from typing import TYPE_CHECKING

from replyguard.metta_host import Sym
from replyguard.models import (
    AnnotationType,
    CorrectedResponse,
    CorrectionType,
    HallucinationFlag,
    RejectedCorrection,
    ResponseCorrection,
    Span,
    ValueType,
)
from replyguard.spelling.edits import TextEdit
from replyguard.stages.context import CallContext
from replyguard.text.temporal import normalise_date, normalise_time, normalise_weekday
from replyguard.values import (
    FROM_PRICE,
    MONEY_RE,
    money_amount,
    money_key,
    rate_amount,
    value_head,
    value_key,
)

if TYPE_CHECKING:
    from replyguard.engine import Engine

STYLES = ("plain", "markdown", "html")


def grammar_corrections(
    engine: Engine, ctx: CallContext
) -> tuple[list[ResponseCorrection], list[RejectedCorrection]]:
    """Spelling and grammar edits (metta/spelling.metta), never touching a name, a value or a
    claim: every span the reader recognised is protected."""
    protected = [
        (lx.start, lx.end) for lx in ctx.reply.lexed.lexemes if lx.cat in ("ENT", "VAL", "NAME")
    ]
    protected += [(r.span.start, r.span.end) for r in ctx.claims]
    edits, rejections = engine.spelling.correct_with_log(ctx.response, protected)
    corrections = [_grammar_edit(e) for e in edits]
    rejected = [
        RejectedCorrection(
            original=r.original,
            replacement=r.replacement,
            span=Span(start=r.start, end=r.end),
            reason=r.reason,
            rule=r.rule,
        )
        for r in rejections
    ]
    return corrections, rejected


def _grammar_edit(e: TextEdit) -> ResponseCorrection:
    return ResponseCorrection(
        correction_type=CorrectionType.Grammar,
        original=e.original,
        replacement=e.replacement,
        span=Span(start=e.start, end=e.end),
        confidence=round(e.confidence, 4),
        source=e.rule or "spelling",
        tier=e.tier,
        alternatives=list(e.alternatives),
        message=e.reason or None,
    )


def correct_response(
    engine: Engine,
    ctx: CallContext,
    flags: list[HallucinationFlag],
    style: str,
) -> CorrectedResponse:
    corrections: list[ResponseCorrection] = []
    limit = int(engine.setting("max-corrections"))
    for record in ctx.claims:
        if len(corrections) >= limit:
            break
        v = record.validation
        if v is None or v.status.kind != "Contradicted":
            continue
        confidence = v.status.confidence  # type: ignore[union-attr]
        if (
            engine.host.value(
                "correct-claim",
                Sym("Contradicted"),
                confidence,
                # the fix is a rewording, or no one value (rows sharing a name hold several)
                record.model.negated or record.attached.polar or bool(record.attached.rows),
            )
            is not True
        ):
            continue
        span = record.model.span
        if any(_overlaps(span, c.span) for c in corrections):
            continue
        said = record.model.object
        meridiem = re.match(r"\s*[ap]\.?m\.?(?!\w)", ctx.response[span.end :], re.IGNORECASE)
        if ValueType(record.value_type) == ValueType.time and meridiem:
            said += meridiem.group()  # "6:30" read without the "pm" after it
        kb_value = _unsaid(ctx, record, corrections) or v.status.kb_value  # type: ignore[union-attr]
        full = relative_day_like(said, kb_value, ctx.reference) or render_like(
            said, kb_value, ValueType(record.value_type)
        )
        span, replacement = whole_value(engine, ctx.response, span, full)
        source = "Knowledge Base" + (
            f" ({v.kb_evidence.source})" if v.kb_evidence and v.kb_evidence.source else ""
        )
        corrections.append(
            ResponseCorrection(
                correction_type=CorrectionType.Factual,
                original=ctx.response[span.start : span.end],
                replacement=replacement,
                span=span,
                confidence=confidence,
                source=source,
                message=f"{record.model.subject}'s {record.model.predicate} is {full}",
            )
        )
    rejected: list[RejectedCorrection] = []
    if engine.setting("grammar-correction") is True:  # facts first, then the remaining budget
        grammar, rejected = grammar_corrections(engine, ctx)
        grammar = _agreeing_with_replacements(engine, ctx, corrections, grammar)
        grammar = [g for g in grammar if not any(_overlaps(g.span, c.span) for c in corrections)]
        corrections += grammar[: max(0, limit - len(corrections))]
    edits = sorted((c for c in corrections if c.replacement is not None), key=edit_order)
    corrected_text = apply_edits(ctx.response, edits)
    corrections = _with_corrected_spans(edits)
    corrections.extend(_annotations(engine, ctx, flags, corrections))
    annotated = annotate(
        corrected_text,
        [c for c in corrections if c.correction_type == CorrectionType.Annotation],
        edits,
        engine,
        style,
    )
    return CorrectedResponse(
        original=ctx.response,
        corrected=corrected_text,
        annotated=annotated,
        annotation_style=style,  # type: ignore[arg-type]
        corrections=corrections,
        rejected=rejected,
    )


_WORD_BEFORE = re.compile(r"(\w+)\s+\Z")
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")


def _agreeing_with_replacements(
    engine: Engine,
    ctx: CallContext,
    facts: list[ResponseCorrection],
    grammar: list[ResponseCorrection],
) -> list[ResponseCorrection]:
    """Grammar edits with the word before each corrected value judged against the value put in
    ("an Flexible" corrected to Economy reads "an Economy", not "a Economy"): the spelling rules
    read that word in its sentence with the replacement in place, and only their edits of that
    word are kept for it."""
    out = list(grammar)
    text = ctx.response
    for fact in facts:
        before = _WORD_BEFORE.search(text, 0, fact.span.start)
        if before is None or fact.replacement is None:
            continue
        word = Span(start=before.start(1), end=before.end(1))
        start = max((m.end() for m in _SENTENCE_END.finditer(text, 0, word.start)), default=0)
        end = next((m.end() for m in _SENTENCE_END.finditer(text, fact.span.end)), len(text))
        local = text[start : fact.span.start] + fact.replacement + text[fact.span.end : end]
        edits, _ = engine.spelling.correct_with_log(local, [])
        out = [g for g in out if not _overlaps(g.span, word)]
        out += [
            _grammar_edit(e.model_copy(update={"start": e.start + start, "end": e.end + start}))
            for e in edits
            if word.start <= e.start + start and e.end + start <= word.end
        ]
    return sorted(out, key=lambda g: g.span.start)


def whole_value(engine: Engine, text: str, span: Span, replacement: str) -> tuple[Span, str]:
    """The span to replace and what to put there, so the corrected value reads whole: a compass
    point the reader left after a street ("... Peachtree Street Northwest") goes with the street
    it follows, and a tail of the KB value the reply already says right after the span (",
    Brooklyn", " Southeast") is not put in twice."""
    after = text[span.end :]
    said = text[span.start : span.end].split()
    point = re.match(r"\s+([^\W\d_]+)\b", after)
    if (
        point is not None
        and said
        and "street-word" in engine.words.markers.get(said[-1].strip(",.").lower())
        and "street-direction" in engine.words.markers.get(point[1].lower())
        and not replacement.casefold().endswith(point[1].casefold())
    ):
        span = Span(start=span.start, end=span.end + point.end())
        after = text[span.end :]
    for cut in (m.start() for m in re.finditer(r",?\s+", replacement)):
        tail = replacement[cut:]
        rest = after[len(tail) : len(tail) + 1]
        if after[: len(tail)].casefold() == tail.casefold() and not rest.isalnum():
            return span, replacement[:cut]
    return span, replacement


def _overlaps(a: Span, b: Span) -> bool:
    return a.start < b.end and b.start < a.end


def edit_order(c: ResponseCorrection) -> tuple[int, int]:
    """Edits in text order; at one offset an insertion comes before the edit that starts there
    ("in in" + a full stop after the first "in" + the second deleted = "in.")."""
    return c.span.start, c.span.end


def apply_edits(text: str, edits: list[ResponseCorrection]) -> str:
    """``text`` with the (disjoint) edits applied, right to left so each span stays valid; edits
    at one offset keep their order (two insertions there come out in list order)."""
    out = text
    for c in reversed(sorted(edits, key=edit_order)):
        out = out[: c.span.start] + (c.replacement or "") + out[c.span.end :]
    return out


def map_offset(position: int, edits: list[ResponseCorrection], *, end: bool = False) -> int:
    """Where a position of the original text lands in the corrected text (edits sorted, disjoint).

    A position inside a replaced span snaps to the replacement's start (or its end, for the end of
    a span), so a span that touches an edit still covers the edited text."""
    shift = 0
    for c in edits:
        start, stop, size = c.span.start, c.span.end, len(c.replacement or "")
        if stop <= position:
            shift += size - (stop - start)
        elif start < position:
            return start + shift + (size if end else 0)
        else:
            break
    return position + shift


def _with_corrected_spans(edits: list[ResponseCorrection]) -> list[ResponseCorrection]:
    """Each edit's span in the corrected text: its start moved by the edits before it."""
    out = []
    shift = 0
    for c in edits:
        start = c.span.start + shift
        size = len(c.replacement or "")
        out.append(c.model_copy(update={"corrected_span": Span(start=start, end=start + size)}))
        shift += size - (c.span.end - c.span.start)
    return out


def _annotations(
    engine: Engine,
    ctx: CallContext,
    flags: list[HallucinationFlag],
    corrections: list[ResponseCorrection],
) -> list[ResponseCorrection]:
    out: list[ResponseCorrection] = []
    fixed = [c.span for c in corrections if c.correction_type == CorrectionType.Factual]
    edits = [c for c in corrections if c.replacement is not None]
    for flag in flags:
        kind = engine.host.value("annotate-flag", flag.confidence)
        if kind == "NoAnnotation" or any(_overlaps(flag.span, s) for s in fixed):
            continue
        out.append(
            _annotation(
                ctx,
                flag.span,
                AnnotationType(str(kind)),
                flag.confidence,
                f"Potential hallucination: {flag.hallucination_type.value}",
                edits,
            )
        )
    for record in ctx.claims:
        kind = engine.host.value("annotate-claim", Sym(record.status))
        if kind == "NoAnnotation" or any(_overlaps(record.span, a.span) for a in out):
            continue
        message = (
            "Claim could not be verified"
            if kind == "Unverified"
            else "Claim conflicts with an earlier turn"
        )
        out.append(_annotation(ctx, record.span, AnnotationType(str(kind)), 0.5, message, edits))
    return out


def _annotation(
    ctx: CallContext,
    span: Span,
    kind: AnnotationType,
    confidence: float,
    message: str,
    edits: list[ResponseCorrection],
) -> ResponseCorrection:
    start = map_offset(span.start, edits)
    end = map_offset(span.end, edits, end=True)
    return ResponseCorrection(
        correction_type=CorrectionType.Annotation,
        original=ctx.response[span.start : span.end],
        span=span,
        corrected_span=Span(start=start, end=max(start, end)),
        confidence=confidence,
        annotation_type=kind,
        message=message,
    )


def annotate(
    text: str,
    annotations: list[ResponseCorrection],
    edits: list[ResponseCorrection],
    engine: Engine,
    style: str,
) -> str:
    """The corrected text with each annotated span marked in the chosen style."""
    labels = {str(kind): str(label) for kind, label in engine.host.facts("annotation-label")}
    spans = sorted(
        (a for a in annotations if a.corrected_span is not None),
        key=lambda a: a.corrected_span.start,
    )  # type: ignore[union-attr]
    out: list[str] = []
    cursor = 0
    escape = html.escape if style == "html" else (lambda s: s)
    for a in spans:
        s, e = a.corrected_span.start, a.corrected_span.end  # type: ignore[union-attr]
        if s < cursor:
            continue
        label = labels.get(a.annotation_type.value if a.annotation_type else "", "flagged")
        out.append(escape(text[cursor:s]))
        piece = text[s:e]
        if style == "html":
            css = re.sub(r"(?<!^)(?=[A-Z])", "-", a.annotation_type.value).lower()  # type: ignore[union-attr]
            out.append(
                f'<mark class="replyguard-{css}" title="{html.escape(label)}">'
                f"{html.escape(piece)}</mark>"
            )
        elif style == "markdown":
            out.append(f"**{piece}** _[{label}]_")
        else:
            out.append(f"{piece} [{label}]")
        cursor = e
    out.append(escape(text[cursor:]))
    return "".join(out)


# ---------------------------------------------------------------------------- value format


def _unsaid(ctx: CallContext, record, corrections: list[ResponseCorrection]) -> str | None:  # noqa: ANN001
    """For a wrong value in a list ("white and grey" of white and sand): the first KB value the
    reply does not already state of that subject and attribute, nor put in by a correction."""
    if len(record.kb_values) < 2:
        return None
    vtype = ValueType(record.value_type)
    said = [
        r.model.object
        for r in ctx.claims
        if r is not record
        and r.model.subject == record.model.subject
        and r.model.predicate == record.model.predicate
    ] + [c.replacement for c in corrections if c.replacement]
    keys = {value_key(vtype, str(v)) for v in said}
    return next((str(v) for v in record.kb_values if value_key(vtype, str(v)) not in keys), None)


_RELATIVE_WEEKDAY = re.compile(r"(?i)\s*(?P<lead>(?:next|this|coming|this coming)\s+)[a-z]+\s*")


def relative_day_like(claimed: str, kb_value: str, reference: datetime) -> str | None:
    """ "next Thursday" for a wrong "next Wednesday" when the KB's day is the Thursday that
    "next Thursday" means at the reference time; None otherwise (the date is written out)."""
    said = _RELATIVE_WEEKDAY.fullmatch(claimed)
    iso = normalise_date(kb_value)
    if said is None or iso is None or normalise_weekday(claimed.split()[-1]) is None:
        return None
    name = date.fromisoformat(iso[:10]).strftime("%A")
    phrase = said["lead"] + (name if claimed.split()[-1][:1].isupper() else name.lower())
    return phrase if normalise_date(phrase, reference) == iso[:10] else None


def render_like(claimed: str, kb_value: str, value_type: ValueType) -> str:
    """The KB value written the way the reply wrote the value it replaces."""
    if value_type == ValueType.time:
        kb_time = normalise_time(kb_value)
        if kb_time and re.search(r"(?i)[ap]\.?m\.?|noon|midday|midnight", claimed):
            return _twelve_hour(kb_time, claimed)  # "12 noon" -> "11am"
        bare = re.fullmatch(r"\s*\d{1,2}(?P<sep>\.)?(?:\d{2})?\s*", claimed)
        if kb_time and bare:  # a range's first end, its am/pm said at the second ("7.30 until")
            hour, minute = (int(x) for x in kb_time.split(":"))
            dot = bare["sep"] or ":"
            return (
                f"{hour % 12 or 12}{dot}{minute:02d}"
                if minute or bare["sep"]
                else f"{hour % 12 or 12}"
            )
        if kb_time and not re.search(r"\d", claimed):  # "half past seven" -> "2:15 pm"
            return _twelve_hour(kb_time, "1 pm")
        return kb_time or kb_value
    if value_type in (ValueType.date, ValueType.datetime, ValueType.year):
        iso = normalise_date(kb_value)
        if iso and normalise_weekday(claimed):
            name = date.fromisoformat(iso).strftime("%A")
            return name if claimed[:1].isupper() else name.lower()
        if iso and re.fullmatch(r"\d{4}", claimed.strip()):
            return iso[:4]
        if iso and len(iso) == 10 and not re.search(r"\d{4}", claimed):
            return _day_and_month(date.fromisoformat(iso), claimed)
    bare = re.fullmatch(r"\d+(?:\.\d+)?", kb_value.strip())
    said = re.match(r"\d+(?:\.\d+)?(?=[\s-]?(?:[^\W\d]|%))", claimed.strip())
    if value_type in (ValueType.number, ValueType.percent) and bare and said:
        # a bare number in the unit the reply wrote: "6 minutes" for 6, "61 degrees" for 61,
        # "15%" or "15 percent" for a percent column's 15, "an 18-month contract" for 18
        return kb_value.strip() + claimed.strip()[said.end() :]
    if value_type == ValueType.money and not FROM_PRICE.match(claimed.strip()):
        # "start from £129": "£119", not "from £119"
        kb_value = FROM_PRICE.sub("", kb_value.strip())
    if value_type == ValueType.money and money_key(kb_value) is None:
        # a bare amount in the currency the reply wrote: "$14.60" for 14.60
        m = MONEY_RE.fullmatch(claimed.strip())
        if m is not None and not m["m1"] and money_amount(kb_value) is not None:
            return claimed.strip().replace(m["a1"] or m["a2"], kb_value.strip(), 1)
    head = value_head(kb_value)
    if head is not None and _words_but_numbers(claimed) == _words_but_numbers(head):
        return head  # "11 Orchard Wynd" for "9 Orchard Wynd, Kelso": only the part said
    if value_type == ValueType.money and MONEY_RE.fullmatch(claimed.strip()):
        rate = rate_amount(kb_value)  # "£15" for "£15 per day" where "£20 a day" was said
        return rate if rate is not None else kb_value
    return kb_value


def _words_but_numbers(text: str) -> list[str]:
    return [w for w in re.findall(r"\w+", text.casefold()) if not any(c.isdigit() for c in w)]


_MONTH_RE = re.compile(r"(?i)\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)")


def _day_and_month(day: date, like: str) -> str:
    """A date without its year, in the order the reply wrote one ("18 December", "December
    18th", or "18th" alone): "8 December" for 2026-12-08."""
    month = day.strftime("%B")
    ordinal = re.search(r"\d(st|nd|rd|th)\b", like)
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10 if day.day // 10 != 1 else 0, "th")
    if ordinal and not _MONTH_RE.search(like):
        return f"{day.day}{suffix}"  # "the 16th": the day of the month alone, as said
    if re.match(r"\s*\d", like):
        return f"{day.day} {month}"
    return f"{month} {day.day}{suffix if ordinal else ''}"


def _twelve_hour(hhmm: str, like: str) -> str:
    hour, minute = (int(x) for x in hhmm.split(":"))
    suffix = "am" if hour < 12 else "pm"
    if like.strip()[-2:].isupper():
        suffix = suffix.upper()
    if "." in like.lower().replace(" ", "")[-4:]:
        suffix = suffix[0] + "." + suffix[1] + "."
    hour12 = hour % 12 or 12
    space = " " if re.search(r"\d\s+[ap]", like, re.IGNORECASE) else ""
    clock = f"{hour12}:{minute:02d}" if minute or ":" in like else f"{hour12}"
    return f"{clock}{space}{suffix}"
