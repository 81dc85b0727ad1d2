"""`replyguard eval`: run the engine over a public dataset, score it, print a table, save a report.

The adapters (kvret, halueval, begin, sgd) turn records into ordinary `Case`s and `scoring` turns
results into metrics; this module is the loop between them, plus what makes a number worth
quoting: the dataset size behind it, the command that reproduces it and the time it took.

Cost. Building an `Engine` loads and folds the rule files (~400 forms) and its first check warms
the rule caches, together most of a second, while later checks cost milliseconds. Cases are
therefore grouped by KB *content* — every case whose KB is identical is checked in one go (all of
BEGIN, KVRET's empty calendars) — and a process builds one engine and moves it from KB to KB with
`Engine.replace_kb` (a few tens of milliseconds), which a dataset with one KB per record
(HaluEval: 5,000) needs.

Determinism. The work is cut into units (a group of cases with one KB, at most `UNIT_CASES` cases,
never splitting the cases that are scored together) before anything runs. `replace_kb` keeps
nothing of the previous KB (only the rules and what pure rule functions decided), so a unit runs
the same way on a fresh engine or a moved one, in one process or in N (`-j N`); only the wall
time changes. Each unit is scored where it ran and only its outcomes, failures and
timings travel back, so the parent's memory stays flat however large the dataset (`execute` says
why the workers are replaced).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import shlex
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from multiprocessing.connection import Connection
from pathlib import Path
from statistics import fmean, median
from typing import TYPE_CHECKING, TextIO

from replyguard.errors import InputError
from replyguard.evaluation.metrics import auroc, ratio

# The CLI imports this module to build its parser for every command, so the engine, the models and
# the adapters (hyperon, grammars) are imported where they are used, not here.
if TYPE_CHECKING:
    from replyguard.engine import Engine
    from replyguard.evaluation.cases import EvalCase, Perturbation
    from replyguard.models import PostprocessedResponse

DEFAULT_DATA = "../shared/data"
DATASET_NAMES = ("kvret", "halueval", "begin", "sgd")
SPLIT_CHOICES = ("tune", "validation", "all")
# A unit this size keeps an engine build (~0.2 s) a small share of the unit's time while leaving
# enough units for -j to spread (BEGIN's 430 cases share one KB).
UNIT_CASES = 200
# Units one worker process checks before it is replaced (see `execute`).
UNITS_PER_PROCESS = 250
# A worker's address-space cap: an engine needs a few hundred MB; a HaluEval case once made a
# process grow past 23 GB, and on a shared machine the kernel's OOM killer may pick someone else's.
WORKER_MEMORY_BYTES = 4 << 30
# A worker's time limit: a minute to start, then generous allowances (a unit's engine takes about
# a second to build and warm, a case well under one) so a loaded machine does not trip it.
WORKER_SECONDS = 60.0
UNIT_SECONDS = 10.0
CASE_SECONDS = 2.0
_SLOWEST = 10


# --------------------------------------------------------------------------- targets and rows


@dataclass(frozen=True)
class Target:
    """A bound from issue 3: ``op`` is "<=" or ">="."""

    op: str
    bound: float

    def met(self, value: float) -> bool:
        return value <= self.bound if self.op == "<=" else value >= self.bound

    def __str__(self) -> str:
        return f"{'≤' if self.op == '<=' else '≥'} {self.bound:.2f}"


@dataclass(frozen=True)
class Row:
    """One line of the table: a metric, the number of cases (or pairs) it rests on, its target."""

    metric: str
    value: float | None
    n: int
    target: Target | None = None

    @property
    def passed(self) -> bool | None:
        """None when there is nothing to judge: no target, or a metric undefined on this data."""
        if self.target is None or self.value is None:
            return None
        return self.target.met(self.value)

    def as_json(self) -> dict:
        return {
            "metric": self.metric,
            "value": self.value,
            "n": self.n,
            "target": str(self.target) if self.target else None,
            "pass": self.passed,
        }


FALSE_ALARM_TARGET = Target("<=", 0.05)
PRECISION_TARGETS = {"value_swap": Target(">=", 0.95)}
RECALL_TARGETS = {
    "value_swap": Target(">=", 0.90),
    "entity_swap": Target(">=", 0.85),
    "prior_contradiction": Target(">=", 0.80),
}
CORRECTION_TARGET = Target(">=", 0.90)
QUD_AUROC_TARGET = Target(">=", 0.85)
HALUEVAL_ACCURACY_TARGET = Target(">=", 0.75)


# --------------------------------------------------------------------------- one unit of work


@dataclass(frozen=True)
class Unit:
    """Cases sharing one KB, checked by one engine; ``positions`` are their places in the
    dataset, so failures can be listed in dataset order whatever order the units finish in."""

    dataset: str
    positions: tuple[int, ...]
    cases: tuple[EvalCase, ...]


@dataclass
class UnitResult:
    """What a unit sends back: scored outcomes, failures for --errors, and timings.

    ``qud_scores`` holds (gold question, swapped question) relevance scores of KVRET's QUD swaps,
    the one metric that needs numbers the outcomes do not keep.
    """

    cases: int = 0
    outcomes: list = field(default_factory=list)
    unscored: int = 0
    failures: list[tuple[int, dict]] = field(default_factory=list)
    case_seconds: list[tuple[str, float]] = field(default_factory=list)
    build_seconds: float | None = None
    engine_errors: int = 0
    qud_scores: list[tuple[float, float]] = field(default_factory=list)


def run_unit(unit: Unit, engine: Engine | None = None) -> tuple[UnitResult, Engine | None]:
    """Put an engine on the unit's KB (a new one, or ``engine`` moved with `replace_kb`), check
    every case, score the unit; the result and the engine for the next unit.

    An exception from the engine on one case is recorded as a failure and leaves that case
    unscored (scoring counts it); the run goes on, so one bad case cannot cost a whole dataset.
    """
    from replyguard.engine import Engine
    from replyguard.models import KnowledgeBase

    out = UnitResult(cases=len(unit.cases))
    results: dict[str, PostprocessedResponse] = {}
    pending = list(zip(unit.positions, unit.cases, strict=True))
    kb = unit.cases[0].case.kb
    assert isinstance(kb, KnowledgeBase), "adapters build inline KBs"
    started = time.perf_counter()
    try:
        if engine is None:
            engine = Engine(kb)
        else:
            engine.replace_kb(kb)
        out.build_seconds = time.perf_counter() - started
    except Exception as exc:  # a KB the engine rejects fails each of its cases, not the run
        out.engine_errors = len(pending)
        out.failures = [(position, _engine_error(case, exc)) for position, case in pending]
        pending = []
        engine = None
    for position, case in pending:
        started = time.perf_counter()
        try:
            results[case.case_id] = engine.check_case(case.case)
        except Exception as exc:  # an engine failure on one case is data for the report
            out.engine_errors += 1
            out.failures.append((position, _engine_error(case, exc)))
        out.case_seconds.append((case.case_id, time.perf_counter() - started))
    positions = dict(zip((c.case_id for c in unit.cases), unit.positions, strict=True))
    datasets()[unit.dataset].score_unit(unit.cases, results, positions, out)
    return out, engine


def _engine_error(case: EvalCase, exc: BaseException) -> dict:
    return {
        "case_id": case.case_id,
        "kind": "engine_error",
        "reply": case.case.response,
        "expected": "a result",
        "got": {"error": f"{type(exc).__name__}: {exc}"},
        **_context(case),
    }


def make_units(dataset: str, cases: Sequence[EvalCase]) -> list[Unit]:
    """Cases grouped by KB content (first-seen order), cut into units of at most `UNIT_CASES`.

    A cut never falls inside a session (a KVRET dialogue, whose perturbations are scored against
    their gold turns; a HaluEval record, whose two responses are scored as a pair).
    """
    groups: dict[str, list[int]] = {}
    for i, c in enumerate(cases):
        groups.setdefault(_kb_key(c), []).append(i)
    units = []
    for indices in groups.values():
        chunk: list[int] = []
        for i in indices:
            session = cases[i].case.session_id
            new_session = not chunk or cases[chunk[-1]].case.session_id != session
            if len(chunk) >= UNIT_CASES and new_session:
                units.append(_unit(dataset, cases, chunk))
                chunk = []
            chunk.append(i)
        units.append(_unit(dataset, cases, chunk))
    return units


def _unit(dataset: str, cases: Sequence[EvalCase], indices: list[int]) -> Unit:
    return Unit(dataset, tuple(indices), tuple(cases[i] for i in indices))


def _kb_key(case: EvalCase) -> str:
    kb = case.case.kb
    text = kb if isinstance(kb, str) else kb.model_dump_json(by_alias=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- reading a result


def describe(result: PostprocessedResponse) -> dict:
    """What the engine made of a reply, compact enough to read in a JSONL line: every claim with
    its subject, predicate, object and status, every flag, the QUD verdict, the coherence
    sub-scores, the recommendation and the corrected text if it changed."""
    from replyguard.evaluation.signals import alarms

    reply = result.original
    validations = {v.claim_id: v for v in result.factual_validation.claim_validations}
    claims = []
    for c in result.factual_validation.claims:
        v = validations.get(c.id)
        claims.append(
            {
                "text": reply[c.span.start : c.span.end],
                "span": [c.span.start, c.span.end],
                "subject": c.subject,
                "subject_id": c.subject_id,
                "predicate": c.predicate,
                "object": c.object,
                "negated": c.negated,
                "confidence": round(c.confidence, 4),
                "status": v.status.kind if v else None,
                "kb_value": getattr(v.status, "kb_value", None) if v else None,
            }
        )
    flags = [
        {
            "type": str(f.hallucination_type),
            "text": f.content,
            "span": [f.span.start, f.span.end],
            "confidence": round(f.confidence, 4),
            "reason": f.reason,
        }
        for f in result.hallucination_flags
    ]
    coherence = result.coherence
    qud = coherence.qud_relevance
    corrected = result.corrected.corrected if result.corrected else reply
    return {
        "recommendation": str(result.recommendation.kind),
        "confidence": round(result.confidence, 4),
        "alarms": alarms(result),
        "claims": claims,
        "flags": flags,
        "qud": {
            "addresses_qud": qud.addresses_qud,
            "score": round(qud.score, 4),
            "question_type": str(qud.question_type),
            "expected_answer": qud.expected_answer,
            "coverage": round(qud.answer_coverage, 4),
            "relevance": round(qud.semantic_relevance, 4),
        },
        "coherence": {
            "score": round(coherence.score, 4),
            "topic": round(coherence.topic_consistency.score, 4),
            "entity": round(coherence.entity_consistency.score, 4),
            "discourse": round(coherence.discourse_coherence.score, 4),
            "reference": round(coherence.reference_consistency.score, 4),
            "issues": [f"{i.issue_type}: {i.description}" for i in coherence.issues],
        },
        "factual_score": round(result.factual_validation.score, 4),
        "corrected": corrected if corrected != reply else None,
    }


def _context(case: EvalCase) -> dict:
    """The inputs behind a failure: the question, the dialogue and the KB as name -> facts."""
    kb = case.case.kb
    facts = (
        {}
        if isinstance(kb, str)
        else {e.label: e.model_dump(mode="json")["attributes"] for e in kb.entities}
    )
    return {
        "query": case.case.query,
        "dialogue": [f"{t.speaker}: {t.text}" for t in case.case.dialogue.turns],
        "kb": facts,
    }


def _failure(case: EvalCase, result: PostprocessedResponse, kind: str, expected: object) -> dict:
    return {
        "case_id": case.case_id,
        "kind": kind,
        "reply": case.case.response,
        "expected": expected,
        "got": describe(result),
        **_context(case),
    }


# --------------------------------------------------------------------------- outcomes


def _kept(out: UnitResult, outcomes: list, unscored: int) -> list:
    """Add a unit's scored outcomes (and its count of unscored cases) to its result."""
    out.outcomes.extend(outcomes)
    out.unscored += unscored
    return outcomes


