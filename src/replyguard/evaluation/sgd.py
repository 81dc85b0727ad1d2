"""Schema-Guided Dialogue (SGD): every system turn as a case against the rows the service returned,
plus perturbed turns whose truth is known.

A user checking an SGD agent would hand replyguard what the agent itself saw: the rows of the
latest service call as a table (one entity per row), the dialogue so far, and the reply. The
adapter does only that, plus what a user would declare about the table: which column names a row
(`name_slot`), and the types the service's schema states (yes/no, date, time, money, percent).
Nothing of SGD's phrasing goes into the engine. The perturbations are made here (`sgd_perturb`),
where the dataset's annotation (slot spans, dialogue acts, the user's state) says exactly what a
reply states, so their truth is certain.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from replyguard.errors import InputError
from replyguard.evaluation.cases import EvalCase, locate_data_file
from replyguard.evaluation.scene import answer_indices, norm
from replyguard.kb import kb_from_document
from replyguard.models import Case, DialogueState, KnowledgeBase, Turn

if TYPE_CHECKING:
    from replyguard.evaluation.sgd_perturb import Vocabulary

SGD_FILE = "sgd/dialogues.json.gz"
SCHEMA_FILE = "schema.json"  # beside the dialogues

# THE SPLIT (issue 11, "split before you tune"). These five services, i.e. the whole Flights,
# Homes, Movies and Services domains, are the validation split: a dialogue that touches any of
# them is a validation dialogue, whatever other services it also uses. The engine is tuned on the
# other fifteen services only; validation cases are never printed or listed one by one (the
# harness writes failures of the tune split only), only their aggregate figures.
VALIDATION_SERVICES = frozenset({"Flights_1", "Flights_2", "Homes_1", "Movies_1", "Services_1"})
SPLITS = ("tune", "validation")

# SGD's conversations are set in the first days of March 2019: the annotation resolves "today" to
# 2019-03-01 and "tomorrow" to 2019-03-02, so that is the reference time of every case.
REFERENCE_TIME = datetime(2019, 3, 1)

_SPEAKERS = {"USER": "user", "SYSTEM": "assistant"}
# A slot that names the thing a row is: `name`, `title`, or `<thing>_name`.
_NAME_LIKE = re.compile(r"^(?:name|title|(?P<thing>[a-z_]+)_name)$")
# ... unless it names an end of a trip or a transfer (a bus's stations, a payment's recipient):
# those name other things the row is between, not the row.
_ENDPOINT_PREFIXES = ("origin_", "destination_", "from_", "to_", "recipient_")
# Types a user would declare from the schema's description of a slot; the rest is inferred by
# the KB loader as for any table.
_DECLARED_TYPES = (
    (re.compile(r"\b(?:price|fare|rent|money)\b", re.I), "money"),
    (re.compile(r"\bpercent(?:age)?\b", re.I), "percent"),
)
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_CLOCK = re.compile(r"\d{2}:\d{2}")


class SgdKind(StrEnum):
    """A gold system turn, or one of the five ways a perturbed reply is wrong."""

    gold = "gold"
    value_swap = "value_swap"
    invented_name = "invented_name"
    yes_no_flip = "yes_no_flip"
    user_contradiction = "user_contradiction"
    offer_without_rows = "offer_without_rows"


PERTURBATION_KINDS = tuple(k for k in SgdKind if k is not SgdKind.gold)


@dataclass(frozen=True)
class SgdTruth:
    """What an SGD case is: its split, service and kind, and for a perturbation where it changed.

    ``start``/``end`` is the changed text in the perturbed reply, ``source_start``/``source_end``
    the text it replaced in the gold reply ``source_id`` (where the same verdict on the gold reply
    is a false positive). ``correct_to`` holds the texts that count as the right value back in
    place: the gold reply's wording and the KB's own value.
    """

    kind: SgdKind
    dialogue_id: str
    service: str
    split: str
    source_id: str | None = None
    start: int = 0
    end: int = 0
    source_start: int = 0
    source_end: int = 0
    original: str = ""
    replacement: str = ""
    slot: str | None = None
    correct_to: tuple[str, ...] = ()

    @property
    def domain(self) -> str:
        return domain_of(self.service)


def domain_of(service: str) -> str:
    return service.split("_", 1)[0]


def split_of(services: Sequence[str]) -> str:
    return "validation" if VALIDATION_SERVICES.intersection(services) else "tune"


# --------------------------------------------------------------------------- the schema


@dataclass(frozen=True)
class ServiceSchema:
    """A service's slots in schema order, which are yes/no, their declared value types, and the
    values a categorical slot may take (`kinds`: "Economy", "Flexible" of a fare type), which a
    user handing in the table would declare as the column's values."""

    name: str
    slots: tuple[str, ...]
    booleans: frozenset[str]
    declared: Mapping[str, str]
    kinds: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def read_schema(path: Path) -> dict[str, ServiceSchema]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        services = {}
        for service in raw:
            slots = service["slots"]
            declared = {}
            for slot in slots:
                if slot.get("is_categorical") or _NAME_LIKE.match(slot["name"]):
                    continue  # a closed list of kinds ("Economy extra") or a name: no amount
                for pattern, value_type in _DECLARED_TYPES:
                    if pattern.search(slot.get("description", "")):
                        declared[slot["name"]] = value_type
                        break
            services[service["service_name"]] = ServiceSchema(
                name=service["service_name"],
                slots=tuple(s["name"] for s in slots),
                booleans=frozenset(
                    s["name"]
                    for s in slots
                    if set(s.get("possible_values") or ()) == {"True", "False"}
                ),
                declared=declared,
                kinds={
                    s["name"]: tuple(s["possible_values"])
                    for s in slots
                    if s.get("is_categorical")
                    and s.get("possible_values")
                    and not all(v.isdigit() or v in ("True", "False") for v in s["possible_values"])
                },
            )
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: cannot read the SGD schema ({exc})") from None
    except (KeyError, TypeError) as exc:
        raise InputError(f"{path}: not an SGD schema list (missing {exc})") from None
    return services


