"""Stage 1, coherence: measure the five analysers' evidence, let the rules score it.

Measurements here are lexical and structural (what the question asks for and whether the reply
holds such a value, overlap with active topics, speech acts, pronoun candidates); every score,
issue and severity comes from metta/coherence.metta.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from replyguard.atoms import claim_atom
from replyguard.kb import name_words
from replyguard.metta_host import Sym, to_atom
from replyguard.models import (
    CoherenceIssue,
    CoherenceIssueType,
    CoherenceResult,
    DiscourseCoherenceResult,
    EntityConsistencyResult,
    EntityType,
    Evidence,
    Explanation,
    PronounResolution,
    QUDRelevanceResult,
    QuestionType,
    ReferenceConsistencyResult,
    Span,
    TopicConsistencyResult,
    ValueType,
)
from replyguard.stages.acts import classify_reply_act, classify_turn_act, presupposition
from replyguard.stages.context import CallContext
from replyguard.stages.known_phrases import part_of_a_named
from replyguard.stages.polar_answers import direct_answer
from replyguard.stages.speculation import supposing_clauses, supposition_spans
from replyguard.text.lexer import Lexeme
from replyguard.text.questions import WH_WORDS, classify_question
from replyguard.text.temporal import NUMBER_WORDS, mention_weekday, names_weekday
from replyguard.text.words import STOPWORDS, content_stems, stem

if TYPE_CHECKING:
    from replyguard.engine import Engine

# "when" is answered by a time, a year ("it came out in 2013") or a wait ("in 4 minutes")
_TIME_TYPES = {ValueType.time, ValueType.datetime, ValueType.year, ValueType.duration}
_DATE_TYPES = {ValueType.date, ValueType.datetime, ValueType.year}
_NUMBER_TYPES = {ValueType.number, ValueType.money, ValueType.percent, ValueType.duration}
# the value types that can answer a question asking for a person, a place, a time, ...: a cue
# of an attribute of another type ("who *runs* operations?" beside runs_on) is not what is asked
_NAMED_TYPES = {ValueType.text, ValueType.enum, ValueType.entity}
_ANSWERING_TYPES = {
    "Person": _NAMED_TYPES,
    "Location": _NAMED_TYPES,
    "Time": _TIME_TYPES | {ValueType.date},
    "Date": _DATE_TYPES | {ValueType.time},
    "Number": _NUMBER_TYPES,
    "Age": _NUMBER_TYPES | _DATE_TYPES,
    "money": {ValueType.money},
}
# kinds of answer a stated value is (an entity, a manner or a reason may be said in words)
# a sentence's end: its mark, then any closing quotes or brackets, then only spaces
_WHOLE_END = re.compile(r"[.!?…][\"'”’)\]]*\s*$")
_VALUE_ANSWERS = {"Time", "Date", "Number", "Age", "Distance", "Duration"} | {
    t.value for t in ValueType
}


def check_coherence(engine: Engine, ctx: CallContext) -> CoherenceResult:
    reply_act = classify_reply_act(ctx.reply, engine.words)
    qud = _qud(engine, ctx, reply_act)
    topic = _topic(engine, ctx, reply_act)
    entity = _entity(engine, ctx)
    discourse = _discourse(engine, ctx, reply_act)
    reference = _reference(engine, ctx)
    score = float(
        engine.host.value(  # type: ignore[arg-type]
            "coherence-score",
            qud.score,
            topic.score,
            entity.score,
            discourse.score,
            reference.score,
        )
    )
    issues = [*qud.issues, *topic.issues, *entity.issues, *discourse.issues, *reference.issues]
    return CoherenceResult(
        score=round(score, 4),
        qud_relevance=qud,
        topic_consistency=topic,
        entity_consistency=entity,
        discourse_coherence=discourse,
        reference_consistency=reference,
        issues=issues,
    )


def _quoted(text: str) -> str:
    return str(to_atom(text))


def _issue(
    verdict: object,
    description: str,
    span: Span | None = None,
    evidence: list[Evidence] | None = None,
    explain: Callable[[], Explanation] | None = None,
) -> list[CoherenceIssue]:
    """The issue a verdict names, if any; its explanation is built only when there is one."""
    if not (isinstance(verdict, tuple) and verdict and verdict[0] == "Issue"):
        return []
    return [
        CoherenceIssue(
            issue_type=CoherenceIssueType(str(verdict[1])),
            span=span,
            description=description,
            severity=float(verdict[2]),
            evidence=evidence or [],
            explanation=explain() if explain else None,
        )
    ]


# ---------------------------------------------------------------------------- 1. QUD


def _qud(engine: Engine, ctx: CallContext, reply_act: str) -> QUDRelevanceResult:
    form = classify_question(ctx.query)
    focus_entity, focus_attribute = _query_focus(ctx)
    focus_type = (
        Sym(engine.index.attribute_type(focus_attribute).value)
        if focus_attribute in engine.index.schema
        else Sym("None")
    )
    wh = Sym(form.wh_word) if form.wh_word else Sym("None")
    expected = str(
        engine.host.value(
            "expected-answer", Sym(form.question_type.value), wh, form.head or "", focus_type
        )
    )
    relevance = round(_relevance(engine, ctx), 4)
    evidence = (
        (Sym("ClarificationEvidence"), relevance, Sym(_last_act(engine, ctx)))
        if reply_act == "ClarifyingQuestion"
        else _coverage_evidence(
            engine, ctx, form.question_type, expected, focus_entity, focus_attribute
        )
    )
    coverage = float(
        engine.host.value(  # type: ignore[arg-type]
            "answer-coverage", Sym(form.question_type.value), evidence
        )
    )
    verdict = engine.host.value("qud-verdict", coverage, relevance)
    _, score, addresses, issue = verdict  # type: ignore[misc]
    description = (
        f"Response does not address the question: '{ctx.query}'"
        if isinstance(issue, tuple) and issue[1] == "QUDNotAddressed"
        else "Response partially addresses the question"
    )
    return QUDRelevanceResult(
        score=round(float(score), 4),
        question_type=form.question_type,
        wh_word=form.wh_word,
        expected_answer=expected,
        answer_coverage=coverage,
        semantic_relevance=relevance,
        addresses_qud=bool(addresses),
        answers_another_question=evidence[0] in (Sym("AnswerEvidence"), Sym("YesNoEvidence"))
        and evidence[-1] is True,
        issues=_issue(
            issue,
            description,
            explain=lambda: engine.host.explain(
                "qud-verdict",
                coverage,
                relevance,
                atoms=[f"(query {_quoted(ctx.query)})"],
                because=[
                    engine.host.explain("answer-coverage", Sym(form.question_type.value), evidence),
                    engine.host.explain(
                        "expected-answer",
                        Sym(form.question_type.value),
                        wh,
                        form.head or "",
                        focus_type,
                    ),
                ],
            ),
        ),
    )


def _last_act(engine: Engine, ctx: CallContext) -> str:
    """The act of the user's last turn (None when there is no query)."""
    query_turn = ctx.dialogue.readings[-1] if ctx.dialogue.readings else None
    if not ctx.query.strip():
        return "None"
    return classify_turn_act(ctx.query, query_turn.turn.act if query_turn else None, engine.words)