def _pooled(results: Sequence[UnitResult]) -> tuple[list, int]:
    """Every unit's outcomes and unscored count together, for a dataset's summary."""
    return [o for r in results for o in r.outcomes], sum(r.unscored for r in results)


# --------------------------------------------------------------------------- KVRET


def _kvret_load(data: str, limit: int | None, seed: int) -> list[EvalCase]:
    from replyguard.evaluation import kvret

    return list(kvret.iter_kvret_cases(data, limit, seed=seed))


def _kvret_score_unit(
    cases: Sequence[EvalCase], results: dict, positions: dict[str, int], out: UnitResult
) -> None:
    from replyguard.evaluation import scoring
    from replyguard.evaluation.cases import Perturbation, PerturbationKind

    outcomes = _kept(out, *scoring.kvret_outcomes(cases, results))
    by_id = {c.case_id: c for c in cases}
    for o in outcomes:
        case, result = by_id[o.case_id], results[o.case_id]
        if isinstance(o, scoring.GoldOutcome):
            if o.false_alarm:
                out.failures.append(
                    (positions[o.case_id], _failure(case, result, "gold/false_alarm", "no alarm"))
                )
            continue
        truth = case.truth
        assert isinstance(truth, Perturbation)
        source, source_case = results[truth.source_id], by_id[truth.source_id]
        expected = _expected(truth)
        if o.kind is PerturbationKind.qud_swap:
            out.qud_scores.append(
                (source.coherence.qud_relevance.score, result.coherence.qud_relevance.score)
            )
        record = _failure(case, result, f"{o.kind}/missed", expected)
        if not o.detected:
            out.failures.append((positions[o.case_id], record))
        elif o.corrected is False:
            record |= {"kind": f"{o.kind}/uncorrected"}
            out.failures.append((positions[o.case_id], record))
        if o.source_fired:
            record = _failure(
                source_case,
                source,
                f"{o.kind}/false_positive",
                {**expected, "where": "nothing of this kind over the original text"},
            )
            out.failures.append((positions[o.case_id], record | {"perturbation": o.case_id}))