def name_slot(schema: ServiceSchema, method: str, columns: Sequence[str]) -> str | None:
    """The column that names a row, chosen as a user handing in the table would choose it.

    Name-like columns are `name`, `title` and `<thing>_name`, less those naming an end of a trip
    or transfer (`origin_station_name`, `recipient_account_name`). Of several, the one whose thing
    the service call looks for (`movie_name` for FindMovies, not `theater_name`), else the first
    in the schema's order. None when the rows have no name-like column (flights, buses, rides):
    their rows are entities without a name.
    """
    candidates = []
    for slot in schema.slots:
        m = _NAME_LIKE.match(slot)
        if m is None or slot not in columns or slot.startswith(_ENDPOINT_PREFIXES):
            continue
        candidates.append((slot, m["thing"] or slot))
    if not candidates:
        return None
    wanted = method.lower()
    for slot, thing in candidates:
        if thing.replace("_", "") in wanted:
            return slot
    return candidates[0][0]


# --------------------------------------------------------------------------- a dialogue


@dataclass(frozen=True)
class ServiceCall:
    """The latest call of a service at some system turn: its rows and how they became a KB."""

    service: str
    method: str
    turn: int
    rows: tuple[Mapping[str, str], ...]
    name_slot: str | None


@dataclass
class SgdScene:
    """One dialogue: its turns (T1..Tn), each turn's frames, and at each system turn the call of
    its service in force (None before the service was called, and at user turns)."""

    dialogue_id: str
    services: tuple[str, ...]
    split: str
    turns: tuple[Turn, ...]
    turn_frames: tuple[tuple[Mapping, ...], ...]
    calls: tuple[ServiceCall | None, ...]
    schema: Mapping[str, ServiceSchema]
    _kbs: dict = field(default_factory=dict)

    def case_id(self, index: int) -> str:
        return f"sgd/{self.dialogue_id}/{self.turns[index].id}"

    def frame(self, index: int) -> Mapping:
        """A system turn's frame (SGD system turns have exactly one)."""
        frames = self.turn_frames[index]
        return frames[0] if frames else {"service": "", "actions": [], "slots": []}

    def service_at(self, index: int) -> str:
        return self.frame(index)["service"]

    def kb_at(self, index: int, *, empty: bool = False) -> KnowledgeBase:
        """The KB of system turn ``index``: its service's latest rows, or none at all."""
        call = None if empty else self.calls[index]
        key = None if call is None else (call.service, call.turn)
        if key not in self._kbs:
            self._kbs[key] = (
                KnowledgeBase()
                if call is None
                else rows_kb(call, self.schema[call.service], self.dialogue_id)
            )
        return self._kbs[key]

    def user_values(self, index: int) -> dict[str, dict[str, tuple[str, ...]]]:
        """What the user still asks of turn ``index``'s service: slot -> the value's `norm` -> the
        words the user used for it.

        A value counts when a user turn INFORMs it and the user's latest state for the service
        still holds it (a value the user replaced no longer counts).
        """
        service = self.service_at(index)
        informed: dict[str, dict[str, dict[str, None]]] = {}
        state: dict[str, list[str]] = {}
        for i in range(index):
            if self.turns[i].role != "user":
                continue
            for f in self.turn_frames[i]:
                if f["service"] != service:
                    continue
                state = (f.get("state") or {}).get("slot_values") or state
                for action in f.get("actions") or []:
                    canon = action.get("canonical_values") or []
                    if action["act"] != "INFORM" or len(canon) != len(action["values"]):
                        continue
                    for said, value in zip(action["values"], canon, strict=True):
                        words = informed.setdefault(action["slot"], {}).setdefault(norm(value), {})
                        words[said] = None
        out: dict[str, dict[str, tuple[str, ...]]] = {}
        for slot, values in informed.items():
            current = {norm(v) for v in state.get(slot, ())}
            for value, words in values.items():
                if current & {norm(w) for w in words}:
                    out.setdefault(slot, {})[value] = tuple(words)
        return out

    def case_at(self, index: int, response: str, kb: KnowledgeBase, *, empty: bool = False) -> Case:
        """The case of system turn ``index``. When its service was called and returned no rows
        (or ``empty``: checked as if it had), the agent's tool result is handed in as a user's
        agent would hand it in: an empty list, so the engine knows the lookup found nothing."""
        turns = list(self.turns[:index])
        call = self.calls[index]
        found_nothing = empty or (call is not None and not call.rows)
        return Case(
            kb=kb,
            tool_results=[[]] if found_nothing else [],
            dialogue=DialogueState(turns=turns),
            query=turns[-1].text,
            response=response,
            reference_time=REFERENCE_TIME,
            session_id=self.dialogue_id,
            turn_id=self.turns[index].id,
        )


