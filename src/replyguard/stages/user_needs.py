"""ContradictsPrior for replies that ignore what the user said of themselves: an offer the user
cannot take, or another person of theirs than the one they spoke of.

- **The only days they can come.** A user sentence that restricts itself to days ("I can only
  make Thursdays", "we're only here on the 5th", "only at weekends") names the days an offer
  must fall on; a reply sentence that offers days, none of them among those, contradicts it.
  The same of the parts of the day ("I can only manage afternoons", `day-parts`) against a
  reply whose times all fall outside them.
- **What they chose.** Where the KB tells things of one kind apart by their first word (Weekday
  Pass, Anytime Pass), a user sentence that wants one of them ("so I'd take the weekday pass")
  against a reply that offers another and says nothing of the one chosen.
- **What they have none of or would rather not have.** The words after a negation ("no car"),
  after "rather ... than" or "instead of", against the names of the entities the reply offers;
  and what they said they do not need ("I don't need 24-hour access") against a reply that says
  they do ("since you need round-the-clock access").
- **What they need.** A user sentence about themselves that names a yes/no attribute of the KB
  by its head word ("I use a wheelchair" - wheelchair_access, "my guide dog" - dogs_allowed)
  says they need it (or names it by a `need-words` word: "we have a spaniel, so we need
  somewhere that takes dogs" - pets_allowed); a reply that offers an entity whose KB value of
  it is no contradicts it, and so does a reply that speaks for an organisation whose own value
  of it is no ("we'd be happy to board your dog and your cat" - cats no).
- **A value of theirs.** "I've got a Baxi combi boiler" and then "your Vaillant boiler": the
  reply gives, as the user's, another value of a KB column than the one the user said of
  theirs in a statement about themselves, and never says theirs.
- **Who or what they spoke of.** "My son" and then "your daughter's check-up", "my rabbit" and
  then "your dog": the reply names, as the user's, a person (`party-noun` of one in
  metta/lexicon.metta) or a kind of thing the KB tells apart by the first word of its names
  ("dog" of Dog Walking) the user never named, where the user named one of theirs.

Only sentences that deny nothing count, on both sides ("I don't need step-free access"; "the
upper deck has no lift, but the main deck does"). Which words restrict the days and how sure
each flag is are rules (`restricting-words`, `choosing-words`, `UserSaid` in
metta/hallucination.metta). What the KB's names tell apart is found once per KB (`_kinds_of`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from replyguard.kb import name_words
from replyguard.metta_host import Sym
from replyguard.models import Evidence, HallucinationType, Span, ValueType
from replyguard.stages.candidates import Candidate
from replyguard.stages.context import CallContext
from replyguard.stages.user_bounds import bound_candidates, one_of_several
from replyguard.stages.user_kinds import kind_candidates
from replyguard.stages.user_said import DENIALS, Found, voiced
from replyguard.stages.user_said import asks as _asks
from replyguard.stages.user_said import offered as _offered
from replyguard.stages.user_said import plain_sentences as _plain
from replyguard.stages.user_said import within as _in
from replyguard.text.claims import PREPOSITIONS
from replyguard.text.lexer import LexedText
from replyguard.text.lexicon import KBIndex
from replyguard.text.temporal import mention_weekday
from replyguard.text.tokens import Token
from replyguard.text.words import STOPWORDS, content_stems, stem
from replyguard.values import fold

if TYPE_CHECKING:
    from replyguard.dialogue import TurnReading
    from replyguard.engine import Engine


_WORDY = (ValueType.text, ValueType.enum)
_DENIED_WORDS = 3  # how many words after a negation name what the user has or wants none of
_DISPREFERRED_WORDS = 6  # the same after "rather ... than" ("than sign up for a membership")


def user_need_candidates(engine: Engine, ctx: CallContext, reply_act: str) -> list[Candidate]:
    """The reply's offers that contradict what a user turn said of the user (module doc)."""
    act = Sym(reply_act)
    if not (
        engine.host.holds("restates-request", act) or engine.host.holds("acts-on-request", act)
    ):
        return []
    users = [r for r in ctx.dialogue.readings if r.turn.role == "user"]
    if not users:
        return []
    last = len(ctx.dialogue.readings) - 1
    found = [
        *_day_candidates(engine, ctx, users),
        *_time_candidates(ctx, users),
        *_part_candidates(engine, ctx, users),
        *_denied_candidates(engine, ctx, users),
        *_need_candidates(engine, ctx, users),
        *_only_value_candidates(engine, ctx, users),
        *_person_candidates(engine, ctx, users),
        *_value_candidates(ctx, users),
        *_choice_candidates(engine, ctx, users),
        *_unneeded_candidates(ctx, users),
        *bound_candidates(engine, ctx, users),
        *one_of_several(engine, ctx, users),
        *kind_candidates(engine, ctx, users),
    ]
    return [
        Candidate(
            HallucinationType.ContradictsPrior,
            (Sym("UserSaid"), Sym(f.kind), last - f.turn.index),
            Span(start=f.at.start, end=f.at.end),
            f"turn {f.turn.turn.id or ''} {f.reason}",
            suggestion=f.fix,
            support=[Evidence(kind="turn", turn_id=f.turn.turn.id or "", text=f.turn.turn.text)],
        )
        for f in found
    ]


