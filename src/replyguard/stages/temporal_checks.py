"""TemporalError candidates: tense against date, far-future years, impossible order, a relative
date that disagrees with the absolute one beside it, a weekday that does not fit its date."""

from __future__ import annotations

from typing import TYPE_CHECKING

from replyguard.metta_host import Sym
from replyguard.models import HallucinationType, Span
from replyguard.stages.candidates import Candidate
from replyguard.stages.context import CallContext
from replyguard.text.lexer import Marker
from replyguard.text.temporal import TemporalMention

if TYPE_CHECKING:
    from replyguard.engine import Engine

_FUTURE_WORDS = {"will", "shall", "going", "gonna", "'ll"}
_AUXILIARY_PAST = {"was", "were", "had", "did"}
_EXPLICIT_KINDS = {"date", "relative_day", "relative_weekday", "datetime"}
_NEARBY_TOKENS = 4


def temporal_candidates(engine: Engine, ctx: CallContext) -> list[Candidate]:
    return [
        *_tense(ctx),
        *_far_future(ctx),
        *_order(ctx),
        *_relative_mismatch(ctx),
        *_weekday_mismatch(ctx),
    ]


def _in(sentence: tuple[int, int], start: int) -> bool:
    return sentence[0] <= start <= sentence[1]


def _markers(ctx: CallContext, kind: str, sentence: tuple[int, int]) -> list[Marker]:
    return [m for m in ctx.reply.lexed.markers if m.kind == kind and _in(sentence, m.start)]


def _past_event(ctx: CallContext, sentence: tuple[int, int]) -> bool:
    """The sentence reports an event in the past ("was held"), not a past plan ("was moved to")."""
    words = [t.lower for t in ctx.reply.lexed.tokens if _in(sentence, t.start)]
    if _FUTURE_WORDS & set(words):
        return False
    planning = {m.text.lower() for m in _markers(ctx, "planning-verb", sentence)}
    for marker in _markers(ctx, "past-event-marker", sentence):
        text = marker.text.lower()
        if text in _AUXILIARY_PAST:
            after = [
                t.lower for t in ctx.reply.lexed.tokens if marker.end <= t.start <= marker.end + 20
            ][:2]
            if planning & set(after):
                continue
        return True
    return False


def _tense(ctx: CallContext) -> list[Candidate]:
    out = []
    today = ctx.reference.date()
    for mention in ctx.reply.lexed.temporal:
        in_future = (
            mention.kind in _EXPLICIT_KINDS
            and mention.date is not None
            and mention.date > today
            and (mention.kind != "date" or mention.year)
        )
        in_future = in_future or (
            mention.kind in ("year", "relative_year")
            and mention.year is not None
            and mention.year > today.year
        )
        if not in_future:
            continue
        sentence = ctx.sentence_of(mention.start)
        if _past_event(ctx, sentence):
            out.append(
                Candidate(
                    HallucinationType.TemporalError,
                    Sym("PastTenseAboutFuture"),
                    Span(start=mention.start, end=mention.end),
                    f"past tense about {mention.text}, which is after {today.isoformat()}",
                    suggestion="Use the future tense or check the date",
                )
            )
    return out


def _far_future(ctx: CallContext) -> list[Candidate]:
    out = []
    year_now = ctx.reference.year
    for mention in ctx.reply.lexed.temporal:
        if mention.year is not None and mention.year > year_now:
            out.append(
                Candidate(
                    HallucinationType.TemporalError,
                    (Sym("YearBeyondReference"), mention.year - year_now),
                    Span(start=mention.start, end=mention.end),
                    f"{mention.year} is {mention.year - year_now} years after {year_now}",
                    suggestion="Check the year",
                )
            )
    return out


def _nearest_date_after(ctx: CallContext, position: int, sentence: tuple[int, int]):  # noqa: ANN202
    later = [
        m
        for m in ctx.reply.lexed.temporal
        if m.start >= position and _in(sentence, m.start) and m.date is not None
    ]
    return later[0] if later else None


