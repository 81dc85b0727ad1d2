"""KVRET (Stanford in-car dialogues): each scenario's KB table as a replyguard KB, each assistant
turn as a case, plus the perturbed cases whose truth is known.

The table becomes a KB through the ordinary "table of rows" loader (`kb_from_rows`), as the
dataset gives it, so the evaluation exercises the feature a user would use: the loader reads the
compound weather cells ("snow, low of 60F, high of 80F") and the "today" column itself. The
adapter only decides what the loader cannot guess: which column names an entity, what kind of
entity a row is, and the date of the talk (the anchor week's day that the table calls today).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from datetime import date, datetime, time, timedelta
from pathlib import Path

from replyguard.errors import InputError
from replyguard.evaluation.cases import EvalCase, GoldTurn, locate_data_file
from replyguard.evaluation.perturb import perturbations
from replyguard.evaluation.scene import Scene, Vocabulary, answer_indices, norm
from replyguard.kb import kb_from_rows, read_table
from replyguard.models import KnowledgeBase, Turn
from replyguard.text.temporal import WEEKDAYS

KVRET_FILE = "kvret/kvret_dev_public.json"

# The column that names a row, and what a row is, per scenario intent.
NAME_COLUMNS = {"schedule": "event", "weather": "location", "navigate": "poi"}
ENTITY_TYPES = {"schedule": "Event", "weather": "Location", "navigate": "Location"}
# The column saying what kind of thing a row is, where a table has one.
KIND_COLUMNS = {"navigate": "poi_type"}

# KVRET weather tables say only which weekday is today ("today": "monday"); the week they describe
# is pinned to a fixed calendar week so temporal checks give the same answer on every run. Tables
# without a "today" (calendar, navigation) use the anchor Monday itself, for the same reason.
ANCHOR_MONDAY = date(2017, 5, 1)

_SPEAKERS = {"driver": "user", "assistant": "assistant"}


def load_kvret(data: str | Path) -> list[dict]:
    path = locate_data_file(data, KVRET_FILE)
    try:
        dialogues = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: cannot read KVRET file ({exc})") from None
    if not isinstance(dialogues, list):
        raise InputError(f"{path}: expected a JSON list of dialogues")
    return dialogues


def kb_rows(scenario: Mapping) -> list[dict[str, str]]:
    """The scenario's table as the dataset gives it: the engine reads its compound weather cells
    ("snow, low of 60F, high of 80F") and its "today" column itself (`kb.read_table`)."""
    kb = scenario.get("kb") or {}
    return [dict(row) for row in kb.get("items") or []]


def scenario_kb(scenario: Mapping, dialogue_id: str = "<kvret>") -> KnowledgeBase:
    intent = scenario["task"]["intent"]
    return kb_from_rows(
        kb_rows(scenario),
        name_column=NAME_COLUMNS[intent],
        entity_type=ENTITY_TYPES[intent],
        origin=f"kvret {dialogue_id}",
    )


def reference_time(scenario: Mapping) -> datetime:
    """The day the dialogue happens: the table's "today" weekday within the anchor week."""
    items = (scenario.get("kb") or {}).get("items") or []
    today = next((str(row["today"]).strip().lower() for row in items if "today" in row), None)
    offset = WEEKDAYS.index(today) if today in WEEKDAYS else 0
    return datetime.combine(ANCHOR_MONDAY + timedelta(days=offset), time())


def scene(dialogue: Mapping) -> Scene:
    scenario = dialogue["scenario"]
    dialogue_id = scenario["uuid"]
    turns = []
    slots = []
    for i, raw in enumerate(dialogue["dialogue"]):
        data = raw["data"]
        turns.append(
            Turn(id=f"T{i + 1}", speaker=_SPEAKERS[raw["turn"]], text=data["utterance"].strip())
        )
        slots.append({k: str(v).strip() for k, v in (data.get("slots") or {}).items()})
    return Scene(
        dialogue_id=dialogue_id,
        intent=scenario["task"]["intent"],
        kb=scenario_kb(scenario, dialogue_id),
        turns=tuple(turns),
        slots=tuple(slots),
        reference_time=reference_time(scenario),
    )


def vocabulary(dialogues: list[Mapping]) -> Vocabulary:
    columns: dict[str, dict[str, str]] = {}
    names: dict[tuple[str, str], dict[str, str]] = {}
    questions = []
    for dialogue in dialogues:
        scenario = dialogue["scenario"]
        intent = scenario["task"]["intent"]
        for row in read_table(kb_rows(scenario))[0]:  # the facts the engine reads off a row
            for column, value in row.items():
                if value and value.strip() != "-":
                    columns.setdefault(column, {}).setdefault(norm(value), value.strip())
            name = row.get(NAME_COLUMNS[intent])
            kind = norm(row.get(KIND_COLUMNS.get(intent, ""), ""))
            if name:
                names.setdefault((intent, kind), {}).setdefault(norm(name), name.strip())
        opening = next((t for t in dialogue["dialogue"] if t["turn"] == "driver"), None)
        if opening is not None and opening["data"]["utterance"].strip():
            questions.append((scenario["uuid"], intent, opening["data"]["utterance"].strip()))
    return Vocabulary(
        column_values={c: tuple(sorted(v.values())) for c, v in sorted(columns.items())},
        names={k: tuple(sorted(v.values())) for k, v in sorted(names.items())},
        kind_columns=KIND_COLUMNS,
        questions=tuple(questions),
    )


def gold_indices(s: Scene) -> list[int]:
    """Assistant turns that answer a driver turn (in KVRET: every assistant turn with text; two
    dev dialogues end in an empty assistant turn, which is nothing to check)."""
    return answer_indices(s.turns)


def iter_kvret_cases(
    data: str | Path, limit: int | None = None, *, seed: int = 0, perturb: bool = True
) -> Iterator[EvalCase]:
    """Gold cases of the first ``limit`` dialogues, each followed by its perturbations.

    Perturbations are seeded per gold turn and draw replacements from the whole file, so the
    cases of a dialogue are the same whatever ``limit`` is.
    """
    dialogues = load_kvret(data)
    try:
        vocab = vocabulary(dialogues) if perturb else None
        scenes = [scene(d) for d in (dialogues if limit is None else dialogues[:limit])]
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise InputError(
            f"{data}: not a KVRET dialogue list ({type(exc).__name__}: {exc})"
        ) from None
    for s in scenes:
        yield from scene_cases(s, vocab, seed=seed)


def dialogue_cases(
    dialogue: Mapping, vocab: Vocabulary | None, *, seed: int = 0
) -> Iterator[EvalCase]:
    return scene_cases(scene(dialogue), vocab, seed=seed)


def scene_cases(s: Scene, vocab: Vocabulary | None, *, seed: int = 0) -> Iterator[EvalCase]:
    """Each gold turn's case, followed by its perturbations when a vocabulary is given."""
    for index in gold_indices(s):
        truth = GoldTurn(dialogue_id=s.dialogue_id, intent=s.intent, turn_id=s.turns[index].id)
        yield EvalCase(case_id=s.case_id(index), case=s.case_at(index), truth=truth)
        if vocab is not None:
            yield from perturbations(s, index, vocab, seed=seed)
