"""SGD perturbations: a gold system turn changed in one place whose effect is certain.

SGD annotates what each system turn states: its dialogue acts (OFFER, INFORM, CONFIRM) with the
slot, the words used and the canonical value, and the character span of each non-categorical
value. So a perturbation changes exactly the words that state a value, and the rows the service
returned say whether the result is wrong. Where that cannot be established the turn is skipped:
a wrong label costs more than a smaller sample.

Randomness comes from one `random.Random` per (seed, gold turn, kind), seeded with a string, so a
case never changes because another dialogue was added or limited away; replacements are drawn
from vocabularies of the whole file for the same reason.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from replyguard.evaluation.perturb import restyle
from replyguard.evaluation.scene import norm as _fold_norm
from replyguard.evaluation.scene import occurrences
from replyguard.evaluation.sgd import ServiceSchema, SgdKind, SgdScene, SgdTruth

# The comparison form of a value (`scene.norm`), remembered: the same names and values are
# compared again and again across the file's turns.
norm = cache(_fold_norm)

# Acts by which a system turn states a value of the rows it is talking about.
STATING_ACTS = frozenset({"OFFER", "INFORM"})
# Acts by which a system turn repeats what the user asked for.
USER_ACTS = frozenset({"CONFIRM", "INFORM"})
# SGD's value for "the user has no preference": never a value a reply states.
DONTCARE = "dontcare"


@dataclass(frozen=True)
class Vocabulary:
    """What the whole file offers as replacements, per (service, slot).

    ``values``: canonical values seen in rows and acts; ``surfaces``: for a canonical value (its
    `norm`), the words system turns used for it ("6 pm" for 18:00); ``names``: the values of each
    service's name slot over every row.
    """

    values: Mapping[tuple[str, str], tuple[str, ...]]
    surfaces: Mapping[tuple[str, str], Mapping[str, tuple[str, ...]]]
    names: Mapping[tuple[str, str], tuple[str, ...]]


@dataclass(frozen=True)
class Draft:
    """A perturbed reply; ``empty_kb`` when it is checked against no rows at all."""

    case_id: str
    truth: SgdTruth
    response: str
    empty_kb: bool = False


@dataclass(frozen=True)
class Statement:
    """A value the gold reply states: ``reply[start:end]`` says ``canonical`` for ``slot``."""

    act: str
    slot: str
    said: str
    canonical: str
    start: int
    end: int


def vocabulary(dialogues: Iterable[Mapping], schema: Mapping[str, ServiceSchema]) -> Vocabulary:
    from replyguard.evaluation.sgd import name_slot

    values: dict[tuple[str, str], dict[str, str]] = {}
    surfaces: dict[tuple[str, str], dict[str, dict[str, None]]] = {}
    names: dict[tuple[str, str], dict[str, str]] = {}
    for dialogue in dialogues:
        for turn in dialogue["turns"]:
            for frame in turn["frames"]:
                service = frame["service"]
                for action in frame["actions"]:
                    slot = action.get("slot") or ""
                    canon = action.get("canonical_values") or []
                    if not slot or slot == "intent" or len(canon) != len(action["values"]):
                        continue
                    for said, value in zip(action["values"], canon, strict=True):
                        if value == DONTCARE:
                            continue
                        values.setdefault((service, slot), {}).setdefault(norm(value), value)
                        if turn["speaker"] == "SYSTEM":
                            forms = surfaces.setdefault((service, slot), {})
                            forms.setdefault(norm(value), {})[said] = None
                rows = frame.get("service_results") or []
                columns = [c for r in rows for c in r]
                method = (frame.get("service_call") or {}).get("method", "")
                named = name_slot(schema[service], method, columns) if rows else None
                for row in rows:
                    for slot, value in row.items():
                        if value == DONTCARE:
                            continue
                        values.setdefault((service, slot), {}).setdefault(norm(value), value)
                    if named and row.get(named):
                        names.setdefault((service, named), {}).setdefault(
                            norm(row[named]), row[named]
                        )
    return Vocabulary(
        values={k: tuple(sorted(v.values())) for k, v in sorted(values.items())},
        surfaces={
            k: {c: tuple(sorted(forms)) for c, forms in sorted(v.items())}
            for k, v in sorted(surfaces.items())
        },
        names={k: tuple(sorted(v.values())) for k, v in sorted(names.items())},
    )


def perturbations(s: SgdScene, index: int, vocab: Vocabulary, *, seed: int = 0) -> list[Draft]:
    """Every perturbation system turn ``index`` supports, in kind order."""
    key = f"{seed}/{s.case_id(index)}"
    made = (make(s, index, vocab, random.Random(f"{key}/{kind}")) for kind, make in _MAKERS.items())
    return [d for d in made if d is not None]


# --------------------------------------------------------------------------- what a turn states


def statements(s: SgdScene, index: int, acts: frozenset[str] = STATING_ACTS) -> list[Statement]:
    """The values the turn's acts state, each with the one place in the reply that says it.

    The place is the annotated slot span whose words are the act's value; for a categorical slot
    (no span annotated) the single occurrence of the act's words in the reply. A value whose place
    is not certain (no span and not exactly one occurrence) is left out.
    """
    reply = s.turns[index].text
    frame = s.frame(index)
    spans: dict[str, list[tuple[int, int]]] = {}
    for slot in frame.get("slots") or []:
        spans.setdefault(slot["slot"], []).append((slot["start"], slot["exclusive_end"]))
    out = []
    for action in frame.get("actions") or []:
        if action["act"] not in acts or not action.get("slot"):
            continue
        canon = action.get("canonical_values") or []
        if len(canon) != len(action["values"]):
            continue
        for said, value in zip(action["values"], canon, strict=True):
            places = [
                (a, b) for a, b in spans.get(action["slot"], []) if norm(reply[a:b]) == norm(said)
            ] or occurrences(said, reply)
            if len(places) == 1:
                a, b = places[0]
                out.append(Statement(action["act"], action["slot"], reply[a:b], value, a, b))
    return out


def acted_values(frame: Mapping, acts: frozenset[str] = STATING_ACTS) -> list[tuple[str, str]]:
    """(slot, canonical value) of the frame's acts that state one value each."""
    out = []
    for action in frame.get("actions") or []:
        canon = action.get("canonical_values") or []
        if action["act"] in acts and action.get("slot") and len(canon) == 1:
            out.append((action["slot"], canon[0]))
    return out