def _order(ctx: CallContext) -> list[Candidate]:
    out = []
    for s in ctx.reply.lexed.sentences:
        sentence = (s.start, s.end)
        starts = _markers(ctx, "event-start-verb", sentence)
        ends = _markers(ctx, "event-end-verb", sentence)
        befores = _markers(ctx, "order-before", sentence)
        afters = _markers(ctx, "order-after", sentence)
        span = Span(start=s.start, end=s.end)
        for end in ends:
            for start in starts:
                first, second = (end, start) if end.start < start.start else (start, end)
                between_before = any(first.end <= b.start < second.start for b in befores)
                between_after = any(first.end <= a.start < second.start for a in afters)
                wrong_words = (first is end and between_before) or (
                    first is start and between_after
                )
                d_end = _nearest_date_after(ctx, end.end, sentence)
                d_start = _nearest_date_after(ctx, start.end, sentence)
                wrong_dates = (
                    d_end is not None
                    and d_start is not None
                    and d_end is not d_start
                    and d_end.date < d_start.date
                )
                if wrong_words or wrong_dates:
                    out.append(
                        Candidate(
                            HallucinationType.TemporalError,
                            Sym("OrderViolation"),
                            span,
                            f"'{end.text}' is placed before '{start.text}'",
                            suggestion="Check the order of events",
                        )
                    )
        out.extend(_explicit_order(ctx, sentence, befores, afters, span))
    return out


def _explicit_order(
    ctx: CallContext,
    sentence: tuple[int, int],
    befores: list[Marker],
    afters: list[Marker],
    span: Span,
) -> list[Candidate]:
    """ "X on D1 before Y on D2" with D1 after D2 (and the mirror for "after")."""
    dated = [m for m in ctx.reply.lexed.temporal if _in(sentence, m.start) and m.date is not None]
    out = []
    for marker, wants_earlier in [*((b, True) for b in befores), *((a, False) for a in afters)]:
        left = [m for m in dated if m.end <= marker.start]
        right = [m for m in dated if m.start >= marker.end]
        if not (left and right):
            continue
        d1, d2 = left[-1].date, right[0].date
        if (wants_earlier and d1 > d2) or (not wants_earlier and d1 < d2):
            out.append(
                Candidate(
                    HallucinationType.TemporalError,
                    Sym("OrderViolation"),
                    span,
                    f"{left[-1].text} is not {marker.text} {right[0].text}",
                    suggestion="Check the order of the dates",
                )
            )
    return out


def _close(ctx: CallContext, a: TemporalMention, b: TemporalMention) -> bool:
    lo, hi = sorted((a, b), key=lambda m: m.start)
    between = [t for t in ctx.reply.lexed.tokens if lo.end <= t.start < hi.start]
    return len(between) <= _NEARBY_TOKENS and not any(t.text in ".;!?" for t in between)


def _relative_mismatch(ctx: CallContext) -> list[Candidate]:
    out = []
    mentions = ctx.reply.lexed.temporal
    for rel in (m for m in mentions if m.kind in ("relative_year", "relative_day")):
        for other in mentions:
            if other is rel or not _close(ctx, rel, other):
                continue
            if (
                rel.kind == "relative_year"
                and other.kind == "year"
                and other.year != rel.year
                or rel.kind == "relative_day"
                and other.kind == "date"
                and other.year
                and other.date != rel.date
            ):
                disagree = True
            else:
                continue
            if disagree:
                lo, hi = sorted((rel, other), key=lambda m: m.start)
                out.append(
                    Candidate(
                        HallucinationType.TemporalError,
                        Sym("RelativeDateMismatch"),
                        Span(start=lo.start, end=hi.end),
                        f"'{rel.text}' is {rel.value} on {ctx.reference.date().isoformat()}, "
                        f"not {other.text}",
                        suggestion="Keep one consistent date",
                    )
                )
    return out


def _weekday_mismatch(ctx: CallContext) -> list[Candidate]:
    return [
        Candidate(
            HallucinationType.TemporalError,
            Sym("WeekdayDateMismatch"),
            Span(start=m.start, end=m.end),
            f"{m.date.strftime('%A') if m.date else 'that date'} is the real weekday of {m.text}",
            suggestion="Check the weekday against the date",
        )
        for m in ctx.reply.lexed.temporal
        if m.stated_weekday_conflict
    ]
