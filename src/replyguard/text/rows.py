"""Rows said by their values: which KB entity a clause means when it names none ("the 7:40 am
rental costs $58", rows a search returned have no name) or names one that several entities share
("the group ride on Saturday").

A sentence listing rows ("a road bike at 7:40 am for $58 and a city hybrid at 11:15 am for $44")
says one row per group of values: a value of an attribute the group already has a value of
starts the next row; a sentence that names nothing goes on with the row the one before ended on.
When rows with no name hold the values of a group but no one row holds them all, the row holding
most of them is meant (of rows that tie, the one in focus, else the first listed) and each value
is checked against it (`split_row`). Otherwise, within a group, the values said before a value
identify the row it is said of; the values after it identify the row only when two or more
agree. Of rows that tie, those holding the value win, then the dialogue's focus breaks the tie.
A row not told firmly is checked against every candidate: the one holding the value, or, among
the entities sharing a name, all of them when they hold one value for its attribute.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from replyguard.models import ValueType
from replyguard.text.attachment import fits_attribute
from replyguard.text.lexer import Lexeme
from replyguard.text.lexicon import KBIndex
from replyguard.text.temporal import WEEKDAYS
from replyguard.values import measured, money_amount, money_key, value_key

_TEXTUAL = (ValueType.text, ValueType.enum)
# temporal mentions that name a day, whose weekday a weekday column may hold
_DAY_KINDS = frozenset({"date", "weekday", "relative_day", "relative_weekday", "datetime"})


@dataclass(frozen=True)
class Identified:
    """The entities a value's group points to, best first, and how firmly."""

    ids: list[str]  # the best-scoring candidates (several when they tie)
    before: int  # how many values said before the value the best candidates hold
    after: int  # how many said after it they hold
    # the best `key_weight` of the values said before / after it that the best candidates hold
    before_weight: float = 0.0
    after_weight: float = 0.0


