"""Stage 3, hallucination detection: find candidates of the eight types, let the rules judge.

Each candidate is described by symbolic evidence (what the reply says, what the KB and the
dialogue say); `(flag-verdict TYPE EVIDENCE MARKER WORLD)` in metta/hallucination.metta gives its
confidence or drops it. Overlapping flags are merged, keeping the one the rules rank highest.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rapidfuzz import fuzz

from replyguard.atoms import (
    attributes_holding,
    claim_atom,
    holder_count,
    key_symbol,
    value_holders,
)
from replyguard.metta_host import Sym
from replyguard.models import Evidence, HallucinationFlag, HallucinationType, Span, ValueType
from replyguard.spelling.lexicon import english
from replyguard.stages.candidates import Candidate
from replyguard.stages.context import CallContext, ClaimRecord
from replyguard.stages.empty_lookup import nothing_found_candidates
from replyguard.stages.grounding import ungrounded_candidates
from replyguard.stages.known_phrases import names_known_thing, part_of_a_named
from replyguard.stages.logic_checks import logic_candidates
from replyguard.stages.new_entities import reply_names
from replyguard.stages.polar_answers import polar_candidates
from replyguard.stages.restatement import restatement_candidates
from replyguard.stages.speculation import speculation_candidates
from replyguard.stages.temporal_checks import temporal_candidates
from replyguard.stages.unknown_people import unknown_people_candidates
from replyguard.stages.unknown_things import unknown_thing_candidates
from replyguard.stages.user_needs import user_need_candidates
from replyguard.text.lexer import FUNCTION_WORDS, Lexeme
from replyguard.values import fold, value_key

_NAMED_HOLDERS = 5

if TYPE_CHECKING:
    from replyguard.engine import Engine


def detect_hallucinations(
    engine: Engine, ctx: CallContext, reply_act: str
) -> list[HallucinationFlag]:
    candidates = [
        *restatement_candidates(engine, ctx, reply_act),
        *user_need_candidates(engine, ctx, reply_act),
        *_claim_candidates(engine, ctx),
        *_entity_candidates(engine, ctx),
        *unknown_thing_candidates(engine, ctx),
        *unknown_people_candidates(engine, ctx),
        *_unsupported_candidates(ctx),
        *speculation_candidates(ctx),
        *nothing_found_candidates(engine, ctx),
        *ungrounded_candidates(ctx),
        *temporal_candidates(engine, ctx),
        *logic_candidates(engine, ctx),
        *polar_candidates(engine, ctx),
    ]
    flags = []
    world = Sym(engine.kb.world)
    for cand in candidates:
        marker = _marker(ctx, cand.span)
        verdict = engine.host.value(
            "flag-verdict", Sym(cand.type.value), cand.evidence, Sym(marker), world
        )
        if not (isinstance(verdict, tuple) and verdict[0] == "Flag"):
            continue
        confidence = round(float(verdict[1]), 4)
        reason = cand.reason + ("" if marker == "Plain" else f" ({marker.lower()} wording)")
        flags.append(
            HallucinationFlag(
                hallucination_type=cand.type,
                span=cand.span,
                content=ctx.response[cand.span.start : cand.span.end],
                confidence=confidence,
                suggestion=cand.suggestion,
                reason=reason,
                evidence=cand.support,
                explanation=engine.host.explain(
                    "flag-verdict",
                    Sym(cand.type.value),
                    cand.evidence,
                    Sym(marker),
                    world,
                    atoms=cand.atoms,
                ),
            )
        )
    return _merge(engine, flags)


def _marker(ctx: CallContext, span: Span) -> str:
    start, end = ctx.sentence_of(span.start)
    inside = [m for m in ctx.reply.lexed.markers if start <= m.start and m.end <= end + 1]
    if any(m.kind == "hedge" for m in inside):
        return "Hedged"
    if any(m.kind == "certainty-marker" for m in inside):
        return "Certain"
    return "Plain"


def _merge(engine: Engine, flags: list[HallucinationFlag]) -> list[HallucinationFlag]:
    """Overlapping flags of one type become one: the highest-ranked stays, the others join its
    reason. Flags of different types on one span stay apart: each says something different
    (a wrong value, and that the value is someone else's)."""
    ranked = sorted(
        flags,
        key=lambda f: (
            -float(
                engine.host.value(  # type: ignore[arg-type]
                    "flag-rank", Sym(f.hallucination_type.value), f.confidence
                )
            )
        ),
    )
    kept: list[HallucinationFlag] = []
    for flag in ranked:
        host = next(
            (
                k
                for k in kept
                if k.hallucination_type == flag.hallucination_type
                and k.span.start < flag.span.end
                and flag.span.start < k.span.end
            ),
            None,
        )
        if host is None:
            kept.append(flag)
            continue
        host.reason += f"; also {flag.hallucination_type.value}: {flag.reason}"
        host.evidence.extend(e for e in flag.evidence if e not in host.evidence)
    return sorted(kept, key=lambda f: (f.span.start, f.span.end))


# ---------------------------------------------------------------------------- claims


def _claim_candidates(engine: Engine, ctx: CallContext) -> list[Candidate]:
    out: list[Candidate] = []
    window = int(engine.setting("history-window"))
    last = len(ctx.dialogue.readings) - 1
    turn_index = {r.turn.id: r.index for r in ctx.dialogue.readings}
    for record in ctx.claims:
        status = record.status
        claim = record.model
        first = len(out)
        if status == "Contradicted":
            kb = record.validation.status.kb_value  # type: ignore[union-attr]
            out.append(
                Candidate(
                    HallucinationType.ContradictsFact,
                    (Sym("KbContradiction"), record.kb_confidence),
                    claim.span,
                    f"{claim.subject}'s {claim.predicate} is '{kb}' in the knowledge base",
                    suggestion=f"Use '{kb}'",
                    support=[record.validation.kb_evidence]
                    if record.validation.kb_evidence
                    else [],
                )
            )
            out.extend(_wrong_attribute(engine, record))
        conflicting = [e for e, agrees in record.history if not agrees]
        if conflicting and not claim.negated:
            turn = conflicting[-1]
            ago = last - turn_index.get(turn.turn_id, last)
            out.append(
                Candidate(
                    HallucinationType.ContradictsPrior,
                    (Sym("PriorContradiction"), min(ago, window + 1), status == "Verified"),
                    claim.span,
                    f"turn {turn.turn_id} said {claim.subject}'s {claim.predicate} is "
                    f"'{turn.value}'",
                    suggestion=f"Use '{turn.value}' as stated earlier",
                    support=conflicting,
                )
            )
        if status in ("Unverifiable",) and not record.history:
            out.extend(_fabricated(engine, ctx, record))
        for cand in out[first:]:
            cand.atoms = [str(claim_atom(record)), *record.evidence_atoms, *cand.atoms]
    return out


def _wrong_attribute(engine: Engine, record: ClaimRecord) -> list[Candidate]:
    """The claimed value is someone else's (a mix-up) or another attribute's of the subject."""
    attached = record.attached
    key = value_key(ValueType(record.value_type), attached.value.text)
    span = record.model.span
    holders = holder_count(engine.host.kb, attached.predicate, key)
    # Only a rare value names who it belongs to; listing a value 1,000 people share costs time.
    others = (
        [
            e
            for e in value_holders(engine.host.kb, attached.predicate, key)
            if e != attached.subject_id
        ]
        if 0 < holders <= _NAMED_HOLDERS
        else []
    )
    if holders and (others or holders > _NAMED_HOLDERS):
        owner = engine.index.entities[others[0]].label if others else f"{holders} entities'"
        held = [f"(held-by {attached.predicate} {key_symbol(key)} {e})" for e in others[:3]]
        return [
            Candidate(
                HallucinationType.WrongAttribute,
                (Sym("ValueOfAnotherEntity"), holders),
                span,
                f"'{attached.value.text}' is {owner}'s {attached.predicate}".replace("''s", "'"),
                support=[
                    Evidence(
                        kind="kb",
                        entity_id=e,
                        attribute=attached.predicate,
                        value=attached.value.text,
                    )
                    for e in others[:3]
                ],
                atoms=held,
            )
        ]
    if attached.subject_id is None:
        return []
    elsewhere = [
        a
        for a in attributes_holding(
            engine.host.kb, attached.subject_id, key, engine.kb.attribute_schema
        )
        if a != attached.predicate
    ]
    if elsewhere:
        return [
            Candidate(
                HallucinationType.WrongAttribute,
                Sym("ValueOfAnotherAttribute"),
                span,
                f"'{attached.value.text}' is {attached.subject_text}'s {elsewhere[0]}, "
                f"not its {attached.predicate}",
            )
        ]
    return []


def _fabricated(engine: Engine, ctx: CallContext, record: ClaimRecord) -> list[Candidate]:
    attached = record.attached
    subject_span = record.model.subject_span
    start = min(
        record.model.span.start, subject_span.start if subject_span else record.model.span.start
    )
    span = Span(start=start, end=record.model.span.end)
    if attached.subject_id is None:
        if ctx.dialogue.mentions(attached.subject_text):
            return []
        return [
            Candidate(
                HallucinationType.FabricatedFact,
                Sym("MissingSubject"),
                span,
                f"the knowledge base has no '{attached.subject_text}'",
            )
        ]
    entity = engine.index.entities[attached.subject_id]
    if attached.predicate in entity.attributes:
        return []
    similarity = max(
        (fuzz.ratio(attached.predicate, a) / 100 for a in entity.attributes), default=0.0
    )
    evidence: object = (
        Sym("MissingAttribute"),
        len(entity.attributes),
        attached.predicate in engine.words.common_attributes,
        round(similarity, 2),
    )
    if _describing(ctx, record):
        evidence = Sym("DescribingWord")
    return [
        Candidate(
            HallucinationType.FabricatedFact,
            evidence,
            span,
            f"the knowledge base has no {attached.predicate} for {entity.label}",
        )
    ]


def _describing(ctx: CallContext, record: ClaimRecord) -> bool:
    """A KB word value said before a noun of the reply's own ("a drama workshop", "with drama
    games"): it says what kind of thing the noun is, not the entity's value of an attribute it
    lacks."""
    if record.value_type not in (ValueType.text.value, ValueType.enum.value):
        return False
    tokens = ctx.reply.lexed.tokens
    end = record.model.span.end
    k = next((i for i, t in enumerate(tokens) if t.start >= end), None)
    read = any(
        lx.cat != "W" and k is not None and lx.start_tok <= k < lx.end_tok
        for lx in ctx.reply.lexed.lexemes
    )
    return (
        k is not None
        and tokens[k].start == end + 1
        and tokens[k].kind == "word"
        and tokens[k].lower not in FUNCTION_WORDS
        and not read
    )


# ---------------------------------------------------------------------------- entities


def _entity_candidates(engine: Engine, ctx: CallContext) -> list[Candidate]:
    out = []
    similar_cutoff = float(engine.setting("similar-name-cutoff"))
    generic = ctx.reply.lexed.markers_of("generic-phrase")
    for name in reply_names(ctx):
        if (
            ctx.dialogue.mentions(name.text)
            or ctx.passages.mentions(name.text)
            or _words_of_dialogue(engine, ctx, name)
        ):
            continue
        if _denied(ctx, name) or part_of_a_named(engine.index, ctx, name):
            continue
        definite = _preceded_by_the(ctx, name)
        similar = engine.index.fuzzy_name(name.text, similar_cutoff)
        if similar is not None and not _misspelling(name.text, similar[0]):
            similar = None  # "the Harbour Suite" is no misspelling of Harbourview: a new suite
        is_generic = any(g.start <= name.start and name.end <= g.end for g in generic)
        proper = len(name.text.split()) > 1 or not _sentence_initial(ctx, name)
        reason = f"'{name.text}' is neither in the knowledge base nor the dialogue"
        if ctx.passages:
            reason = (
                f"'{name.text}' is in neither the knowledge base, the dialogue nor the passages"
            )
        if similar is not None:
            reason += f" (similar to {engine.index.entities[similar[1][0]].label})"
        evidence = (Sym("Unresolved"), proper, definite, similar is not None, is_generic)
        if name.common_word:
            # "Music or Sports?": one common word is a name only when something is said of it
            evidence = (Sym("CommonWordName"), _said_of(ctx, name), *evidence[2:])
        elif _place_named(engine, ctx, name):
            # "tickets for Saturday in Leeds": a real place, invented only in a KB of places
            evidence = (
                Sym("PlaceName"),
                engine.reader.lexer.name_values.names_are_places,
                *evidence[1:],
            )
        out.append(
            Candidate(
                HallucinationType.NonexistentEntity,
                evidence,
                Span(start=name.start, end=name.end),
                reason,
                suggestion="Check the name against the knowledge base",
            )
        )
    return out


def _words_of_dialogue(engine: Engine, ctx: CallContext, name: Lexeme) -> bool:
    """A name made of words the dialogue said apart ("a Luxury Cab" after "a Luxury ride" and
    "book a cab"): what was asked for, in capitals; or of words the dialogue said before another
    word, none of them the KB's, then a common English word ("the Bedroom Speaker" after "on
    the bedroom device", not "the Hotel Keen" after "the nearest hotel"): the user's thing, its
    kind said in other words. Not when it ends in a kind of the
    KB's names ("the Harbour Suite" after "a suite with a harbour view" names a new suite)."""
    words = name.text.split()
    if len(words) < 2 or engine.index.name_heads.get(fold(words[-1])):
        return False
    said = [w for w in words[:-1] if fold(w) not in FUNCTION_WORDS]  # not "The Visitor"
    if not said or not all(ctx.dialogue.mentions(w) for w in said):
        return False
    if ctx.dialogue.mentions(words[-1]):
        return True
    # the user's own words, not the KB's: in "the Hotel Keen" after "a hotel" the user's word is
    # the kind the KB lists, and "Keen" a new name
    head = fold(words[-1])
    vocabulary = english()
    common = float(engine.setting("emphasis-word-log-prior"))
    return (
        not any(names_known_thing(engine.index, [w]) for w in said)
        and all(_said_before_a_word(ctx, w) for w in said)
        and head in vocabulary
        and vocabulary.prior(head, 0.3) > common
    )


def _said_before_a_word(ctx: CallContext, word: str) -> bool:
    """The dialogue said the word before another content word, as a modifier ("the bedroom
    device"), not as the thing itself ("the nearest hotel")."""
    return any(
        after.isalnum() and after not in FUNCTION_WORDS
        for after in re.findall(rf" {re.escape(fold(word))} (\S+)", ctx.dialogue.spoken)
    )


def _misspelling(said: str, known: str) -> bool:
    """A misspelt name keeps its words ("Prof. Okafer"), or only runs them together or apart
    ("Harbour view"); a name with a word more or less ("Ocean View Cabin" beside Ocean Cabin,
    "Harbour Suite" beside Harbourview) is another name."""
    said, known = fold(said), fold(known)
    return len(said.split()) == len(known.split()) or said.replace(" ", "") == known.replace(
        " ", ""
    )


_DENIALS = ("no", "not any", "find", "found", "locate", "see", "have")


def _denied(ctx: CallContext, name: Lexeme) -> bool:
    """ "There is no Starbucks", "I couldn't find Valero": the reply says it does not exist."""
    before = ctx.response[max(0, name.start - 40) : name.start].lower()
    clause = before.rsplit(".", 1)[-1].split()
    if clause[-1:] == ["no"] or clause[-2:] == ["not", "any"]:
        return True
    negated = any(
        w in ("not", "n't", "cannot", "can't", "couldn't", "didn't", "don't") or w.endswith("n't")
        for w in clause[-4:]
    )
    return negated and bool(clause) and clause[-1] in _DENIALS


_PLACE_WORDS = frozenset("to at from near".split())
# what is offered or asked about: "How about Daylight?", "your opinion about Tides"
_OFFERED_AFTER = frozenset({"about"})


def _said_of(ctx: CallContext, name: Lexeme) -> bool:
    """Whether the reply says something of a name: a claim's subject ("Shell is 5 miles
    away"), what a verb of being says a thing is ("the nearest one is Shell"), the place a
    route or a visit is to ("directions to Shell"), or what it offers ("how about Daylight?")."""
    for claim in ctx.reply.claims:
        subject = claim.draft.subject
        if subject is not None and subject.lexeme is name:
            return True
    start, _ = ctx.sentence_of(name.start)
    before = ctx.response[start : name.start].lower().split()
    return bool(before) and (
        before[-1] in _PLACE_WORDS or before[-1] in _OFFERED_AFTER or before[-1] in ("is", "was")
    )


_LOCATIVES = frozenset("in near to from around outside".split())


def _place_named(engine: Engine, ctx: CallContext, name: Lexeme) -> bool:
    """A place from the list of places, where a place is said: after "in", "near", "to" ..."""
    start, _ = ctx.sentence_of(name.start)
    before = ctx.response[start : name.start].lower().split()
    return (
        bool(before)
        and before[-1] in _LOCATIVES
        and engine.reader.lexer.name_values.is_place(name.text)
    )


def _preceded_by_the(ctx: CallContext, name: Lexeme) -> bool:
    return ctx.response[max(0, name.start - 4) : name.start].lower().strip() == "the"


def _sentence_initial(ctx: CallContext, name: Lexeme) -> bool:
    return any(s.start == name.start for s in ctx.reply.lexed.sentences)


# ---------------------------------------------------------------------------- unsupported


def _unsupported_candidates(ctx: CallContext) -> list[Candidate]:
    out = []
    sourced = ctx.reply.lexed.markers_of("sourcing-phrase")
    for sentence in ctx.reply.lexed.sentences:
        inside = [m for m in sourced if sentence.start <= m.start < sentence.end]
        statistic = any(
            lx.cat == "VAL"
            and lx.value_type in (ValueType.percent,)
            and sentence.start <= lx.start < sentence.end
            for lx in ctx.reply.lexed.lexemes
        )
        if not (inside or statistic):
            continue
        supported = any(
            sentence.start <= r.span.start < sentence.end and r.status == "Verified"
            for r in ctx.claims
        )
        if supported:
            continue
        span = Span(start=sentence.start, end=sentence.end)
        what = f"'{inside[0].text}'" if inside else "a statistic"
        out.append(
            Candidate(
                HallucinationType.UnsupportedClaim,
                (Sym("Unsupported"), bool(inside), statistic),
                span,
                f"{what} with no support in the knowledge base or the dialogue",
                suggestion="Cite a verifiable source or remove the claim",
            )
        )
    return out