def _query_focus(ctx: CallContext) -> tuple[str | None, str | None]:
    reading = ctx.query_reading
    entity = reading.mentions[0].entity_id if reading.mentions else None
    if entity is None and reading.pronouns and reading.pronouns[0].resolved:
        entity = reading.pronouns[0].resolved.entity_id
    cues = _naming_cues(reading.lexed.lexemes)
    return entity, (cues[0].attributes[0] if cues else None)


def _naming_cues(lexemes: list[Lexeme]) -> list[Lexeme]:
    """The cues that name an attribute by a word of their own: a preposition of a column's
    name ("on" of works_on) names no attribute by itself ("what time do you open on Monday?")."""
    return [
        lx
        for lx in lexemes
        if lx.cat == "CUE"
        and any(w not in STOPWORDS for w in re.findall(r"[a-z]+", lx.text.lower()))
    ]


def _coverage_evidence(
    engine: Engine,
    ctx: CallContext,
    qtype: QuestionType,
    expected: str,
    focus_entity: str | None,
    focus_attribute: str | None,
) -> object:
    reply = ctx.reply
    if qtype == QuestionType.YesNo:
        direct = direct_answer(reply.lexed) is not None
        affirmative = bool(reply.lexed.markers_of("affirmative-marker"))
        negative = bool(reply.lexed.markers_of("negative-marker"))
        # a supposition answers, hedged: "is it busy on Fridays?" - "it might be quiet then"
        stated = _states_asked(engine, ctx, focus_entity, focus_attribute) or bool(
            supposition_spans(ctx)
        )
        return (
            Sym("YesNoEvidence"),
            direct,
            affirmative,
            negative,
            stated,
            not (direct or affirmative or negative or stated)
            and _answers_another_polar(engine, ctx, focus_entity),
        )
    if qtype == QuestionType.Alternative:
        query_values = {
            lx.value_key or lx.text.lower()
            for lx in ctx.query_reading.lexed.lexemes
            if lx.cat in ("VAL", "ENT", "NAME")
        }
        reply_values = {
            lx.value_key or lx.text.lower()
            for lx in reply.lexed.lexemes
            if lx.cat in ("VAL", "ENT", "NAME")
        }
        return (Sym("AlternativeEvidence"), bool(query_values & reply_values))
    if qtype == QuestionType.Statement:
        return (
            Sym("StatementEvidence"),
            round(_relevance(engine, ctx), 4),
            bool(reply.lexed.markers_of("affirmative-marker")),
        )
    focus_value = (
        any(
            c.attached.predicate == focus_attribute
            and (focus_entity is None or c.attached.subject_id == focus_entity)
            for c in ctx.claims
        )
        if focus_attribute
        else False
    )
    form = classify_question(ctx.query)
    head = form.head
    if (
        not focus_value
        and head
        and engine.host.value("what-answer", head, Sym("None")) == Sym("Entity")
    ):
        # "what events do I have on March 7th?" - "You have a Stylist appointment at ...": an
        # entity of the kind the question asks for is the answer (its head names no value type)
        focus_value = _names_asked_kind(engine, ctx, head)
    present = _has_answer_type(engine, ctx, expected) or (
        form.wh_word == "when" and _dated_of_asked(engine, ctx, focus_entity)
    )
    return (
        Sym("AnswerEvidence"),
        focus_value,
        present,
        Sym(expected),
        not focus_value
        and not _supposes_asked(ctx)
        and _answers_another(engine, ctx, expected, present),
    )