@dataclass(frozen=True)
class _Statement:
    """A sentence of a user turn that says something of the user: it asks and denies nothing.
    What the user can only do, needs or chose is read from these, the latest holding."""

    turn: TurnReading
    lexed: LexedText
    start: int
    end: int

    def tokens(self) -> list[tuple[int, Token]]:
        """(index, token) of the sentence's tokens."""
        return [(k, t) for k, t in enumerate(self.lexed.tokens) if self.start <= t.start < self.end]

    def words(self) -> set[str]:
        return {t.lower for _, t in self.tokens()}

    def restricted(self, restricting: set[str], listed: set[str]) -> list[tuple[int, int]]:
        """(start, end) of each clause of the sentence that holds a `restricting` word, with the
        lists that continue it ("only on Tuesday, Wednesday or Friday"): what another clause
        says of days ("I can only do Saturdays, weekdays are impossible") restricts nothing. A
        clause ends at a mark or a conjunction; the next one continues a list when all its words
        are `listed` words, function words or dates and times."""
        dated = [(m.start, m.end) for m in self.lexed.temporal]
        clauses: list[list[Token]] = [[]]
        for _, token in self.tokens():
            if token.lower in _CLAUSE_ENDS:
                clauses.append([])
            else:
                clauses[-1].append(token)
        out: list[tuple[int, int]] = []
        restricts = False
        for clause in (c for c in clauses if c):
            words = [t for t in clause if t.kind == "word"]
            if any(t.lower in restricting for t in words):
                restricts = True
            elif not restricts or not all(
                t.lower in listed or t.lower in STOPWORDS or _in(dated, t.start) for t in words
            ):
                restricts = False
                continue
            out.append((clause[0].start, clause[-1].end))
        return out


def _statements(users: list[TurnReading], *, denying: bool = False) -> Iterator[_Statement]:
    """The users' statements (`_Statement`), in the order they were said; with `denying`, also
    the sentences that deny something (each clause is then judged on its own)."""
    for reading in users:
        lexed = reading.reading.lexed
        sentences = (
            [(s.start, s.end + 1) for s in lexed.sentences if not _asks(lexed, s)]
            if denying
            else _plain(lexed, user=True)
        )
        for a, b in sentences:
            yield _Statement(reading, lexed, a, b)


# what ends a clause of a user's sentence (`_Statement.restricted`)
_CLAUSE_ENDS = frozenset({",", ";", ":", "-", "–", "—", "(", ")"}) | frozenset(
    {"but", "because", "so", "since", "as", "while", "though", "although", "cos"}
)