def _expected(truth: Perturbation) -> dict:
    from replyguard.evaluation import scoring
    from replyguard.evaluation.cases import PerturbationKind

    if truth.kind is PerturbationKind.qud_swap:
        return {
            "verdict": "addresses_qud false",
            "original_question": truth.original,
            "swapped_question": truth.replacement,
        }
    statuses, flags = scoring.EXPECTED[truth.kind]
    return {
        "verdict": sorted(statuses) + sorted(str(f) for f in flags),
        "span": [truth.start, truth.end],
        "evidence_spans": [list(s) for s in truth.evidence_spans],
        "original": truth.original,
        "replacement": truth.replacement,
        "entity_id": truth.entity_id,
        "attribute": truth.attribute,
        "correct_to": truth.original if truth.correctable else None,
    }


def _kvret_summary(results: Sequence[UnitResult]) -> dict:
    from replyguard.evaluation import scoring

    outcomes, unscored = _pooled(results)
    metrics = scoring.score_kvret(outcomes, unscored)
    for kind, entry in metrics["perturbations"].items():
        detected = [
            o
            for o in outcomes
            if isinstance(o, scoring.PerturbationOutcome)
            and str(o.kind) == kind
            and o.corrected is not None
            and o.detected
        ]
        if "correctable" in entry:
            fixed = sum(bool(o.corrected) for o in detected)
            entry |= {
                "detected_correctable": len(detected),
                "correction_accuracy_of_detected": ratio(fixed, len(detected)),
            }
    pairs = [p for r in results for p in r.qud_scores]
    metrics["qud_auroc"] = {
        "n_pairs": len(pairs),
        "auroc": auroc(
            [g for g, _ in pairs] + [s for _, s in pairs],
            [True] * len(pairs) + [False] * len(pairs),
        ),
    }
    return metrics