def rows_kb(call: ServiceCall, schema: ServiceSchema, dialogue_id: str = "?") -> KnowledgeBase:
    """The call's rows as a KB, one entity per row (ids R1, R2, ...), named by `name_slot`.

    Yes/no columns become True/False values; money and percent columns, ISO dates and 24-hour
    times are declared with those types, and a categorical column with the values it may take
    (held by a row or not), as a user describing the table would.
    """
    entities = []
    for i, row in enumerate(call.rows):
        entity: dict[str, object] = {"id": f"R{i + 1}", "attributes": {}}
        for slot, value in row.items():
            if value in (None, ""):
                continue
            if slot == call.name_slot:
                entity["name"] = value
            elif slot in schema.booleans:
                entity["attributes"][slot] = value == "True"  # type: ignore[index]
            else:
                entity["attributes"][slot] = value  # type: ignore[index]
        entities.append(entity)
    declared: dict[str, dict[str, object]] = {}
    columns = {slot for row in call.rows for slot, v in row.items() if v and slot != call.name_slot}
    for slot in sorted(columns):
        values = [row[slot] for row in call.rows if row.get(slot)]
        if slot in schema.declared:
            declared[slot] = {"value_type": schema.declared[slot]}
        elif all(_ISO_DATE.fullmatch(v) for v in values):
            declared[slot] = {"value_type": "date"}
        elif all(_CLOCK.fullmatch(v) for v in values):
            declared[slot] = {"value_type": "time"}
        if slot in schema.kinds:
            declared.setdefault(slot, {})["values"] = list(schema.kinds[slot])
    origin = f"sgd dialogue {dialogue_id}: {call.service} call at turn T{call.turn + 1}"
    return kb_from_document({"entities": entities, "schema": declared}, origin=origin)