def stated_facts(s: SgdScene, index: int) -> list[tuple[str, str]]:
    """What the turn says of the row it talks about: its own single values, over those of the
    latest earlier offer since the same service call (an INFORM answers about the offered row:
    "is it furnished?" after "how about Lakeview Terrace?")."""
    call = s.calls[index]
    own = acted_values(s.frame(index))
    focus: list[tuple[str, str]] = []
    if call is not None:
        for i in range(index - 1, call.turn - 1, -1):
            if s.turns[i].role == "assistant" and s.service_at(i) == call.service:
                offered = acted_values(s.frame(i), frozenset({"OFFER"}))
                if offered:
                    focus = offered
                    break
    mine = {slot for slot, _ in own}
    return [f for f in focus if f[0] not in mine] + own


def holds(row: Mapping[str, str], facts: Iterable[tuple[str, str]]) -> bool:
    """Whether the row could be what ``facts`` describe: it has at least one of their slots, and
    the value stated for every slot it has."""
    facts = list(facts)
    seen = [(slot, value) for slot, value in facts if slot in row]
    return bool(seen) and all(norm(row[slot]) == norm(value) for slot, value in seen)


def _single_valued(stated: Sequence[Statement], s: SgdScene, index: int) -> list[Statement]:
    """Statements of acts that state one value (an OFFER of three films states none alone)."""
    counts: dict[str, int] = {}
    for action in s.frame(index).get("actions") or []:
        counts[action.get("slot") or ""] = counts.get(action.get("slot") or "", 0) + len(
            action["values"]
        )
    return [st for st in stated if counts.get(st.slot) == 1]


def _differs(new: str, old: str) -> bool:
    """A replacement says something else, not the same more or less precisely."""
    a, b = norm(new), norm(old)
    return bool(a) and a not in b and b not in a