def _day_candidates(engine: Engine, ctx: CallContext, users: list[TurnReading]) -> list[Found]:
    restricting = set(str(engine.setting("restricting-words")).split())
    listed = set(_DAY_SETS)  # the weekdays themselves are dates
    allowed: tuple[TurnReading, set[str]] | None = None
    for said in _statements(users):  # the latest restriction holds
        clauses = said.restricted(restricting, listed)
        if not clauses:
            continue
        days = {
            d for m in said.lexed.temporal if _in(clauses, m.start) and (d := mention_weekday(m))
        }
        days |= {
            d for _, t in said.tokens() if _in(clauses, t.start) for d in _DAY_SETS.get(t.lower, ())
        }
        if days:
            allowed = (said.turn, days)
    if allowed is None:
        return []
    reading, days = allowed
    reply = ctx.reply.lexed
    plain = _plain(reply)
    offered = [(m, d) for m in reply.temporal if _in(plain, m.start) and (d := mention_weekday(m))]
    if not offered or any(d in days for _, d in offered):
        return []
    mention, day = offered[0]
    said = " or ".join(sorted(days))
    reason = f"said the user can only come on {said}, and the reply offers {day}"
    return [Found("OnlyDays", reading, mention, reason, f"Offer {said}, or say there is none then")]


# words for several weekdays at once: "I can only come at weekends"
_DAY_SETS = {
    "weekend": ("saturday", "sunday"),
    "weekends": ("saturday", "sunday"),
    "weekday": ("monday", "tuesday", "wednesday", "thursday", "friday"),
    "weekdays": ("monday", "tuesday", "wednesday", "thursday", "friday"),
}

_SIDES = (("order-after", "after"), ("order-before", "before"))
# what joins the two ends of a range of times: "from 9am to 12:30pm", "9am - 12:30pm"
_RANGE_WORDS = frozenset({"to", "till", "until", "-", "–", "and"})


def _part_candidates(engine: Engine, ctx: CallContext, users: list[TurnReading]) -> list[Found]:
    """The latest user statement restricting itself to parts of the day ("I can only manage
    afternoons", `restricting-words` and `day-parts`), against a reply whose times all fall
    outside those parts; a time in a part's last hour still fits it (a morning session that
    finishes at 12:30), and a time that ends a range is judged by its start ("the morning
    session from 7:30am to 12:30pm" is no afternoon)."""
    restricting = set(str(engine.setting("restricting-words")).split())
    parts: dict[str, tuple[int, int]] = {}
    for pair in str(engine.setting("day-parts")).split():
        word, _, hours = pair.partition(":")
        first, _, last = hours.partition("-")
        parts[stem(word)] = (int(first), int(last))
    allowed: tuple[TurnReading, list[str]] | None = None
    for said in _statements(users):  # the latest restriction holds
        listed = {t.lower for _, t in said.tokens() if stem(t.lower) in parts}
        clauses = said.restricted(restricting, listed)
        named = sorted(
            {stem(t.lower) for _, t in said.tokens() if _in(clauses, t.start)} & parts.keys()
        )
        if named:
            allowed = (said.turn, named)
    if allowed is None:
        return []
    reading, named = allowed
    plain = _plain(ctx.reply.lexed)
    times = [m for m in ctx.reply.lexed.temporal if m.time is not None and _in(plain, m.start)]
    text = ctx.reply.lexed.text
    starts = [  # "from 7:30am to 12:30pm": the range's end is no time offered
        m
        for k, m in enumerate(times)
        if k == 0 or text[times[k - 1].end : m.start].strip().lower() not in _RANGE_WORDS
    ]
    if not starts or any(parts[p][0] <= m.time.hour <= parts[p][1] for m in starts for p in named):
        return []
    said = " or ".join(named)
    reason = f"said the user can only come in the {said}, and the reply offers {times[0].text}"
    return [Found("OnlyTimes", reading, times[0], reason, f"Offer a time in the {said}")]