def scene(dialogue: Mapping, schema: Mapping[str, ServiceSchema]) -> SgdScene:
    turns, frames, calls = [], [], []
    latest: dict[str, ServiceCall] = {}
    for i, raw in enumerate(dialogue["turns"]):
        turns.append(Turn(id=f"T{i + 1}", speaker=_SPEAKERS[raw["speaker"]], text=raw["utterance"]))
        for f in raw["frames"]:
            if "service_results" in f:
                service = f["service"]
                rows = tuple(dict(r) for r in f["service_results"])
                columns = [c for r in rows for c in r]
                method = f.get("service_call", {}).get("method", "")
                latest[service] = ServiceCall(
                    service, method, i, rows, name_slot(schema[service], method, columns)
                )
        frames.append(tuple(raw["frames"]))
        system = raw["speaker"] == "SYSTEM" and raw["frames"]
        calls.append(latest.get(raw["frames"][0]["service"]) if system else None)
    services = tuple(dialogue["services"])
    return SgdScene(
        dialogue_id=str(dialogue["dialogue_id"]),
        services=services,
        split=split_of(services),
        turns=tuple(turns),
        turn_frames=tuple(frames),
        calls=tuple(calls),
        schema=schema,
    )


def system_indices(s: SgdScene) -> list[int]:
    """System turns that answer a user turn (in SGD, every system turn)."""
    return answer_indices(s.turns)


# --------------------------------------------------------------------------- the file


def load_sgd(data: str | Path) -> tuple[list[dict], dict[str, ServiceSchema]]:
    path = locate_data_file(data, SGD_FILE)
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            dialogues = json.load(fh)
    except (OSError, UnicodeDecodeError, EOFError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: cannot read SGD dialogues ({exc})") from None
    if not isinstance(dialogues, list):
        raise InputError(f"{path}: expected a JSON list of dialogues")
    schema_path = path.parent / SCHEMA_FILE
    if not schema_path.is_file():
        raise InputError(f"{path.parent}: no {SCHEMA_FILE} beside {path.name}")
    return dialogues, read_schema(schema_path)


def iter_sgd_cases(
    data: str | Path, limit: int | None = None, *, seed: int = 0, perturb: bool = True
) -> Iterator[EvalCase]:
    """Gold cases of the first ``limit`` dialogues, each followed by its perturbations.

    Perturbations draw replacements from the whole file (`sgd_perturb.vocabulary`) and are seeded
    per gold turn, so a dialogue's cases do not change with ``limit``.
    """
    from replyguard.evaluation import sgd_perturb

    dialogues, schema = load_sgd(data)
    try:
        scenes = [scene(d, schema) for d in (dialogues if limit is None else dialogues[:limit])]
        vocab = sgd_perturb.vocabulary(dialogues, schema) if perturb else None
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as exc:
        raise InputError(
            f"{data}: not an SGD dialogue list ({type(exc).__name__}: {exc})"
        ) from None
    for s in scenes:
        yield from scene_cases(s, vocab, seed=seed)


def scene_cases(s: SgdScene, vocab: Vocabulary | None, *, seed: int = 0) -> Iterator[EvalCase]:
    """Each system turn's gold case, followed by its perturbations when a vocabulary is given."""
    from replyguard.evaluation import sgd_perturb

    for index in system_indices(s):
        kb = s.kb_at(index)
        truth = SgdTruth(SgdKind.gold, s.dialogue_id, s.service_at(index), s.split)
        yield EvalCase(s.case_id(index), s.case_at(index, s.turns[index].text, kb), truth)
        if vocab is None:
            continue
        for d in sgd_perturb.perturbations(s, index, vocab, seed=seed):
            rows = s.kb_at(index, empty=True) if d.empty_kb else kb
            case = s.case_at(index, d.response, rows, empty=d.empty_kb)
            yield EvalCase(d.case_id, case, d.truth)