def _names_asked_kind(engine: Engine, ctx: CallContext, head: str | None) -> bool:
    """The reply names a KB entity of the kind the question's head word names: its type
    ("events" of an Event), the last word of its name ("salons" of "Atelier Salon") or the word
    its columns are named for ("events" of a row holding event_date and event_time)."""
    if not head:
        return False
    kind = stem(head.lower())
    for lx in ctx.reply.lexed.lexemes:
        for entity_id in lx.entity_ids if lx.cat == "ENT" else ():
            entity = engine.index.entities[entity_id]
            words = [stem(w) for w in entity.name.lower().split()]
            columns = {stem(a.lower().split("_")[0]) for a in entity.attributes if "_" in a}
            if kind == stem(entity.type.value.lower()) or kind in words[-1:] or kind in columns:
                return True
    return False


def _supposes_asked(ctx: CallContext) -> bool:
    """Whether a clause of the reply supposes something of what the question asks ("When will
    she be ready for the exam?" - "most pupils are probably ready after a year"): a supposing
    clause that shares a content word with the question answers it, hedged (a flag marks the
    supposition for a reader), not another question."""
    asked = set(content_stems([t.text for t in ctx.query_reading.lexed.tokens]))
    tokens = ctx.reply.lexed.tokens
    return any(
        asked & set(content_stems([t.text for t in tokens if c.start <= t.start < c.end]))
        for c in supposing_clauses(ctx)
    )