def _time_candidates(ctx: CallContext, users: list[TurnReading]) -> list[Found]:
    """The latest bound a user set on the time ("it has to be after 6pm", `order-after` and
    `order-before`), against a reply whose times all fall on the other side of it."""
    bound = None
    for reading in users:
        lexed = reading.reading.lexed
        plain = _plain(lexed, user=True)
        for kind, side in _SIDES:
            for marker in lexed.markers_of(kind):
                at = next(
                    (
                        m
                        for m in lexed.temporal
                        if m.time is not None and marker.start <= m.start <= marker.end + 1
                    ),
                    None,
                )
                if at is not None and _in(plain, marker.start):
                    bound = (reading, side, at)
    if bound is None:
        return []
    reading, side, limit = bound
    plain = _plain(ctx.reply.lexed)
    times = [m for m in ctx.reply.lexed.temporal if m.time is not None and _in(plain, m.start)]
    if not times or any((m.time > limit.time) == (side == "after") for m in times):
        return []
    first = times[0]
    reason = f"said it must be {side} {limit.text}, and the reply offers {first.text}"
    return [Found("TimeBound", reading, first, reason, f"Offer a time {side} {limit.text}")]


def _denied_candidates(engine: Engine, ctx: CallContext, users: list[TurnReading]) -> list[Found]:
    """A KB entity offered in the words of a thing the user said they do not have or want ("I'm
    on foot, no car" - "you'll need a car ticket"): the content words right after a user's
    negation, against the words of the entity's name."""
    denied: dict[str, TurnReading] = {}
    wanted: set[str] = set()  # entities a user named outside what they deny
    events = set(str(engine.setting("event-negations")).split())
    for reading in users:
        lexed = reading.reading.lexed
        tokens = lexed.tokens
        negations = [
            lx.end_tok for lx in lexed.lexemes if lx.cat == "NEG" and lx.text.lower() not in events
        ]
        for end, reach in [(e, _DENIED_WORDS) for e in negations] + _dispreferred(lexed):
            sentence = next(
                (x for x in lexed.sentences if x.start_token <= end < x.end_token), None
            )
            if sentence is None or _asks(lexed, sentence):
                continue
            for token in tokens[end : min(end + reach, sentence.end_token)]:
                if token.kind != "word":
                    break
                if token.lower not in STOPWORDS:
                    denied[stem(token.lower)] = reading
        wanted |= {
            e
            for lx in lexed.lexemes
            if lx.cat == "ENT"
            and not any(0 <= lx.start_tok - end < _DENIED_WORDS for end in negations)
            for e in lx.entity_ids
        }
    if not denied:
        return []
    out: list[Found] = []
    for lexeme, entity in _offered(engine, ctx):
        hit = next((w for w in content_stems(name_words(entity.label)) if w in denied), None)
        if hit is None or entity.id in wanted:
            continue
        reading = denied[hit]
        reason = f"said the user has or wants no {hit}, and the reply offers {entity.label}"
        out.append(Found("Denied", reading, lexeme, reason, f"Offer no {entity.label}"))
    return out


def _dispreferred(lexed: LexedText) -> list[tuple[int, int]]:
    """(token index, reach) where what the user would rather not have starts: after "than"
    in a sentence that says "rather" before it ("I'd rather pay each time than join"), and after
    "instead of" ("a class instead of the gym")."""
    tokens = lexed.tokens
    out: list[tuple[int, int]] = []
    if not any(t.lower in ("than", "instead") for t in tokens):
        return out
    for k, token in enumerate(tokens[:-1]):
        sentence = next((x for x in lexed.sentences if x.start_token <= k < x.end_token), None)
        if sentence is None:
            continue
        rather = any(t.lower == "rather" for t in tokens[sentence.start_token : k])
        if (token.lower == "than" and rather) or (
            token.lower == "instead" and tokens[k + 1].lower == "of"
        ):
            out.append((k + 1 + (token.lower == "instead"), _DISPREFERRED_WORDS))
    return out


