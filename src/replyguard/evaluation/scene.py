"""A KVRET dialogue in replyguard terms, and the dataset-wide vocabulary perturbations draw from.

Kept apart from the reader (kvret.py) and the perturbation generator (perturb.py) because both
speak this shape: the reader produces scenes, the generator turns a scene's gold turn into
perturbed cases, and neither needs to know the other.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from replyguard.models import Case, DialogueState, KnowledgeBase, Turn
from replyguard.values import fold

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True)
class Scene:
    """One dialogue: its KB, its turns (ids T1..Tn, speakers user/assistant) and their slots.

    ``slots[i]`` holds the crowd annotation of assistant turn ``i`` (the values the driver had
    given up to the turn before it); it is empty for driver turns.
    """

    dialogue_id: str
    intent: str
    kb: KnowledgeBase
    turns: tuple[Turn, ...]
    slots: tuple[Mapping[str, str], ...]
    reference_time: datetime

    def case_id(self, index: int) -> str:
        return f"kvret/{self.dialogue_id}/{self.turns[index].id}"

    def case_at(
        self, index: int, *, response: str | None = None, history: list[Turn] | None = None
    ) -> Case:
        """The check of assistant turn ``index`` as the reply to the turns before it.

        The dialogue holds every turn up to and including the driver's question, which is also
        the query; ``history`` replaces those turns (the QUD swap changes the question).
        """
        turns = list(self.turns[:index]) if history is None else history
        return Case(
            kb=self.kb,
            dialogue=DialogueState(turns=turns),
            query=turns[-1].text,
            response=self.turns[index].text if response is None else response,
            reference_time=self.reference_time,
            session_id=self.dialogue_id,
            turn_id=self.turns[index].id,
        )


@dataclass(frozen=True)
class Vocabulary:
    """What the whole file offers as replacements, so a perturbation never depends on --limit.

    ``column_values`` maps each KB column to its distinct values over every dialogue's KB;
    ``names`` maps (intent, kind) to the entity names of that kind in its KBs, where the kind is
    the value of the intent's ``kind_columns`` column ("gas station") or "" if it has none;
    ``questions`` are the opening driver turns as (dialogue id, intent, text).
    """

    column_values: Mapping[str, tuple[str, ...]]
    names: Mapping[tuple[str, str], tuple[str, ...]]
    kind_columns: Mapping[str, str]
    questions: tuple[tuple[str, str, str], ...]


def answer_indices(turns: tuple[Turn, ...]) -> list[int]:
    """Positions of the assistant turns with text that answer the user turn before them."""
    return [
        i
        for i, turn in enumerate(turns)
        if turn.role == "assistant" and turn.text.strip() and i > 0 and turns[i - 1].role == "user"
    ]


def norm(value: str) -> str:
    """Comparison form of a KVRET value: "5 PM", "5pm" and "5-pm" are the same time."""
    return "".join(_TOKEN.findall(fold(value)))


def value_pattern(value: str) -> re.Pattern[str] | None:
    """A regex finding ``value`` in running text whatever its case and inner spacing.

    Letters and digits are split apart so the KB's "5 pm" finds the reply's "5PM"; the value must
    stand alone (no letter or digit either side), so "hot" is not found inside "shot".
    """
    pieces = re.findall(r"[^\W\d_]+|\d+", fold(value))
    if not pieces:
        return None
    body = r"[\s\-]*".join(re.escape(p) for p in pieces)
    return re.compile(rf"(?<![^\W_]){body}(?![^\W_])", re.IGNORECASE)


def occurrences(value: str, text: str) -> list[tuple[int, int]]:
    pattern = value_pattern(value)
    return [] if pattern is None else [m.span() for m in pattern.finditer(text)]