_SHAPE_PIECES = re.compile(r"\d+|[^\W\d_]+|\S")


def shape(text: str) -> tuple[str, ...]:
    """How a value is written: digits and words reduced to their kind ("6 pm" ~ "8 pm", not
    "8:30 pm"; "$1,600" ~ "$2,100"; "March 9th" ~ "March 12th")."""
    return tuple(
        "9" if p.isdigit() else "a" if p[0].isalpha() else p for p in _SHAPE_PIECES.findall(text)
    )


def in_case(new: str, said: str) -> str:
    """``new`` in the letter case of the words it replaces: all lower case stays lower case, a
    capital first letter (a sentence start) stays capital."""
    letters = [c for c in said if c.isalpha()]
    if letters and all(c.islower() for c in letters):
        return new.lower()
    new = restyle(new, said)
    return new[:1].upper() + new[1:] if said[:1].isupper() else new


def render(value: str, said: str, service: str, slot: str, vocab: Vocabulary) -> str | None:
    """``value`` written the way the reply wrote the value it replaces, or None if no wording of
    that shape is known (a date is never written "2019-03-12" in a reply that said "March 9th")."""
    want = shape(said)
    forms = vocab.surfaces.get((service, slot), {}).get(norm(value), ())
    for form in (*forms, value):
        if shape(form) == want and _differs(form, said):
            return in_case(form, said)
    return None


def _edit(
    s: SgdScene,
    index: int,
    kind: SgdKind,
    st: Statement,
    new: str,
    correct_to: tuple[str, ...] = (),
    *,
    empty_kb: bool = False,
) -> Draft:
    reply = s.turns[index].text
    response = reply[: st.start] + new + reply[st.end :]
    source_id = s.case_id(index)
    truth = SgdTruth(
        kind=kind,
        dialogue_id=s.dialogue_id,
        service=s.service_at(index),
        split=s.split,
        source_id=source_id,
        start=st.start,
        end=st.start + len(new),
        source_start=st.start,
        source_end=st.end,
        original=st.said,
        replacement=new,
        slot=st.slot,
        correct_to=correct_to,
    )
    return Draft(f"{source_id}/{kind}", truth, response, empty_kb)


# --------------------------------------------------------------------------- the kinds


def value_swap(s: SgdScene, index: int, vocab: Vocabulary, rng: random.Random) -> Draft | None:
    """A stated value replaced by another value of the same slot, so that no row returned holds
    the values the reply now says together: another row's value where the rows differ, else a
    value the same service returns elsewhere in the file."""
    call = s.calls[index]
    if call is None or not call.rows:
        return None
    service = s.service_at(index)
    booleans = s.schema[service].booleans
    stated = statements(s, index)
    facts = stated_facts(s, index)
    if not any(holds(row, facts) for row in call.rows):
        return None  # the reply does not state the values of one row together
    swappable = [
        st
        for st in _single_valued(stated, s, index)
        if st.slot != call.name_slot
        and st.slot not in booleans
        and any(st.slot in r for r in call.rows)
    ]
    rng.shuffle(swappable)
    for st in swappable:
        in_kb = sorted({r[st.slot] for r in call.rows if st.slot in r}, key=norm)
        elsewhere = [v for v in vocab.values.get((service, st.slot), ()) if v not in in_kb]
        for pool in (in_kb, elsewhere):
            pool = [v for v in pool if _differs(v, st.canonical)]
            rng.shuffle(pool)
            for value in pool:
                changed = [(slot, value if slot == st.slot else v) for slot, v in facts]
                if any(holds(row, changed) for row in call.rows):
                    continue
                new = render(value, st.said, service, st.slot, vocab)
                if new is not None:
                    return _edit(s, index, SgdKind.value_swap, st, new, (st.said, st.canonical))
    return None