def _answers_another(engine: Engine, ctx: CallContext, expected: str, present: bool) -> bool:
    """The reply claims values of other attributes than the question asks for: the attributes
    the question names ("what bulb does it take" -> bulb) are neither claimed nor mentioned, nor
    is a value of their type stated that no claim gave to another; or, when it names none, no
    value of the kind of answer asked for ("what time ...") is stated. A question asking for
    several things ("what time is it and who is coming?") is partly answered by one of them, and
    a claimed attribute whose name shares a word with the question is about what was asked."""
    claimed = {c.attached.predicate for c in ctx.claims}
    if _asks_several(ctx.query):
        return False
    fitting = _ANSWERING_TYPES.get(expected)
    if not claimed and not engine.host.value(
        "nothing-read-answers-another", _is_whole(ctx.response), _says_a_number(ctx, fitting)
    ):
        return False
    asked = {
        a
        for lx in _naming_cues(ctx.query_reading.lexed.lexemes)
        for a in lx.attributes
        if fitting is None or engine.index.attribute_type(a) in fitting
    }
    query_stems = set(content_stems([t.text for t in ctx.query_reading.lexed.tokens]))
    if any(query_stems & set(content_stems(name_words(a))) for a in claimed - asked):
        return False  # "free delivery?" -> "shipping is free over €50": free_shipping_over
    if asked:
        reply = ctx.reply.lexed.lexemes
        mentioned = {a for lx in reply if lx.cat == "CUE" for a in lx.attributes}
        types = {engine.index.attribute_type(a) for a in asked}
        # a value of an asked attribute's type that no claim gave to another attribute
        spans = {(c.span.start, c.span.end) for c in ctx.claims}
        stated = any(
            lx.cat == "VAL" and lx.value_type in types and (lx.start, lx.end) not in spans
            for lx in reply
        )
        return not (asked & (claimed | mentioned)) and not stated
    return not present and expected in _VALUE_ANSWERS


def _answers_another_polar(engine: Engine, ctx: CallContext, focus_entity: str | None) -> bool:
    """A yes/no question about a yes/no attribute of the entity it names ("is the studio
    step-free?" of step_free) answered by other attributes of it and by no word of the asked
    one ("the studio holds twelve people"). The attribute is the one whose name shares a word
    with the question; the caller has seen no yes, no or value of what was asked. A question
    that names nothing and asks "you" ("do you have a vet on call?") asks the organisation the
    reply speaks for."""
    focus_entity = _addressed(engine, ctx, focus_entity)
    if focus_entity not in engine.index.entities or not ctx.claims:
        return False
    asked = _asked_polar(engine, ctx, focus_entity)
    if not asked:
        return False
    reply_stems = set(ctx.reply.lexed.stems)
    claimed = {c.attached.predicate for c in ctx.claims}
    return not (asked & claimed) and not any(engine.index.polar[a] & reply_stems for a in asked)


def _addressed(engine: Engine, ctx: CallContext, focus_entity: str | None) -> str | None:
    """The entity a question asks about: the one it names, else, when it asks "you", the
    organisation the reply speaks for (when one does)."""
    if focus_entity is None and any(lx.cat == "ADDR" for lx in ctx.query_reading.lexed.lexemes):
        return engine.organisations[0] if len(engine.organisations) == 1 else None
    return focus_entity


def _asked_polar(engine: Engine, ctx: CallContext, entity_id: str | None) -> set[str]:
    """The yes/no attributes (of the entity asked about, if one is) whose names share a word
    with the question: "is the hall step-free?" asks step_free_access."""
    entity = engine.index.entities.get(entity_id) if entity_id else None
    query_stems = set(content_stems([t.text for t in ctx.query_reading.lexed.tokens]))
    return {
        a
        for a, stems in engine.index.polar.items()
        if (entity is None or a in entity.attributes) and stems & query_stems
    }


def _dated_of_asked(engine: Engine, ctx: CallContext, focus_entity: str | None) -> bool:
    """Whether a claim gives the thing a when-question asks about a day or a date ("when is the
    taster on?" - "it runs on Saturdays"); a date said of anything else ("Ines will ring you
    tomorrow") answers nothing. A question that names nothing the reader could resolve ("When
    would it be available again?") asks about what the reply then dates; one that names a
    thing asks about every entity of its name (another performance of the same show)."""
    asked = (
        _namesakes(engine, focus_entity) if focus_entity is not None else _shared_names_asked(ctx)
    )
    return any(
        (not asked or c.attached.subject_id in asked or asked.intersection(c.attached.rows))
        and engine.index.attribute_type(c.attached.predicate) in _DATE_TYPES
        for c in ctx.claims
    )