def _kvret_rows(m: dict) -> list[Row]:
    from replyguard.evaluation.cases import PerturbationKind

    gold = m["gold"]
    rows = [
        Row(
            "false-alarm rate (gold turns)", gold["false_alarm_rate"], gold["n"], FALSE_ALARM_TARGET
        )
    ]
    for intent, entry in gold["by_intent"].items():
        rows.append(Row(f"  false-alarm rate: {intent}", entry["false_alarm_rate"], entry["n"]))
    for kind in PerturbationKind:
        entry = m["perturbations"][str(kind)]
        n = entry["n"]
        rows += [
            Row(f"{kind} precision", entry["precision"], n, PRECISION_TARGETS.get(kind)),
            Row(f"{kind} recall", entry["recall"], n, RECALL_TARGETS.get(kind)),
            Row(f"{kind} F1", entry["f1"], n),
        ]
        if "correctable" in entry:
            rows += [
                Row(
                    f"{kind} correction accuracy (of detected)",
                    entry["correction_accuracy_of_detected"],
                    entry["detected_correctable"],
                    CORRECTION_TARGET,
                ),
                Row(
                    f"{kind} correction accuracy (of all)",
                    entry["correction_accuracy"],
                    entry["correctable"],
                ),
            ]
        if kind is PerturbationKind.qud_swap:
            rows.append(Row("qud_swap relevance drop rate", entry["qud_drop_rate"], n))
    qud = m["qud_auroc"]
    rows.append(
        Row("QUD AUROC (gold vs swapped question)", qud["auroc"], qud["n_pairs"], QUD_AUROC_TARGET)
    )
    return rows


def _kvret_sizes(cases: Sequence[EvalCase]) -> dict:
    from replyguard.evaluation.cases import Perturbation, PerturbationKind

    perturbed = [c.truth for c in cases if isinstance(c.truth, Perturbation)]
    return {
        "dialogues": len({c.case.session_id for c in cases}),
        "cases": len(cases),
        "gold_turns": len(cases) - len(perturbed),
        "perturbations": {str(k): sum(p.kind is k for p in perturbed) for k in PerturbationKind},
    }


# --------------------------------------------------------------------------- HaluEval


def _halueval_load(data: str, limit: int | None, seed: int) -> list[EvalCase]:
    from replyguard.evaluation import halueval

    del seed  # HaluEval has nothing random
    return list(halueval.iter_halueval_cases(data, limit))


def _halueval_score_unit(
    cases: Sequence[EvalCase], results: dict, positions: dict[str, int], out: UnitResult
) -> None:
    from replyguard.evaluation import scoring

    outcomes = _kept(out, *scoring.halueval_outcomes(cases, results))
    by_id = {c.case_id: c for c in cases}
    for o in outcomes:
        for hallucinated, judged in ((False, o.right_judged), (True, o.hallucinated_judged)):
            wrong = [mode for mode in scoring.MODES if judged[mode] != hallucinated]
            if not wrong:
                continue
            case_id = f"{o.record_id}/{'hallucinated' if hallucinated else 'right'}"
            case = by_id[case_id]
            kind = "missed_hallucination" if hallucinated else "false_alarm"
            expected = "judged hallucinated" if hallucinated else "judged not hallucinated"
            record = _failure(case, results[case_id], kind, expected)
            out.failures.append((positions[case_id], record | {"modes": wrong}))


def _halueval_summary(results: Sequence[UnitResult]) -> dict:
    from replyguard.evaluation import scoring

    return scoring.score_halueval(*_pooled(results))


def _halueval_rows(m: dict) -> list[Row]:
    from replyguard.evaluation.scoring import MODES

    rows = []
    for scope, label in (("all_records", ""), ("records_with_triples", " (records with facts)")):
        for mode in MODES:
            entry = m[scope][mode]
            n = entry["n_pairs"]
            name = f"{mode}{label}"
            target = HALUEVAL_ACCURACY_TARGET if scope == "all_records" else None
            rows.append(Row(f"{name}: accuracy", entry["accuracy"], n, target))
            if scope == "all_records":
                rows += [
                    Row(f"{name}: detection rate", entry["detection_rate"], n),
                    Row(f"{name}: false-alarm rate", entry["false_alarm_rate"], n),
                    Row(f"{name}: pairwise accuracy", entry["pairwise_accuracy"], n),
                    Row(f"{name}: pairwise ties", entry["pairwise_ties"], n),
                ]
    return rows