# what someone needs, wants or will use: "I don't need ...", "since you need ..."
_NEEDING = frozenset({"need", "needs", "want", "wants", "require", "requires", "use", "using"})
_PHRASE_ENDS = PREPOSITIONS | frozenset({"as", "and", "or", "but", "so", "because", "too"})
_NEED_WORDS = 4  # how many words after the verb name the thing needed
# the whole day, said in several ways: "24-hour access" is "round-the-clock access"
_ALL_DAY = re.compile(r"\b(?:24[\s-]?(?:hours?|hr|h)|24\s?/\s?7|a?round[\s-]the[\s-]clock)\b")


def _needed(lexed: LexedText, k: int, end: int) -> set[str]:
    """The content stems of what the need verb at token `k` names, up to character `end` (its
    sentence's end): up to `_NEED_WORDS` words, to a preposition, a conjunction or a mark."""
    rest = _ALL_DAY.sub("allday", lexed.text[lexed.tokens[k].end : end].lower())
    words: list[str] = []
    for word in re.findall(r"[a-z0-9']+|[,.;:!?]", rest):
        if word in _PHRASE_ENDS or not word[0].isalnum() or len(words) == _NEED_WORDS:
            break
        words.append(word)
    return set(content_stems(words))


def _need_at(lexed: LexedText, person: str, *, denied: bool) -> list[tuple[int, set[str]]]:
    """(token index, stems needed) of each need verb after a `person` word of its sentence
    ("self-reference" for the user's "I don't need", "addressee" for the reply's "you need"),
    in sentences that ask nothing: with a negation before the verb when `denied`, else in
    sentences that deny (or regret) nothing."""
    plain = _plain(lexed)
    negations = [lx.start for lx in lexed.lexemes if lx.cat == "NEG"]
    out = []
    for sentence in lexed.sentences:
        if _asks(lexed, sentence):
            continue
        persons = [m.start for m in lexed.markers_of(person) if sentence.start <= m.start]
        for k in range(sentence.start_token, sentence.end_token):
            at = lexed.tokens[k].start
            if lexed.tokens[k].lower not in _NEEDING or not any(p < at for p in persons):
                continue
            negated = any(sentence.start <= n < at for n in negations)
            if (negated if denied else _in(plain, at)) and (
                stems := _needed(lexed, k, sentence.end + 1)
            ):
                out.append((k, stems))
    return out


def _unneeded_candidates(ctx: CallContext, users: list[TurnReading]) -> list[Found]:
    """The reply says the user needs what they said they do not ("I don't need 24-hour access"
    - "since you need round-the-clock access"): every content word of what it says they need
    is among those of what they denied needing."""
    denied = [
        (stems, reading)
        for reading in users
        for _, stems in _need_at(reading.reading.lexed, "self-reference", denied=True)
    ]
    if not denied:
        return []
    reply = ctx.reply.lexed
    for k, stems in _need_at(reply, "addressee", denied=False):
        for said, reading in denied:
            if stems <= said:
                reason = "said the user does not need it, and the reply says they do"
                fix = "Leave out what the user said they do not need"
                return [Found("Unneeded", reading, reply.tokens[k], reason, fix)]
    return []


def _head_stem(attribute: str) -> str | None:
    words = [w for w in name_words(attribute) if w.lower() not in STOPWORDS]
    return stem(words[0].lower()) if words else None