def _namesakes(engine: Engine, entity_id: str) -> set[str | None]:
    """An entity and every other one of the same name."""
    label = engine.index.entities[entity_id].label if entity_id in engine.index.entities else None
    return {entity_id} | {i for i, e in engine.index.entities.items() if label and e.label == label}


def _shared_names_asked(ctx: CallContext) -> set[str | None]:
    """The entities sharing a name the question says ("When is Winter Carols on?" of three
    performances): any of them is what it asks about."""
    return {e for lx in ctx.query_reading.lexed.lexemes if lx.cat == "ENT" for e in lx.entity_ids}


def _is_whole(text: str) -> bool:
    """Whether the reply may be whole: it ends a sentence. A stream's text so far stops
    anywhere ("The taster is "), so a reply that ends mid-sentence is taken for the start of a
    longer one."""
    return bool(_WHOLE_END.search(text))


def _says_a_number(ctx: CallContext, fitting: set[ValueType] | None) -> bool:
    """Whether the reply holds a number in digits or words ("twenty pounds", "eight places")
    that may be an answer of the `fitting` types the reading missed: a bare number ("they're 9
    each") may be, a number inside a value of another type ("it takes 2 hours" to a price
    question) is not, nor is "one" said as a pronoun ("one of our best", "this one")."""
    tokens = ctx.reply.lexed.tokens
    other = [
        (lx.start, lx.end)
        for lx in ctx.reply.lexed.lexemes
        if fitting is not None
        and lx.cat == "VAL"
        and lx.value_type not in fitting | {ValueType.number}
    ]
    for k, t in enumerate(tokens):
        if t.kind != "num" and not any(w in NUMBER_WORDS for w in t.lower.split("-")):
            continue
        if any(a <= t.start < b for a, b in other):
            continue
        if t.lower == "one" and (
            (k + 1 < len(tokens) and tokens[k + 1].lower == "of")
            or (k > 0 and tokens[k - 1].lower in _PRONOUN_ONE_AFTER)
        ):
            continue
        return True
    return False


# words after which "one" is a pronoun, not a number: "the blue one", "this one", "each one"
_PRONOUN_ONE_AFTER = frozenset({"the", "this", "that", "which", "each", "every", "any", "no"})


def _asks_several(query: str) -> bool:
    return sum(w in WH_WORDS for w in re.findall(r"[a-z]+", query.lower())) > 1


def _states_asked(
    engine: Engine, ctx: CallContext, focus_entity: str | None, focus_attribute: str | None
) -> bool:
    """Whether the reply answers a yes/no question by stating what it asks about: the words of
    the yes/no attribute it asks, a value of the attribute the question names or of the kind of
    value it holds ("Is it from 2015?" - "It's from 2011") or of an attribute whose name shares
    a word with the question ("is it from five years back?" - "it's from 2013": year), or, to a
    question asking for
    things (`instance-request`: "Can you find ...", "anything else?"), a KB entity the
    question does not name; a question that asks "you" for the whole of a yes/no attribute of
    the organisation ("do you have an indoor arena?") asks no things."""
    reply_stems = set(ctx.reply.lexed.stems)
    if any(engine.index.polar[a] <= reply_stems for a in _asked_polar(engine, ctx, focus_entity)):
        return True  # "are you open late?" - "we aren't open late": the reply says it, in words
    query = ctx.query_reading.lexed
    kinds = {lx.value_type for lx in query.lexemes if lx.cat == "VAL" and lx.value_type}
    if any("money-word" in engine.words.markers.get(t.lower) for t in query.tokens):
        kinds.add(ValueType.money)  # "Do you charge to look at it?" - "there's a £20 fee"
    days = {d for m in query.temporal if (d := mention_weekday(m)) is not None}
    # the words of the question outside the names it says ("the pony club day" names no days)
    names = [(lx.start, lx.end) for lx in query.lexemes if lx.cat in ("ENT", "NAME")]
    query_stems = set(
        content_stems([t.text for t in query.tokens if not any(a <= t.start < b for a, b in names)])
    )
    if any(
        c.attached.predicate == focus_attribute
        or c.attached.value.value_type in kinds
        or query_stems & set(content_stems(name_words(c.attached.predicate)))
        or any(names_weekday(c.attached.predicate, d) for d in days)  # "on Sunday?"
        for c in ctx.claims
    ):
        return True
    if not query.markers_of("instance-request"):
        return False
    organisation = _addressed(engine, ctx, focus_entity)
    query_stems = set(query.stems)
    if organisation != focus_entity and any(
        engine.index.polar[a] <= query_stems for a in _asked_polar(engine, ctx, organisation)
    ):
        return False  # "do you have a vet on call?" asks the organisation's vet_on_call
    asked = {m.entity_id for m in ctx.query_reading.mentions}
    return any(m.entity_id not in asked for m in ctx.reply.mentions)


