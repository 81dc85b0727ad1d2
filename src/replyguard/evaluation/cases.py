"""An evaluation case: a `Case` the engine can check, plus the truth that scores its result.

The truth is kept beside the case rather than inside it so that the engine sees exactly what a
production caller would send — nothing in a `Case` hints at the expected verdict.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from replyguard.errors import InputError
from replyguard.models import Case


class PerturbationKind(StrEnum):
    """The five KVRET perturbations, each a different way a reply can go wrong."""

    value_swap = "value_swap"
    entity_swap = "entity_swap"
    temporal_shift = "temporal_shift"
    prior_contradiction = "prior_contradiction"
    qud_swap = "qud_swap"


@dataclass(frozen=True)
class GoldTurn:
    """A human-written assistant turn, checked against its own KB: it should draw no alarm."""

    dialogue_id: str
    intent: str
    turn_id: str


@dataclass(frozen=True)
class Perturbation:
    """A gold turn changed in one known place, with where a correct detection may land.

    ``start``/``end`` is the changed text in the perturbed reply; ``source_start``/``source_end``
    the text it replaced in the gold reply (used to ask whether the engine already fired there on
    the unchanged reply, which is a false positive). ``evidence_spans`` are the perturbed-reply
    spans where a verdict counts as this detection: the changed span, plus for a weekday change the
    values the reply states about that day (the contradicted claim is about them, not the day).
    ``correctable`` is true when the original value is the KB value the engine should restore.
    """

    kind: PerturbationKind
    source_id: str
    intent: str
    start: int
    end: int
    source_start: int
    source_end: int
    original: str
    replacement: str
    evidence_spans: tuple[tuple[int, int], ...]
    source_evidence_spans: tuple[tuple[int, int], ...]
    correctable: bool
    entity_id: str | None = None
    attribute: str | None = None


@dataclass(frozen=True)
class HaluEvalResponse:
    """One of the two responses of a HaluEval record; the pair shares ``record_id``."""

    record_id: str
    hallucinated: bool
    triples: int


@dataclass(frozen=True)
class BeginLabel:
    """A BEGIN response with its human attribution label."""

    label: str
    model_name: str

    @property
    def attributable(self) -> bool:
        return self.label == "Fully attributable"


Truth = GoldTurn | Perturbation | HaluEvalResponse | BeginLabel


@dataclass(frozen=True)
class EvalCase:
    case_id: str
    case: Case
    truth: Truth


def locate_data_file(data: str | Path, relative: str) -> Path:
    """Find a dataset file given the data root, the dataset's folder, or the file itself.

    ``relative`` is the file's path under the data root (e.g. "kvret/kvret_dev_public.json"); the
    CLI's ``--data`` may name any of the three so both ``--data ../shared/data`` and
    ``--data ../shared/data/kvret`` work.
    """
    path = Path(data)
    rel = Path(relative)
    for candidate in (path, path / rel, path / rel.name):
        if candidate.is_file():
            return candidate
    raise InputError(f"{path}: no {rel.name} here or at {path / rel}")