def _need_candidates(engine: Engine, ctx: CallContext, users: list[TurnReading]) -> list[Found]:
    index = engine.index
    heads = {a: h for a in index.polar if (h := _head_stem(a))}
    if not heads:
        return []
    pairs = (p.split(":", 1) for p in str(engine.setting("need-words")).split())
    synonyms = {stem(word): stem(head) for word, head in pairs}
    needs: dict[str, TurnReading] = {}
    for said in _statements(users):
        if not any(
            lx.cat == "SELF" and said.start <= lx.start < said.end for lx in said.lexed.lexemes
        ):
            continue
        stems = {stem(w.replace("-", "")) for w in said.words()}
        stems |= {synonyms[s] for s in stems if s in synonyms}
        for attribute, head in heads.items():
            if head in stems:
                needs[attribute] = said.turn
    if not needs:
        return []
    out: list[Found] = []
    for lexeme, entity in [*_offered(engine, ctx), *voiced(engine, ctx)]:
        for attribute, reading in needs.items():
            held = entity.values_of(attribute)[0] if attribute in entity.attributes else []
            if len(held) != 1 or index.polarity(held[0]) is not False:
                continue
            reason = (
                f"says the user needs {attribute}, and {entity.label}'s {attribute} is "
                f"'{held[0]}' in the knowledge base"
            )
            fix = f"Offer something whose {attribute} is yes"
            out.append(Found("Need", reading, lexeme, reason, fix))
    return out


def _only_value_candidates(
    engine: Engine, ctx: CallContext, users: list[TurnReading]
) -> list[Found]:
    """What they can only have: a user clause with a restricting word that names, in some form,
    a one-word value of a column telling the KB's things apart ("I can only drive automatics":
    transmission automatic) against a reply offering a thing whose value of it is another."""
    restricting = set(str(engine.setting("restricting-words")).split())
    values = _telling_values(engine.index)
    wanted: dict[str, tuple[TurnReading, str]] = {}
    for said in _statements(users, denying=True):  # the latest holds
        lexed = said.lexed
        denied = [m.start for m in lexed.markers if m.kind in DENIALS]
        denied += [lx.start for lx in lexed.lexemes if lx.cat == "NEG"]
        # "I can only drive automatics, my licence doesn't cover manuals": a clause that
        # denies nothing restricts
        clauses = [
            c for c in said.restricted(restricting, set()) if not any(_in([c], d) for d in denied)
        ]
        for _, token in said.tokens():
            hit = values.get(stem(token.lower)) if _in(clauses, token.start) else None
            if hit is not None:
                wanted[hit[0]] = (said.turn, hit[1])
    out: list[Found] = []
    for lexeme, entity in _offered(engine, ctx):
        for attribute, (reading, value) in wanted.items():
            held = entity.values_of(attribute)[0] if attribute in entity.attributes else []
            if not held or any(fold(str(h)) == value for h in held):
                continue
            reason = (
                f"says the user can only have {attribute} '{value}', and {entity.label}'s "
                f"{attribute} is '{held[0]}' in the knowledge base"
            )
            out.append(
                Found(
                    "OnlyValue", reading, lexeme, reason, f"Offer one whose {attribute} is {value}"
                )
            )
    return out


_TELLING: WeakKeyDictionary[KBIndex, dict[str, tuple[str, str]]] = WeakKeyDictionary()


def _telling_values(index: KBIndex) -> dict[str, tuple[str, str]]:
    """stem -> (attribute, folded value) of the one-word values of textual columns that tell
    several things apart (two values at least, each held by some entity): "manual" and
    "automatic" of transmission. A stem two columns share is neither's."""
    if index not in _TELLING:
        held: dict[str, set[str]] = {}
        for entity in index.entities.values():
            for attribute in entity.attributes:
                if attribute in index.polar or index.attribute_type(attribute) not in _WORDY:
                    continue
                for value in entity.values_of(attribute)[0]:
                    folded = fold(str(value))
                    if folded.isalpha():
                        held.setdefault(attribute, set()).add(folded)
        found: dict[str, tuple[str, str]] = {}
        shared: set[str] = set()
        for attribute, values in held.items():
            if len(values) < 2:
                continue
            for value in values:
                key = stem(value)
                if key in found and found[key][0] != attribute:
                    shared.add(key)
                found[key] = (attribute, value)
        _TELLING[index] = {k: v for k, v in found.items() if k not in shared}
    return _TELLING[index]