def _has_answer_type(engine: Engine, ctx: CallContext, expected: str) -> bool:
    lexemes = ctx.reply.lexed.lexemes
    values = [lx for lx in lexemes if lx.cat == "VAL"]

    def entity_of(types: set[EntityType]) -> bool:
        for lx in lexemes:
            if lx.cat == "ENT" and any(
                engine.index.entities[e].type in types for e in lx.entity_ids
            ):
                return True
        return False

    if expected == "Time":
        # a length a claim gave to a duration attribute ("lasts 15 minutes") is no time of day
        lengths = {
            (c.span.start, c.span.end)
            for c in ctx.claims
            if engine.index.attribute_type(c.attached.predicate) == ValueType.duration
        }
        return any(
            (v.value_type in _TIME_TYPES and (v.start, v.end) not in lengths)
            or (v.temporal and v.temporal.kind in ("time", "part_of_day"))
            for v in values
        )
    if expected == "Date":
        return any(v.value_type in _DATE_TYPES for v in values)
    if expected == "Age":  # "over 40 machines" counts machines: no age
        return any(v.value_type in _ANSWERING_TYPES["Age"] and not v.counted for v in values)
    if expected == "Person":
        return entity_of({EntityType.Person}) or any(lx.cat == "NAME" for lx in lexemes)
    if expected == "Location":
        named = entity_of({EntityType.Location}) or any(lx.cat in ("NAME", "VAL") for lx in lexemes)
        return named and bool(ctx.reply.lexed.markers_of("location-marker"))
    if expected == "Reason":
        return bool(ctx.reply.lexed.markers_of("reason-marker"))
    if expected in ("Number", "Distance", "Duration", "Frequency"):
        return any(v.value_type in _NUMBER_TYPES for v in values)
    if expected in {t.value for t in ValueType}:
        return any(v.value_type == ValueType(expected) for v in values)
    return bool(values) or any(lx.cat in ("ENT", "NAME") for lx in lexemes)


def _reply_stems(engine: Engine, ctx: CallContext) -> list[str]:
    """The reply's content stems and, for each KB entity it names, what the KB says the entity
    is (its short free-text values): "P.F. Changs" answers a question about restaurants."""
    max_words = int(engine.setting("descriptor-max-words"))  # type: ignore[arg-type]
    stems = dict.fromkeys(ctx.reply.lexed.stems)
    for mention in ctx.reply.mentions:
        stems.update(dict.fromkeys(engine.index.descriptors(mention.entity_id, max_words)))
    return list(stems)


def _relevance(engine: Engine, ctx: CallContext) -> float:
    """Lexical relevance: the question's focus words (the subject after the verb) weigh 0.6, the
    overlap of the remaining content words (cosine over word sets) 0.4. A turn with no such
    focus (a request) is measured by the share of its content words the reply takes up, doubled
    and capped at 1 (half of them is full relevance)."""
    query_words = [t.text for t in ctx.query_reading.lexed.tokens]
    reply_stems = set(_reply_stems(engine, ctx))
    reply_stems |= {m.entity_id for m in ctx.reply.mentions}
    focus = _focus_words(query_words)
    form = classify_question(ctx.query)
    others = [
        s
        for s in content_stems(query_words)
        if s not in focus and s != (stem(form.head) if form.head else None)
    ]
    others += [m.entity_id for m in ctx.query_reading.mentions]
    if not focus:  # a request ("Schedule a call with HR"): how much of it the reply takes up
        wanted = set(others)
        return min(1.0, 2 * len(wanted & reply_stems) / len(wanted)) if wanted else 1.0
    focus_hit = 1.0 if set(focus) & reply_stems else 0.0
    if others:
        shared = len(set(others) & reply_stems)
        cosine = shared / ((len(set(others)) * max(1, len(reply_stems))) ** 0.5)
    else:
        cosine = 1.0 if focus_hit else 0.0
    return 0.6 * focus_hit + 0.4 * min(1.0, cosine)