def _halueval_sizes(cases: Sequence[EvalCase]) -> dict:
    from replyguard.evaluation.cases import HaluEvalResponse

    truths = [c.truth for c in cases if isinstance(c.truth, HaluEvalResponse)]
    records = {t.record_id: t.triples for t in truths}
    return {
        "records": len(records),
        "cases": len(cases),
        "records_with_facts": sum(1 for n in records.values() if n > 0),
    }


# --------------------------------------------------------------------------- BEGIN


def _begin_load(data: str, limit: int | None, seed: int) -> list[EvalCase]:
    from replyguard.evaluation import begin

    del seed  # BEGIN has nothing random
    return list(begin.iter_begin_cases(data, limit))


def _begin_score_unit(
    cases: Sequence[EvalCase], results: dict, positions: dict[str, int], out: UnitResult
) -> None:
    from replyguard.evaluation import scoring

    outcomes = _kept(out, *scoring.begin_outcomes(cases, results))
    by_id = {c.case_id: c for c in cases}
    for o in outcomes:
        attributable = o.label == "Fully attributable"
        if o.judged_attributable == attributable:
            continue
        kind = "false_reject" if attributable else "false_accept"
        record = _failure(by_id[o.case_id], results[o.case_id], kind, o.label)
        out.failures.append((positions[o.case_id], record | {"model": o.model_name}))


def _begin_summary(results: Sequence[UnitResult]) -> dict:
    from replyguard.evaluation import scoring

    return scoring.score_begin(*_pooled(results))


def _begin_rows(m: dict) -> list[Row]:
    n = m["n"]
    rows = [
        Row("AUROC of confidence for 'Fully attributable'", m["auroc"], n),
        Row("balanced accuracy of the accept judgement", m["balanced_accuracy"], n),
    ]
    for label, mean in m["mean_confidence"].items():
        rows.append(Row(f"mean confidence: {label}", mean, m["labels"][label]))
    return rows


def _begin_sizes(cases: Sequence[EvalCase]) -> dict:
    from replyguard.evaluation.cases import BeginLabel

    labels: dict[str, int] = {}
    for c in cases:
        if isinstance(c.truth, BeginLabel):
            labels[c.truth.label] = labels.get(c.truth.label, 0) + 1
    return {"rows": len(cases), "cases": len(cases), "labels": dict(sorted(labels.items()))}


# --------------------------------------------------------------------------- the datasets


@dataclass(frozen=True)
class Dataset:
    """Everything the runner needs to know about one dataset, looked up by name in workers."""

    name: str
    title: str
    file: str
    load: Callable[[str, int | None, int], list[EvalCase]]
    score_unit: Callable[[Sequence[EvalCase], dict, dict[str, int], UnitResult], None]
    summary: Callable[[Sequence[UnitResult]], dict]
    rows: Callable[[dict], list[Row]]
    sizes: Callable[[Sequence[EvalCase]], dict]
    # a dataset cut into tune and validation cases (`--split`): the split of a case
    split_of: Callable[[EvalCase], str] | None = None
    # how its report section prints, when a single table of rows is not enough
    format: Callable[[dict], str] | None = None


@cache
def datasets() -> dict[str, Dataset]:
    """The datasets by name (the adapters are imported on first use)."""
    from replyguard.evaluation import begin, halueval, kvret, sgd, sgd_report

    return {
        "kvret": Dataset(
            "kvret",
            "KVRET dev",
            kvret.KVRET_FILE,
            _kvret_load,
            _kvret_score_unit,
            _kvret_summary,
            _kvret_rows,
            _kvret_sizes,
        ),
        "halueval": Dataset(
            "halueval",
            "HaluEval dialogue",
            halueval.HALUEVAL_FILE,
            _halueval_load,
            _halueval_score_unit,
            _halueval_summary,
            _halueval_rows,
            _halueval_sizes,
        ),
        "begin": Dataset(
            "begin",
            "BEGIN WoW dev",
            begin.BEGIN_FILE,
            _begin_load,
            _begin_score_unit,
            _begin_summary,
            _begin_rows,
            _begin_sizes,
        ),
        "sgd": Dataset(
            "sgd",
            "Schema-Guided Dialogue",
            sgd.SGD_FILE,
            sgd_report.load,
            sgd_report.score_unit,
            sgd_report.summary,
            sgd_report.rows,
            sgd_report.sizes,
            split_of=sgd_report.split_of,
            format=sgd_report.format_report,
        ),
    }


# --------------------------------------------------------------------------- running