def invented_name(s: SgdScene, index: int, vocab: Vocabulary, rng: random.Random) -> Draft | None:
    """A row's name in the reply replaced by a name of the same kind (the same service's name
    slot, from another dialogue's rows) that these rows and this dialogue never mention."""
    call = s.calls[index]
    if call is None or call.name_slot is None:
        return None
    known = {norm(r[call.name_slot]) for r in call.rows if r.get(call.name_slot)}
    named = [
        st
        for st in statements(s, index)
        if st.slot == call.name_slot and norm(st.canonical) in known
    ]
    if not named:
        return None
    said = norm(" ".join(t.text for t in s.turns[: index + 1]))
    pool = [
        n
        for n in vocab.names.get((s.service_at(index), call.name_slot), ())
        if norm(n) and norm(n) not in said and all(_differs(n, k) for k in known)
    ]
    if not pool:
        return None
    st = rng.choice(named)
    return _edit(s, index, SgdKind.invented_name, st, in_case(rng.choice(pool), st.said))


# How a reply says each yes/no slot of the schema, as (no, yes) phrase pairs: the wording a
# flip may change. Written from the slot names and descriptions in schema.json and ordinary
# English, never from validation replies. A negative phrase is looked for first, so "not good for
# kids" is never read as "good for kids".
YES_NO_PHRASES: dict[str, tuple[tuple[str, str], ...]] = {
    "free_entry": (
        ("not free to enter", "free to enter"),
        ("entry is not free", "entry is free"),
        ("entrance is not free", "entrance is free"),
        ("an entrance fee", "no entrance fee"),
        ("an entry fee", "no entry fee"),
        ("no free entry", "free entry"),
        ("is not free", "is free"),
    ),
    "good_for_kids": (
        ("not good for kids", "good for kids"),
        ("not child-friendly", "child-friendly"),
        ("not child friendly", "child friendly"),
        ("not kid-friendly", "kid-friendly"),
        ("not kid friendly", "kid friendly"),
        ("not suitable for kids", "suitable for kids"),
        ("not suitable for children", "suitable for children"),
    ),
    "furnished": (("unfurnished", "furnished"), ("not furnished", "furnished")),
    "pets_allowed": (
        ("pets are not allowed", "pets are allowed"),
        ("does not allow pets", "allows pets"),
        ("not pet friendly", "pet friendly"),
        ("not pet-friendly", "pet-friendly"),
    ),
    "refundable": (("non-refundable", "refundable"), ("not refundable", "refundable")),
    "is_redeye": (("not a red-eye", "a red-eye"), ("not a red eye", "a red eye")),
    "is_unisex": (("not unisex", "unisex"),),
}