_FOCUS_STOP = {"with", "for", "from", "about", "in", "on", "at", "to", "of", "by", "?", ",", "."}


def _focus_words(words: list[str]) -> list[str]:
    """Content stems of the first noun phrase after the question's verb ("is the meeting ...")."""
    lowered = [w.lower() for w in words]
    start = next(
        (
            i + 1
            for i, w in enumerate(lowered)
            if w in ("is", "are", "was", "were", "does", "do", "did", "will", "can", "'s")
        ),
        None,
    )
    if start is None:
        return []
    phrase = []
    for w in lowered[start:]:
        if w in _FOCUS_STOP:
            break
        phrase.append(w)
    return content_stems(phrase)


# ---------------------------------------------------------------------------- 2. topic


def _topic(engine: Engine, ctx: CallContext, reply_act: str) -> TopicConsistencyResult:
    topics = ctx.dialogue.topics
    activation = {k: t.activation for t in topics for k in t.keywords}
    reply_stems = _reply_stems(engine, ctx)
    related = [s for s in reply_stems if s in activation]
    share = len(related) / len(reply_stems) if reply_stems else 1.0
    best = max((activation[s] for s in related), default=0.0)
    marker = bool(ctx.reply.lexed.markers_of("drift-marker"))
    args = (bool(topics), round(share, 4), round(best, 4), marker, Sym(reply_act))
    verdict = engine.host.value("topic-verdict", *args)
    _, score, drift, issue = verdict  # type: ignore[misc]
    unrelated = [s for s in reply_stems if s not in activation and s not in STOPWORDS]
    description = "Reply moves away from the conversation's topics" + (
        f" ({', '.join(unrelated[:5])})" if unrelated else ""
    )
    active = sorted(topics, key=lambda t: -t.activation)
    return TopicConsistencyResult(
        score=round(float(score), 4),
        drift_detected=bool(drift),
        active_topics=[t.label for t in active[:10]],
        issues=_issue(
            issue,
            description,
            explain=lambda: engine.host.explain(
                "topic-verdict",
                *args,
                atoms=[f"(topic {t.label} {t.activation})" for t in active[:5]],
            ),
        ),
    )


# ---------------------------------------------------------------------------- 3. entity


def _entity(engine: Engine, ctx: CallContext) -> EntityConsistencyResult:
    by_subject: dict[str, list] = {}
    for record in ctx.claims:
        if record.attached.subject_id is not None:
            by_subject.setdefault(record.attached.subject_id, []).append(record)
    issues: list[CoherenceIssue] = []
    mismatches = 0
    for records in by_subject.values():
        wrong = [r for r in records if r.status in ("Contradicted", "HistoryConflict")]
        if not wrong:
            continue
        mismatches += 1
        for r in wrong:
            expected = (
                r.validation.kb_evidence.value
                if r.validation and r.validation.kb_evidence
                else (r.history[-1][0].value if r.history else None)
            )
            issues += _issue(
                engine.host.value("entity-issue", Sym("Mismatch")),
                f"{r.model.subject} is described with {r.model.predicate} "
                f"'{r.model.object}'" + (f", known as '{expected}'" if expected else ""),
                span=r.model.span,
                evidence=(
                    [r.validation.kb_evidence] if r.validation and r.validation.kb_evidence else []
                ),
                explain=lambda r=r: engine.host.explain(
                    "entity-issue", Sym("Mismatch"), atoms=[str(claim_atom(r)), *r.evidence_atoms]
                ),
            )
    for name in ctx.reply.names:
        if not ctx.dialogue.mentions(name.text) and not part_of_a_named(engine.index, ctx, name):
            issues += _issue(
                engine.host.value("entity-issue", Sym("Unknown")),
                f"'{name.text}' is neither in the knowledge base nor the dialogue",
                span=Span(start=name.start, end=name.end),
                explain=lambda: engine.host.explain("entity-issue", Sym("Unknown")),
            )
    score = float(
        engine.host.value(
            "entity-consistency-score",
            len(by_subject),  # type: ignore[arg-type]
            mismatches,
        )
    )
    return EntityConsistencyResult(
        score=round(score, 4),
        references_checked=len(by_subject),
        mismatches=mismatches,
        issues=issues,
    )