class Progress:
    """Cases done / total and the rate, on one rewritten stderr line — only on a terminal, so
    logs and captured output stay clean."""

    def __init__(self, name: str, total: int, stream: TextIO) -> None:
        self.name, self.total, self.stream = name, total, stream
        self.enabled = stream.isatty()
        self.done = 0
        self.started = time.perf_counter()

    def advance(self, cases: int) -> None:
        self.done += cases
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else 0.0
        self.stream.write(
            f"\r{self.name}: {self.done}/{self.total} cases, {rate:.1f}/s, ~{left:.0f} s left "
        )
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def execute(
    units: Sequence[Unit],
    jobs: int,
    work: Callable[[Sequence[Unit]], list[UnitResult]] | None = None,
) -> Iterator[list[UnitResult]]:
    """Unit results in unit order, a chunk of at most `UNITS_PER_PROCESS` units at a time.

    A chunk's units share one engine (`run_chunk`). A run of one chunk stays in this process; a
    longer one, or any run with ``jobs`` > 1, checks each chunk in a new worker process, ``jobs``
    at a time. Workers are
    spawned rather than forked (the parent may hold hyperon state, which a fork would copy
    half-way), capped at `WORKER_MEMORY_BYTES` and given a time limit, so a case that makes the
    engine grow without bound or hang costs its own unit only. ``work`` is what a worker does
    with a chunk (`run_chunk`).
    """
    work = work or run_chunk
    chunks = [units[i : i + UNITS_PER_PROCESS] for i in range(0, len(units), UNITS_PER_PROCESS)]
    if jobs == 1 and len(chunks) <= 1:
        yield from map(work, chunks)
        return
    for start in range(0, len(chunks), jobs):
        batch = chunks[start : start + jobs]
        for chunk, results in zip(batch, in_workers(batch, work), strict=True):
            yield results if results is not None else _one_by_one(chunk, jobs, work)


def run_chunk(units: Sequence[Unit]) -> list[UnitResult]:
    """A chunk's units on one engine, moved from KB to KB."""
    out = []
    engine = None
    for unit in units:
        result, engine = run_unit(unit, engine)
        out.append(result)
    return out


def in_workers(
    chunks: Sequence[Sequence[Unit]], work: Callable[[Sequence[Unit]], list[UnitResult]]
) -> list[list[UnitResult] | None]:
    """Each chunk's results from its own new process, run side by side; None for a chunk whose
    process died (the memory cap, an abort in the native library, a kill) or outran its time.

    Plain processes and pipes rather than a pool: a pool cannot stop a worker that hangs, and
    one that dies takes its neighbours' work with it.
    """
    context = multiprocessing.get_context("spawn")
    running = []
    for chunk in chunks:
        receiver, sender = context.Pipe(duplex=False)
        process = context.Process(target=_worker, args=(work, chunk, sender), daemon=True)
        process.start()
        sender.close()  # the child holds the only writer: its death reads as end of file
        running.append((process, receiver, time.monotonic() + _time_limit(chunk)))
    out: list[list[UnitResult] | None] = []
    for process, receiver, deadline in running:
        reply = None
        try:
            if receiver.poll(max(0.0, deadline - time.monotonic())):
                reply = receiver.recv()
        except EOFError:
            pass
        finally:
            receiver.close()
            process.join(timeout=5 if reply is not None else 0)  # a hung one is not waited for
            if process.is_alive():
                process.kill()
                process.join()
        if isinstance(reply, BaseException):
            raise reply  # the harness itself failed in the worker: not the engine's doing
        out.append(reply)
    return out


def _worker(
    work: Callable[[Sequence[Unit]], list[UnitResult]], chunk: Sequence[Unit], sender: Connection
) -> None:
    _cap_memory()
    try:
        reply: object = work(chunk)
    except Exception as exc:  # sent back and raised in the parent
        reply = exc
    sender.send(reply)
    sender.close()


def _time_limit(chunk: Sequence[Unit]) -> float:
    cases = sum(len(u.cases) for u in chunk)
    return WORKER_SECONDS + UNIT_SECONDS * len(chunk) + CASE_SECONDS * cases


def _one_by_one(
    chunk: Sequence[Unit], jobs: int, work: Callable[[Sequence[Unit]], list[UnitResult]]
) -> list[UnitResult]:
    """A chunk whose process died, again with one unit per process, so that only the unit that
    kills (or hangs) its process is lost; its cases become engine errors."""
    out = []
    for start in range(0, len(chunk), jobs):
        units = chunk[start : start + jobs]
        for unit, alone in zip(units, in_workers([[u] for u in units], work), strict=True):
            out.append(alone[0] if alone is not None else _died(unit))
    return out


def _died(unit: Unit) -> UnitResult:
    error = RuntimeError(
        "the worker process checking this KB's cases died or hung "
        "(memory cap, native abort, kill or time limit)"
    )
    out = UnitResult(cases=len(unit.cases), engine_errors=len(unit.cases))
    positions = dict(zip((c.case_id for c in unit.cases), unit.positions, strict=True))
    out.failures = [(positions[c.case_id], _engine_error(c, error)) for c in unit.cases]
    datasets()[unit.dataset].score_unit(unit.cases, {}, positions, out)  # counts them unscored
    return out


def _cap_memory() -> None:
    """Limit a worker's address space (see `WORKER_MEMORY_BYTES`); a no-op where unsupported."""
    try:
        import resource

        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard == resource.RLIM_INFINITY or hard > WORKER_MEMORY_BYTES:
            resource.setrlimit(resource.RLIMIT_AS, (WORKER_MEMORY_BYTES, hard))
    except (ImportError, ValueError, OSError):
        return