def _owned(engine: Engine, lexed: LexedText, owner: str) -> list[tuple[int, str, str]]:
    """(token index, word, class) of each person or thing said right after a word of the
    `owner` kind, `self-reference` ("my son", "my rabbit") or `addressee` ("your daughter"):
    a person of one (`party-noun` One) is of the class "person", a word of the KB's names
    ("rabbit" of Rabbit Vaccination) of the class "thing"."""
    tokens = lexed.tokens
    kinds = engine.words.markers.get
    out = []
    for k in range(1, len(tokens)):
        if owner not in kinds(tokens[k - 1].lower):
            continue
        word = tokens[k].lower
        if "party-noun:One" in (str(x) for x in kinds(word)):
            out.append((k, word, "person"))
        elif word in engine.index.name_words and word not in STOPWORDS:
            out.append((k, word, "thing"))
    return out


def _name_modifiers(engine: Engine) -> frozenset[str]:
    """The first words of the KB's names and aliases of more than one word: the kinds of thing
    the KB tells apart ("rabbit" of Rabbit Vaccination, "car" of Car Return), not a name said
    alone ("home"), which another word may name too. Found once per KB."""
    return _kinds_of(engine.index).modifiers


@dataclass(frozen=True)
class _Kinds:
    """What the KB's names tell apart, found once per KB (`_kinds_of`)."""

    modifiers: frozenset[str]
    # head word -> first word -> entity ids, for heads that two or more first words tell apart:
    # "membership" -> {"adult": [...], "concession": [...]}
    choices: dict[str, dict[str, list[str]]]
    # the same by first word: "adult" -> {"membership": [...]}
    by_first: dict[str, dict[str, list[str]]]


_KINDS: WeakKeyDictionary[KBIndex, _Kinds] = WeakKeyDictionary()


def _kinds_of(index: KBIndex) -> _Kinds:
    kinds = _KINDS.get(index)
    if kinds is None:
        names = [
            (entity.id, words)
            for entity in index.entities.values()
            for name in (entity.name or "", *entity.aliases)
            if len(words := name.lower().split()) > 1
        ]
        choices: dict[str, dict[str, list[str]]] = {}
        for entity_id, words in names:
            if words[0] not in STOPWORDS and words[0] != words[-1]:
                firsts = choices.setdefault(words[-1], {})
                firsts.setdefault(words[0], []).append(entity_id)
        choices = {head: firsts for head, firsts in choices.items() if len(firsts) > 1}
        by_first: dict[str, dict[str, list[str]]] = {}
        for head, firsts in choices.items():
            for first, ids in firsts.items():
                by_first.setdefault(first, {})[head] = ids
        kinds = _Kinds(frozenset(words[0] for _, words in names), choices, by_first)
        _KINDS[index] = kinds
    return kinds


def _choice_candidates(engine: Engine, ctx: CallContext, users: list[TurnReading]) -> list[Found]:
    """One of the KB's things of a kind the user chose, by the word that tells it from the
    others ("I'm a student, so the concession rate" of Concession Membership beside Adult
    Membership), against a reply that offers another of that kind and says nothing of the one
    chosen. The latest choice of each kind holds; only a sentence that says the user wants it
    (`choosing-words`) chooses, and a question or a denial chooses nothing."""
    kinds = _kinds_of(engine.index)
    choices = kinds.choices
    if not choices:
        return []
    choosing = set(str(engine.setting("choosing-words")).split())
    chosen: dict[str, tuple[str, TurnReading]] = {}  # head -> (first word, where)
    for said in _statements(users):
        if not said.words() & choosing:
            continue
        tokens = said.lexed.tokens
        for k, token in said.tokens():
            heads = kinds.by_first.get(token.lower)
            if not heads:
                continue
            named = {  # the word names the thing: "the weekday pass", an alias of it
                e
                for lx in said.lexed.lexemes
                if lx.cat == "ENT" and lx.start <= token.start < lx.end
                for e in lx.entity_ids
            }
            for head, ids in heads.items():
                if any(t.lower == head for t in tokens[k + 1 : k + 3]) or named & set(ids):
                    chosen[head] = (token.lower, said.turn)
    if not chosen:
        return []
    said = {t.lower for t in ctx.reply.lexed.tokens}
    out: list[Found] = []
    for lexeme, entity in _offered(engine, ctx):
        words = (entity.name or "").lower().split()
        if len(words) < 2 or words[-1] not in chosen:
            continue
        first, reading = chosen[words[-1]]
        if words[0] == first or first in said:
            continue
        picked = engine.index.entities[choices[words[-1]][first][0]].label
        reason = f"said the user wants the {first} {words[-1]}, and the reply offers {entity.label}"
        out.append(Found("OtherChoice", reading, lexeme, reason, f"Offer {picked}"))
        break
    return out