class RowFinder:
    """Which entities hold a value said in a text, under an attribute its type fits."""

    def __init__(self, index: KBIndex) -> None:
        self.index = index
        self._table: dict[tuple[str, str], set[str]] | None = None
        self._memo: dict[tuple[str, object], dict[str, frozenset[str]]] = {}
        self._distinctness: dict[str, float] = {}
        self._nameless: frozenset[str] | None = None

    def _holders_table(self) -> dict[tuple[str, str], set[str]]:
        if self._table is None:
            self._table = defaultdict(set)
            for entity in self.index.entities.values():
                for attribute in entity.attributes:
                    atype = self.index.attribute_type(attribute)
                    for held in entity.values_of(attribute)[0]:
                        keys = {value_key(atype, str(held))}
                        if atype == ValueType.money and money_key(str(held)) is None:
                            # a bare amount ("68"): found by the amount of "$68" said
                            keys.add(value_key(atype, money_amount(str(held)) or ""))
                        for key in keys:
                            self._table[(attribute, key)].add(entity.id)
        return self._table

    def holders(self, value: Lexeme) -> dict[str, frozenset[str]]:
        """attribute -> the entities holding the value under it (attributes of a fitting type)."""
        memo_key = (value.text, (value.value_type, value.attributes))
        found = self._memo.get(memo_key)
        if found is None:
            table = self._holders_table()
            found = {}
            texts = [value.text]
            if value.temporal is not None and value.temporal.kind in _DAY_KINDS:
                day = value.temporal.date
                # "tomorrow", "March 5": the day it falls on, and its weekday
                texts += [day.isoformat(), WEEKDAYS[day.weekday()]] if day else []
            for attribute, spec in self.index.schema.items():
                if value.attributes and attribute not in value.attributes:
                    continue
                # a textual column may hold any value as written ("friday", "the 8th")
                if not fits_attribute(value.value_type, attribute, self.index) and (
                    value.attributes or spec.value_type not in _TEXTUAL
                ):
                    continue
                said = texts
                if spec.value_type == ValueType.money and value.value_type == ValueType.money:
                    said = [*texts, money_amount(value.text) or ""]  # a bare amount column
                elif spec.value_type == ValueType.number and measured(value.text):
                    said = [*texts, value.text.split()[0]]  # "9 minutes" of a bare 9
                ids = set().union(
                    *(table.get((attribute, value_key(spec.value_type, t)), ()) for t in said)
                )
                if ids:
                    found[attribute] = frozenset(ids)
            if len(self._memo) > 4096:
                self._memo.clear()
            self._memo[memo_key] = found
        return found

    def held_by(self, value: Lexeme) -> frozenset[str]:
        return frozenset().union(*self.holders(value).values())

    def groups(self, values: Sequence[Lexeme]) -> list[list[Lexeme]]:
        """The values of one sentence as rows: a value of an attribute the current row already
        has a value of starts a new one."""
        out: list[list[Lexeme]] = []
        seen: set[str] = set()
        for value in values:
            attributes = set(self.holders(value))
            if not out or attributes & seen:
                out.append([])
                seen = set()
            out[-1].append(value)
            seen |= attributes
        return out

    def reply_groups(
        self, sentences: Sequence[Sequence[Lexeme]], carries: Sequence[bool]
    ) -> list[list[list[Lexeme]]]:
        """Each sentence's values as rows (`groups`). A sentence that names nothing of its own
        (`carries`) goes on with the row the sentence before it ended on, when both say values
        only rows with no name hold and the two say no attribute twice: "The coach leaves at
        9:10. A single is $31." says one row, and its values are read together."""
        out: list[list[list[Lexeme]]] = []
        for values, carry in zip(sentences, carries, strict=True):
            rows = self.groups(values)
            last = out[-1][-1] if out and out[-1] else None
            if carry and rows and last is not None and self._of_rows(last, rows[0]):
                said = {a for v in last for a in self.holders(v)}
                if not said & {a for v in rows[0] for a in self.holders(v)}:
                    last.extend(rows[0])
                    rows[0] = last
            out.append(rows)
        return out

    def _of_rows(self, *groups: Sequence[Lexeme]) -> bool:
        """Whether each group holds a value and only rows with no name hold its values."""
        for group in groups:
            held = frozenset().union(*(self.held_by(v) for v in group))
            if not held or self.nameless(held) != held:
                return False
        return True

    def identify(
        self,
        value: Lexeme,
        group: Sequence[Lexeme],
        candidates: Collection[str] | None,
        alone: bool = False,
    ) -> Identified | None:
        """The candidates (all holders when None) the other values of the group point to. A
        value every candidate holds alike ("economy" of six rows all economy) tells none apart;
        with no other value and `alone`, the rows with no name holding the value itself are the
        pool."""
        said = [(u.end <= value.start, self.held_by(u), self.key_weight(u)) for u in group]
        said = [s for u, s in zip(group, said, strict=True) if u is not value]
        pool = (
            set(candidates)
            if candidates is not None
            else set().union(*(held for _, held, _ in said))
            or (self.nameless(self.held_by(value)) if alone else set())
        )
        if not pool:
            return None
        if len(pool) > 1:
            said = [s for s in said if not pool <= s[1]]
        before = [(held, weight) for first, held, weight in said if first]
        after = [(held, weight) for first, held, weight in said if not first]
        scored = {
            e: (sum(e in held for held, _ in before), sum(e in held for held, _ in after))
            for e in pool
        }
        best = max(scored.values())
        ids = sorted(e for e, score in scored.items() if score == best)

        def strength(values: list[tuple[frozenset[str], float]]) -> float:
            return max((w for held, w in values if held & set(ids)), default=0.0)

        return Identified(ids, *best, strength(before), strength(after))

    def key_weight(self, value: Lexeme) -> float:
        """How well the value's attribute tells rows apart: its distinct values per row holding
        it (1.0 for a departure time no two rows share, 1/6 for a fare type six rows share); of
        several attributes holding the value, the best."""
        return max((self._distinct(a) for a in self.holders(value)), default=0.0)

    def nameless(self, ids: Collection[str]) -> set[str]:
        """Of these entities, the rows with no name (told only by their values)."""
        if self._nameless is None:  # once per KB: asked of every entity holding a value said
            entities = self.index.entities.values()
            self._nameless = frozenset(e.id for e in entities if e.name is None)
        return set(self._nameless.intersection(ids)) if self._nameless else set()

    def names_row(self, value: Lexeme) -> bool:
        """Whether the value is of a column that tells rows apart as well as any (a departure
        time, not the fare several rows share): said alone, it names its own row; a value of
        another column is the row in focus's ("An economy seat is $25" after "a boat at 6:40")."""
        best = max((self._distinct(a) for a in self.index.schema), default=0.0)
        return self.key_weight(value) >= best

    def split_row(
        self, value: Lexeme, group: Sequence[Lexeme], focus: Mapping[str, tuple[float, int]]
    ) -> tuple[str, str] | None:
        """The row meant when the values said together ("leaves at 9:10 and costs $31") are held
        by rows with no name but by no one row: the row holding the most of them; of rows that
        tie, the one in focus, else the first the KB lists (`Listed`: rows a search returned, in
        the order returned). Every value is then checked against that one row, whichever of
        them tells rows apart best. None when one row holds them all, or the value is held by
        no row (the other rules decide)."""
        every = self.nameless(self.index.entities)
        held = [self.nameless(self.held_by(u)) for u in group]
        told = [h for h in held if h and h != every]  # values held alike by every row tell none
        own = self.nameless(self.held_by(value))
        if not own or own == every or len(told) < 2 or set.intersection(*told):
            return None
        support = {e: sum(e in h for h in told) for e in set().union(*told)}
        best = max(support.values())
        tied = [e for e in self.index.entities if support.get(e) == best]  # in the KB's order
        if len(tied) == 1:
            return tied[0], "Values"
        in_focus = [e for e in tied if e in focus]
        if in_focus:
            return max(in_focus, key=focus.__getitem__), "Values"
        return tied[0], "Listed"

    def _distinct(self, attribute: str) -> float:
        found = self._distinctness.get(attribute)
        if found is None:
            atype = self.index.attribute_type(attribute)
            rows = [e.values_of(attribute)[0] for e in self.index.entities.values()]
            rows = [r for r in rows if r]
            keys = {value_key(atype, str(v)) for r in rows for v in r}
            found = self._distinctness[attribute] = len(keys) / len(rows) if rows else 0.0
        return found

    def row_for(
        self,
        value: Lexeme,
        group: Sequence[Lexeme],
        candidates: Collection[str] | None,
        focus: Mapping[str, tuple[float, int]],
        attribute_of: Callable[[str], str | None],
        *,
        alone: bool = True,
    ) -> tuple[str, str] | None:
        """(entity id, resolution) of the row a value is said of: `Values` when told by the
        values said with it, `Candidates` when checked against every candidate, `Several` when
        the entities sharing the subject's name hold other values of its attribute, none of them
        this one (the first of them, to be checked against all); None when no row can be told.
        `candidates` are the entities sharing the subject's name (None: any row), `focus` the
        (salience, order) of the entities in focus, `attribute_of` the attribute the value
        would fill on an entity (None when none fits). A value said with no other is the row's
        that holds it when `alone` (no pronoun points elsewhere: "another sailing leaves at
        11:40" after the 8:15 one was offered)."""
        holders = self.held_by(value)
        if value.value_type == ValueType.number and len(value.text.split()) == 1 and not holders:
            return None  # a bare number could be anything: "2 gas stations"
        if (
            candidates is None
            and focus
            and len(self.nameless(holders)) == len(self.index.entities) > 1
        ):
            # a value every row holds alike ("economy" of all economy seats) tells no row: it is
            # said of the one in focus
            return max(focus, key=focus.__getitem__), "Candidates"
        if candidates is None:
            split = self.split_row(value, group, focus)
            if split is not None:
                return split
        found = self.identify(value, group, candidates, alone)
        if found is None:
            return None
        ids = found.ids
        # the values said with it tell its row, unless another row holds it and its own
        # attribute tells rows apart better than theirs ("$37 ... leaves at 7:30 am": the time
        # no other row has is the row's, the price the one to check against it)
        own = -1.0 if not holders or holders & set(ids) else self.key_weight(value)
        told = (
            (found.before >= 1 and found.before_weight >= own)
            or found.after >= 2
            or (found.after >= 1 and found.after_weight > own)
        )
        if len(ids) > 1 and told:
            # of rows the other values tell and that tie, those holding the value ("another
            # harbour tour on Sunday"), then the one in focus
            ids = [e for e in ids if e in holders] or ids
        if len(ids) > 1:
            top = max((focus[e] for e in ids if e in focus), default=None)
            if top is not None:
                ids = [e for e in ids if focus.get(e) == top]
        if len(ids) == 1 and told:
            return ids[0], "Values"
        named = [e for e in candidates or () if e in holders]
        if len(named) == 1:  # of the entities sharing the name, one holds the value said
            return named[0], "Values"
        holding = [e for e in ids if e in holders]
        if not holding and candidates is None and (not focus or self.names_row(value)):
            holding = sorted(self.nameless(holders))  # "another sailing leaves at 11:40"
        own_row = holding and candidates is None and self.nameless(holders) == {holding[0]}
        if own_row and self.names_row(value):
            return holding[0], "Values"  # named by its own value, as if by its name
        if holding:
            return holding[0], "Candidates"
        if candidates is None:
            return None
        attributes = {attribute_of(e) for e in ids}
        if None in attributes or len(attributes) != 1:
            return None
        (attribute,) = attributes
        entities = self.index.entities
        held = {tuple(entities[e].values_of(attribute)[0]) for e in ids}  # type: ignore[arg-type]
        # "Sparks vs Storm is on March 9th" of three games on other days: wrong whichever is meant
        return (ids[0], "Candidates") if len(held) == 1 else (ids[0], "Several")