def run_dataset(
    dataset: Dataset,
    data: str,
    limit: int | None,
    seed: int,
    jobs: int,
    stream: TextIO,
    split: str = "all",
) -> tuple[dict, list[dict]]:
    """One dataset end to end: its report section and its failures in dataset order.

    ``split`` keeps the cases of one split (of a dataset that has splits).
    """
    from replyguard.evaluation.cases import locate_data_file

    started = time.perf_counter()
    path = locate_data_file(data, dataset.file)
    cases = dataset.load(data, limit, seed)
    if split != "all" and dataset.split_of is not None:
        cases = [c for c in cases if dataset.split_of(c) == split]
    loaded = time.perf_counter()
    units = make_units(dataset.name, cases)
    progress = Progress(dataset.name, len(cases), stream)
    results = []
    try:
        for chunk in execute(units, jobs):
            results.extend(chunk)
            progress.advance(sum(r.cases for r in chunk))
    finally:
        progress.close()
    metrics = dataset.summary(results)
    wall = time.perf_counter() - started
    failures = sorted((f for r in results for f in r.failures), key=lambda f: f[0])
    builds = [r.build_seconds for r in results if r.build_seconds is not None]
    seconds = [s for r in results for s in r.case_seconds]
    report = {
        "title": dataset.title,
        "data_file": str(path.resolve()),
        "data_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "size": dataset.sizes(cases),
        "wall_seconds": round(wall, 3),
        "load_seconds": round(loaded - started, 3),
        "engines": {
            "built": len(builds),
            "distinct_kbs": len({_kb_key(c) for c in cases}),
            "build_seconds": _stats(builds),
            # a fresh engine's first check pays for warming its rule caches
            "first_check_seconds": _stats(
                [r.case_seconds[0][1] for r in results if r.case_seconds]
            ),
        },
        "per_case_seconds": _stats([s for _, s in seconds])
        | {
            "slowest": [
                [i, round(s, 4)] for i, s in sorted(seconds, key=lambda x: -x[1])[:_SLOWEST]
            ]
        },
        "engine_errors": sum(r.engine_errors for r in results),
        "failures": dict(sorted(Counter(f["kind"] for _, f in failures).items())),
        "metrics": metrics,
        "table": [row.as_json() for row in dataset.rows(metrics)],
    }
    return report, [{"dataset": dataset.name} | f for _, f in failures]


def _stats(values: Sequence[float]) -> dict:
    if not values:
        return {"n": 0, "total": 0.0, "mean": None, "p50": None, "p95": None, "max": None}
    ordered = sorted(values)
    return {
        "n": len(values),
        "total": round(sum(values), 3),
        "mean": round(fmean(values), 5),
        "p50": round(median(values), 5),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 5),
        "max": round(ordered[-1], 5),
    }


# --------------------------------------------------------------------------- output


def format_section(report: dict) -> str:
    """One dataset's table with the facts that make it reproducible and comparable."""
    size = ", ".join(
        f"{v} {k.replace('_', ' ')}" for k, v in report["size"].items() if isinstance(v, int)
    )
    engines = report["engines"]
    per_case = report["per_case_seconds"]
    lines = [
        f"{report['title']} ({Path(report['data_file']).name}): {size}; "
        f"{report['wall_seconds']:.1f} s wall",
        f"  engines: {engines['built']} KB loads for {engines['distinct_kbs']} distinct KBs, "
        + _seconds(engines["build_seconds"]["mean"], "each")
        + f" ({engines['build_seconds']['total']:.1f} s), first check "
        + _seconds(engines["first_check_seconds"]["mean"], "mean")
        + "; checks: "
        + _seconds(per_case["mean"], "mean")
        + ", "
        + _seconds(per_case["p95"], "p95")
        + f"; engine errors: {report['engine_errors']}",
    ]
    table = [("metric", "value", "target", "pass", "n")]
    for row in report["table"]:
        value = "n/a" if row["value"] is None else f"{row['value']:.3f}"
        verdict = {True: "pass", False: "FAIL", None: ""}[row["pass"]]
        table.append((row["metric"], value, row["target"] or "", verdict, str(row["n"])))
    widths = [max(len(r[i]) for r in table) for i in range(5)]
    for r in table:
        lines.append(
            "  "
            + "  ".join(
                cell.ljust(w) if i == 0 else cell.rjust(w)
                for i, (cell, w) in enumerate(zip(r, widths, strict=True))
            ).rstrip()
        )
    return "\n".join(lines)


def _seconds(value: float | None, label: str) -> str:
    if value is None:
        return f"n/a {label}"
    return f"{value * 1000:.1f} ms {label}" if value < 1 else f"{value:.2f} s {label}"