def _person_candidates(engine: Engine, ctx: CallContext, users: list[TurnReading]) -> list[Found]:
    theirs: dict[str, dict[str, TurnReading]] = {}  # class -> word -> where the user said it
    said: set[str] = set()
    for reading in users:
        lexed = reading.reading.lexed
        said |= {t.lower for t in lexed.tokens}
        for _, word, kind in _owned(engine, lexed, "self-reference"):
            theirs.setdefault(kind, {})[word] = reading
    if not theirs:
        return []
    reply = ctx.reply.lexed
    plain = _plain(reply)
    out: list[Found] = []
    modifiers: frozenset[str] | None = None
    for k, word, kind in _owned(engine, reply, "addressee"):
        if kind not in theirs or word in said or not _in(plain, reply.tokens[k].start):
            continue
        if kind == "thing":  # "home" and "house" name one place; "dog" and "rabbit" do not
            modifiers = _name_modifiers(engine) if modifiers is None else modifiers
            if word not in modifiers or not modifiers & theirs[kind].keys():
                continue
        named = ", ".join(sorted(theirs[kind]))
        reading = list(theirs[kind].values())[-1]
        reason = f"speaks of the user's {named}, and the reply of their {word}"
        out.append(Found("OtherPerson", reading, reply.tokens[k], reason, f"Say {named}"))
    return out


def _value_candidates(ctx: CallContext, users: list[TurnReading]) -> list[Found]:
    """A KB value the reply gives as the user's, right after "your", where the latest user
    statement about themselves that gave a value of that column gave another, and the reply
    says none of the user's values of it (module doc: a value of theirs)."""
    theirs: dict[str, tuple[set[str], TurnReading]] = {}
    for said in _statements(users):
        lexemes = [lx for lx in said.lexed.lexemes if said.start <= lx.start < said.end]
        if not any(lx.cat == "SELF" for lx in lexemes):
            continue
        given: dict[str, set[str]] = {}
        for lx in lexemes:
            if lx.cat == "VAL" and lx.attributes and lx.value_key and not lx.name_value:
                given.setdefault(lx.attributes[0], set()).add(lx.value_key)
        theirs.update({a: (keys, said.turn) for a, keys in given.items()})
    if not theirs:
        return []
    lexemes = ctx.reply.lexed.lexemes
    said_keys = {lx.value_key for lx in lexemes if lx.cat == "VAL"}
    plain = _plain(ctx.reply.lexed)
    for before, lx in zip(lexemes, lexemes[1:], strict=False):
        if before.cat != "ADDR" or lx.cat != "VAL" or not lx.attributes or not lx.value_key:
            continue
        found = theirs.get(lx.attributes[0])
        if found is None or lx.value_key in found[0] or found[0] & said_keys:
            continue
        if not _in(plain, lx.start):
            continue
        attribute = lx.attributes[0]
        reason = f"gave the user's {attribute}, and the reply gives them '{lx.text}'"
        return [Found("OtherValue", found[1], lx, reason, f"Give the user's own {attribute}")]
    return []