# ---------------------------------------------------------------------------- 4. discourse


def _discourse(engine: Engine, ctx: CallContext, reply_act: str) -> DiscourseCoherenceResult:
    last_act = _last_act(engine, ctx)
    conflict = presupposition(ctx, engine.words)
    verdict = engine.host.value(
        "discourse-verdict",
        Sym(last_act),
        Sym(reply_act),
        Sym("Conflict" if conflict else "Consistent"),
    )
    _, score, issue = verdict  # type: ignore[misc]
    if conflict:
        description = (
            f"The reply presupposes the {conflict.noun} was {conflict.presupposed.lower()}"
            f", but turn {conflict.turn_id} has it {conflict.known.lower()}"
        )
        evidence = [Evidence(kind="turn", turn_id=conflict.turn_id, text=conflict.turn_text)]
    else:
        description = f"A {reply_act} does not answer a {last_act}"
        evidence = []
    expected = [
        a
        for a in (
            "Answer",
            "ClarifyingQuestion",
            "Confirmation",
            "ConfirmationRequest",
            "Commitment",
            "Refusal",
            "Greeting",
            "Acknowledgement",
            "Closing",
        )
        if engine.host.holds("act-fits", Sym(last_act), Sym(a))
    ]
    return DiscourseCoherenceResult(
        score=round(float(score), 4),
        expected_acts=expected,
        reply_act=reply_act,
        issues=_issue(
            issue,
            description,
            evidence=evidence,
            explain=lambda: engine.host.explain(
                "discourse-verdict",
                Sym(last_act),
                Sym(reply_act),
                Sym("Conflict" if conflict else "Consistent"),
                atoms=[
                    f"(query {_quoted(ctx.query)})",
                    *([f"(turn {conflict.turn_id})"] if conflict else []),
                ],
            ),
        ),
    )


# ---------------------------------------------------------------------------- 5. reference


def _reference(engine: Engine, ctx: CallContext) -> ReferenceConsistencyResult:
    resolutions = []
    issues: list[CoherenceIssue] = []
    resolved = 0
    counted = 0
    for reading in ctx.reply.pronouns:
        lexeme: Lexeme = reading.lexeme
        neuter = engine.words.pronouns[lexeme.pronoun or ""].gender == "Neuter"
        verdict = engine.host.value("pronoun-verdict", len(reading.candidates), neuter)
        if verdict == "Expletive":
            continue
        counted += 1
        names = [c.name for c in reading.candidates]
        if verdict == "Resolved":
            resolved += 1
        span = Span(start=lexeme.start, end=lexeme.end)
        if len(names) > 1:
            description = f"'{lexeme.text}' could refer to {' or '.join(names[:4])}"
        else:
            description = f"'{lexeme.text}' has no salient referent that agrees with it"
        issues += _issue(
            verdict,
            description,
            span=span,
            explain=lambda n=reading, x=neuter: engine.host.explain(
                "pronoun-verdict",
                len(n.candidates),
                x,
                atoms=[f"(salient {c.key} {round(c.salience, 3)})" for c in n.candidates],
            ),
        )
        resolutions.append(
            PronounResolution(
                pronoun=lexeme.text,
                span=span,
                candidates=names,
                resolved_to=names[0] if len(names) == 1 else None,
            )
        )
    score = float(engine.host.value("reference-score", resolved, counted))  # type: ignore[arg-type]
    return ReferenceConsistencyResult(score=round(score, 4), pronouns=resolutions, issues=issues)