def command_line(args: argparse.Namespace) -> str:
    """The run as a command that reproduces it: every option spelled out, defaults included."""
    parts = ["replyguard", "eval", args.dataset, "--data", args.data, "--seed", str(args.seed)]
    if args.limit is not None:
        parts += ["--limit", str(args.limit)]
    if args.split != "all":
        parts += ["--split", args.split]
    parts += ["-j", str(args.jobs)]
    for option, value in (("--json", args.json), ("--errors", args.errors)):
        if value:
            parts += [option, value]
    return shlex.join(parts)


def code_version() -> dict:
    """Which code produced the numbers: the package version and, in a git checkout, the commit
    and whether the working tree differed from it (the engine's rules and code change between
    runs, so a number without this cannot be compared with another)."""
    try:
        package = version("replyguard")
    except PackageNotFoundError:
        package = None
    here = Path(__file__).resolve().parent

    def git(*command: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(here), *command],
                capture_output=True,
                text=True,
                timeout=10,
                check=True,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip()

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no") if commit else None
    return {
        "replyguard": package,
        "git_commit": commit,
        "git_dirty": bool(status) if status is not None else None,
    }


# --------------------------------------------------------------------------- the command


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "eval",
        help="measure the engine on a public dataset (KVRET, HaluEval, BEGIN, SGD) or your own "
        "labelled cases",
        description="Run every case of a dataset through the engine, print a table of metrics "
        "against the issue's targets and optionally save a JSON report and the failures. "
        "'eval cases FILE.jsonl ...' scores your own cases against their 'expect' labels.",
    )
    p.add_argument("dataset", metavar="DATASET", help="kvret, halueval, begin, sgd, all or cases")
    p.add_argument("files", nargs="*", metavar="FILE", help="cases: JSONL files of labelled cases")
    p.add_argument(
        "--data",
        default=DEFAULT_DATA,
        metavar="PATH",
        help="data root, dataset folder or data file (default %(default)s)",
    )
    p.add_argument("--limit", type=int, metavar="N", help="first N dialogues / records / rows")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="perturbation seed (KVRET)")
    p.add_argument(
        "--split",
        choices=SPLIT_CHOICES,
        default="all",
        help="SGD: the tune or validation services only, or both side by side (default all)",
    )
    p.add_argument("--json", metavar="OUT", help="write the full report as JSON")
    p.add_argument("--errors", metavar="OUT", help="write one JSON line per failed case")
    p.add_argument(
        "-j", "--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)"
    )
    p.add_argument("--kb", metavar="KB", help="cases: check every case against this KB instead")
    p.add_argument("--rules", metavar="DIR", help="cases: user rules directory")
    p.add_argument(
        "--no-misses", action="store_true", help="cases: print the scores only, not each miss"
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.dataset == "cases":
        from replyguard.evaluation import user_cases

        return user_cases.run(args)
    names = _check_args(args)
    started = time.perf_counter()
    report: dict = {
        "command": command_line(args),
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "code": code_version(),
        "python": sys.version.split()[0],
        "options": {
            "data": str(Path(args.data).resolve()),
            "limit": args.limit,
            "seed": args.seed,
            "split": args.split,
            "jobs": args.jobs,
        },
        "datasets": {},
    }
    failures: list[dict] = []
    for name in names:
        dataset = datasets()[name]
        section, failed = run_dataset(
            dataset, args.data, args.limit, args.seed, args.jobs, sys.stderr, args.split
        )
        report["datasets"][name] = section
        failures.extend(failed)
        print((dataset.format or format_section)(section) + "\n", flush=True)
    report["wall_seconds"] = round(time.perf_counter() - started, 3)
    print(f"command: {report['command']}  ({report['wall_seconds']:.1f} s)")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if args.errors:
        with open(args.errors, "w", encoding="utf-8") as fh:
            for record in failures:
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    return 0


def _check_args(args: argparse.Namespace) -> list[str]:
    """The datasets to run, after every argument is checked: a mistake should cost one line,
    not a run of several minutes that fails at the end."""
    from replyguard.evaluation.cases import locate_data_file

    if args.dataset == "all":
        names = list(DATASET_NAMES)
    elif args.dataset in DATASET_NAMES:
        names = [args.dataset]
    else:
        raise InputError(
            f"eval: unknown dataset {args.dataset!r} "
            "(expected kvret, halueval, begin, sgd, all or cases)"
        )
    if args.files:
        raise InputError(f"eval {args.dataset}: FILE arguments are only for 'eval cases'")
    if args.split != "all" and any(datasets()[n].split_of is None for n in names):
        raise InputError(f"--split {args.split}: only SGD has tune and validation splits")
    if not Path(args.data).exists():
        raise InputError(f"--data {args.data}: no such file or directory")
    for name in names:
        locate_data_file(args.data, datasets()[name].file)
    if args.limit is not None and args.limit < 1:
        raise InputError(f"--limit: expected a positive number, got {args.limit}")
    if args.jobs < 1:
        raise InputError(f"-j: expected a positive number of processes, got {args.jobs}")
    for option, value in (("--json", args.json), ("--errors", args.errors)):
        if value and not Path(value).resolve().parent.is_dir():
            raise InputError(f"{option} {value}: directory {Path(value).parent} does not exist")
    return names