def _phrase_spans(phrase: str, text: str) -> list[tuple[int, int]]:
    pattern = re.compile(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", re.IGNORECASE)
    return [m.span() for m in pattern.finditer(text)]


def yes_no_wording(slot: str, text: str) -> tuple[bool, int, int, str] | None:
    """Where ``text`` says the yes/no ``slot``: (which way, start, end, the opposite wording),
    when it says it exactly once and only one way; None when that is not certain."""
    found = []
    negatives: list[tuple[int, int]] = []
    for no, yes in YES_NO_PHRASES.get(slot, ()):
        for a, b in _phrase_spans(no, text):
            negatives.append((a, b))
            found.append((False, a, b, yes))
    for no, yes in YES_NO_PHRASES.get(slot, ()):
        for a, b in _phrase_spans(yes, text):
            if not any(a < nb and na < b for na, nb in negatives):
                found.append((True, a, b, no))
    # of overlapping wordings of one polarity ("it is free to enter": "is free", "free to
    # enter"), the longest is the place
    found = [
        f
        for f in found
        if not any(
            g[0] == f[0] and g[1] < f[2] and f[1] < g[2] and g[2] - g[1] > f[2] - f[1]
            for g in found
        )
    ]
    distinct = {(a, b) for _, a, b, _ in found}
    if len(distinct) != 1 or len({f[0] for f in found}) != 1:
        return None
    return found[0]


def yes_no_flip(s: SgdScene, index: int, vocab: Vocabulary, rng: random.Random) -> Draft | None:
    """A yes/no value the reply states turned round at the words that say it ("entry is free" ->
    "entry is not free"), where those words say the annotated value and the rows in focus hold
    it, so that no row returned holds what the reply now says."""
    call = s.calls[index]
    if call is None or not call.rows:
        return None
    reply = s.turns[index].text
    booleans = s.schema[s.service_at(index)].booleans
    frame = s.frame(index)
    facts = [f for f in stated_facts(s, index) if f[0] not in booleans]
    candidates = []
    for action in frame.get("actions") or []:
        slot, values = action.get("slot"), action.get("canonical_values") or []
        if action["act"] not in STATING_ACTS or slot not in booleans or len(values) != 1:
            continue
        wording = yes_no_wording(slot, reply)
        if wording is None or wording[0] != (values[0] == "True"):
            continue  # the words do not say the annotated value (SGD has such turns)
        stated = [*facts, (slot, values[0])]
        flipped = [*facts, (slot, "False" if values[0] == "True" else "True")]
        if not any(holds(r, stated) for r in call.rows) or any(
            holds(r, flipped) for r in call.rows
        ):
            continue
        candidates.append((slot, values[0], wording))
    if not candidates:
        return None
    slot, value, (_, start, end, opposite) = rng.choice(candidates)
    said = reply[start:end]
    st = Statement("INFORM", slot, said, value, start, end)
    return _edit(s, index, SgdKind.yes_no_flip, st, in_case(opposite, said))


def user_contradiction(
    s: SgdScene, index: int, vocab: Vocabulary, rng: random.Random
) -> Draft | None:
    """A value the user asked for, repeated by the reply (CONFIRM or INFORM), replaced by another
    value of the same slot that the user never said: the reply contradicts the user's request.

    Only values the user's own turns state in words (annotated span, or the words found in a
    user turn) are used, so the dialogue the engine sees holds the request.
    """
    service = s.service_at(index)
    asked = s.user_values(index)
    user_text = " ".join(t.text for t in s.turns[:index] if t.role == "user")
    said_before = norm(" ".join(t.text for t in s.turns[:index]))
    candidates = [
        st
        for st in _single_valued(statements(s, index, USER_ACTS), s, index)
        if norm(st.canonical) in asked.get(st.slot, {})
        and any(occurrences(w, user_text) for w in asked[st.slot][norm(st.canonical)])
    ]
    rng.shuffle(candidates)
    for st in candidates:
        pool = [
            v
            for v in vocab.values.get((service, st.slot), ())
            if _differs(v, st.canonical) and norm(v) not in asked.get(st.slot, {})
        ]
        rng.shuffle(pool)
        for value in pool:
            new = render(value, st.said, service, st.slot, vocab)
            if new is not None and norm(new) not in said_before:
                return _edit(s, index, SgdKind.user_contradiction, st, new)
    return None


def offer_without_rows(
    s: SgdScene, index: int, vocab: Vocabulary, rng: random.Random
) -> Draft | None:
    """The turn that called the service and offered what it returned, checked as if the call had
    returned no rows: everything it offers is invented (the database-failure case)."""
    call = s.calls[index]
    if call is None or call.turn != index or not call.rows:
        return None
    offers = [st for st in statements(s, index) if st.act == "OFFER"]
    if not offers:
        return None
    first = min(offers, key=lambda st: st.start)
    source_id = s.case_id(index)
    truth = SgdTruth(
        kind=SgdKind.offer_without_rows,
        dialogue_id=s.dialogue_id,
        service=s.service_at(index),
        split=s.split,
        source_id=source_id,
        start=first.start,
        end=first.end,
        source_start=first.start,
        source_end=first.end,
        original=first.said,
        replacement=first.said,
        slot=first.slot,
    )
    return Draft(f"{source_id}/{SgdKind.offer_without_rows}", truth, s.turns[index].text, True)


_MAKERS: dict[SgdKind, Callable[[SgdScene, int, Vocabulary, random.Random], Draft | None]] = {
    SgdKind.value_swap: value_swap,
    SgdKind.invented_name: invented_name,
    SgdKind.yes_no_flip: yes_no_flip,
    SgdKind.user_contradiction: user_contradiction,
    SgdKind.offer_without_rows: offer_without_rows,
}
