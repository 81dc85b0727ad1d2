"""Engine results against the truth: one outcome per case (or pair), then a JSON-ready summary.

The split lets a runner keep per-case outcomes for error analysis and print the summary, and lets
tests check each scoring rule on a hand-built result. Results are passed as a mapping from case id
to `PostprocessedResponse`; a case the runner could not check (absent from the mapping) is left
out of every metric and counted as ``unscored``, so one engine failure cannot poison a summary.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from statistics import fmean
from typing import TypeVar

from replyguard.evaluation.cases import (
    BeginLabel,
    EvalCase,
    GoldTurn,
    HaluEvalResponse,
    Perturbation,
    PerturbationKind,
)
from replyguard.evaluation.metrics import (
    auroc,
    balanced_accuracy,
    pairwise_accuracy,
    precision_recall_f1,
    ratio,
)
from replyguard.evaluation.signals import (
    Mode,
    alarms,
    corrected_in_place,
    fires_at,
    judged_hallucinated,
    trust_score,
)
from replyguard.models import HallucinationType, PostprocessedResponse

Results = Mapping[str, PostprocessedResponse]
T = TypeVar("T")

# The verdicts that count as detecting each span-located perturbation: the claim status the
# issue asks for, together with the flag the engine raises for the same finding.
EXPECTED: dict[PerturbationKind, tuple[frozenset[str], frozenset[HallucinationType]]] = {
    PerturbationKind.value_swap: (
        frozenset({"Contradicted"}),
        frozenset({HallucinationType.ContradictsFact}),
    ),
    PerturbationKind.entity_swap: (frozenset(), frozenset({HallucinationType.NonexistentEntity})),
    PerturbationKind.temporal_shift: (
        frozenset({"Contradicted"}),
        frozenset({HallucinationType.ContradictsFact, HallucinationType.TemporalError}),
    ),
    PerturbationKind.prior_contradiction: (
        frozenset({"HistoryConflict"}),
        frozenset({HallucinationType.ContradictsPrior}),
    ),
}


# --------------------------------------------------------------------------- KVRET


@dataclass(frozen=True)
class GoldOutcome:
    case_id: str
    intent: str
    alarms: tuple[str, ...]

    @property
    def false_alarm(self) -> bool:
        return bool(self.alarms)


@dataclass(frozen=True)
class PerturbationOutcome:
    """``detected`` on the perturbed reply, ``source_fired`` for the same check on the gold reply
    it came from (a false positive), ``corrected`` only for correctable kinds, ``qud_drop`` only
    for the QUD swap (its relevance score fell below the gold pairing's)."""

    case_id: str
    kind: PerturbationKind
    intent: str
    detected: bool
    source_fired: bool
    corrected: bool | None = None
    qud_drop: bool | None = None


def gold_outcome(case: EvalCase, result: PostprocessedResponse) -> GoldOutcome:
    truth = _truth(case, GoldTurn)
    return GoldOutcome(case.case_id, truth.intent, tuple(alarms(result)))


def perturbation_outcome(
    case: EvalCase, result: PostprocessedResponse, source: PostprocessedResponse
) -> PerturbationOutcome:
    truth = _truth(case, Perturbation)
    if truth.kind is PerturbationKind.qud_swap:
        relevance = result.coherence.qud_relevance
        gold = source.coherence.qud_relevance
        return PerturbationOutcome(
            case.case_id,
            truth.kind,
            truth.intent,
            detected=not relevance.addresses_qud,
            source_fired=not gold.addresses_qud,
            qud_drop=relevance.score < gold.score,
        )
    statuses, flags = EXPECTED[truth.kind]
    corrected = None
    if truth.correctable:
        text = result.corrected.corrected if result.corrected else case.case.response
        corrected = corrected_in_place(
            case.case.response, text, truth.start, truth.end, truth.original
        )
    return PerturbationOutcome(
        case.case_id,
        truth.kind,
        truth.intent,
        detected=fires_at(result, truth.evidence_spans, statuses, flags),
        source_fired=fires_at(source, truth.source_evidence_spans, statuses, flags),
        corrected=corrected,
    )


def kvret_outcomes(
    cases: Iterable[EvalCase], results: Results
) -> tuple[list[GoldOutcome | PerturbationOutcome], int]:
    """Outcomes of every scorable case, and how many cases could not be scored."""
    outcomes: list[GoldOutcome | PerturbationOutcome] = []
    unscored = 0
    for case in cases:
        result = results.get(case.case_id)
        if result is None:
            unscored += 1
        elif not isinstance(case.truth, Perturbation):
            outcomes.append(gold_outcome(case, result))
        elif (source := results.get(case.truth.source_id)) is not None:
            outcomes.append(perturbation_outcome(case, result, source))
        else:
            unscored += 1
    return outcomes, unscored


def score_kvret(outcomes: Iterable[GoldOutcome | PerturbationOutcome], unscored: int = 0) -> dict:
    """False-alarm rate on gold turns; P/R/F1, correction accuracy and QUD drop per kind.

    For a perturbation kind, each (gold, perturbed) pair contributes one positive (the perturbed
    reply: TP if detected, else FN) and one negative (its gold reply: FP if the same check fires
    at the same place, else TN), so precision is measured at a 1:1 class balance.
    """
    outcomes = list(outcomes)
    gold = [o for o in outcomes if isinstance(o, GoldOutcome)]
    perturbed = [o for o in outcomes if isinstance(o, PerturbationOutcome)]
    report: dict = {"unscored": unscored, "gold": _false_alarms(gold)}
    report["gold"]["by_intent"] = {
        intent: _false_alarms([o for o in gold if o.intent == intent])
        for intent in sorted({o.intent for o in gold})
    }
    report["perturbations"] = {}
    for kind in PerturbationKind:
        of_kind = [o for o in perturbed if o.kind is kind]
        tp = sum(o.detected for o in of_kind)
        fp = sum(o.source_fired for o in of_kind)
        prf = precision_recall_f1(tp, fp, len(of_kind) - tp)
        entry = {
            "n": len(of_kind),
            "tp": tp,
            "fp": fp,
            "fn": prf.fn,
            "tn": len(of_kind) - fp,
            "precision": prf.precision,
            "recall": prf.recall,
            "f1": prf.f1,
            "by_intent": dict(sorted(Counter(o.intent for o in of_kind).items())),
        }
        correctable = [o for o in of_kind if o.corrected is not None]
        if correctable:
            fixed = sum(bool(o.corrected) for o in correctable)
            entry |= {
                "correctable": len(correctable),
                "corrected": fixed,
                "correction_accuracy": ratio(fixed, len(correctable)),
            }
        if kind is PerturbationKind.qud_swap:
            entry["qud_drop_rate"] = ratio(sum(bool(o.qud_drop) for o in of_kind), len(of_kind))
        report["perturbations"][str(kind)] = entry
    return report


def _false_alarms(gold: list[GoldOutcome]) -> dict:
    reasons = Counter(r for o in gold for r in o.alarms)
    alarmed = sum(o.false_alarm for o in gold)
    return {
        "n": len(gold),
        "false_alarms": alarmed,
        "false_alarm_rate": ratio(alarmed, len(gold)),
        "reasons": dict(sorted(reasons.items())),
    }


# --------------------------------------------------------------------------- HaluEval


@dataclass(frozen=True)
class HaluEvalOutcome:
    """One record's two responses judged and scored both ways (contradiction-only and all)."""

    record_id: str
    triples: int
    right_judged: dict[str, bool]
    hallucinated_judged: dict[str, bool]
    right_score: dict[str, float]
    hallucinated_score: dict[str, float]


MODES: tuple[Mode, ...] = ("contradiction", "all")


def halueval_outcomes(
    cases: Iterable[EvalCase], results: Results
) -> tuple[list[HaluEvalOutcome], int]:
    """Pair outcomes, in record order; a record missing either result is unscored."""
    pairs: dict[str, dict[bool, tuple[HaluEvalResponse, PostprocessedResponse | None]]] = {}
    for case in cases:
        truth = _truth(case, HaluEvalResponse)
        pairs.setdefault(truth.record_id, {})[truth.hallucinated] = (
            truth,
            results.get(case.case_id),
        )
    outcomes = []
    unscored = 0
    for record_id, pair in pairs.items():
        right, hallucinated = pair.get(False), pair.get(True)
        if right is None or hallucinated is None or right[1] is None or hallucinated[1] is None:
            unscored += 1
            continue
        r, h = right[1], hallucinated[1]
        outcomes.append(
            HaluEvalOutcome(
                record_id,
                right[0].triples,
                right_judged={m: judged_hallucinated(r, m) for m in MODES},
                hallucinated_judged={m: judged_hallucinated(h, m) for m in MODES},
                right_score={m: trust_score(r, m) for m in MODES},
                hallucinated_score={m: trust_score(h, m) for m in MODES},
            )
        )
    return outcomes, unscored


def score_halueval(outcomes: Iterable[HaluEvalOutcome], unscored: int = 0) -> dict:
    """Accuracy of the yes/no judgement over both responses, and pairwise accuracy, per mode,
    over all records and over the records whose knowledge yielded at least one triple."""
    outcomes = list(outcomes)
    with_kb = [o for o in outcomes if o.triples > 0]
    return {
        "unscored": unscored,
        "records": len(outcomes),
        "triples_per_record": fmean(o.triples for o in outcomes) if outcomes else None,
        "all_records": {m: _halueval_mode(outcomes, m) for m in MODES},
        "records_with_triples": {m: _halueval_mode(with_kb, m) for m in MODES},
    }


def _halueval_mode(outcomes: list[HaluEvalOutcome], mode: Mode) -> dict:
    n = len(outcomes)
    caught = sum(o.hallucinated_judged[mode] for o in outcomes)
    passed = sum(not o.right_judged[mode] for o in outcomes)
    pairs = [(o.right_score[mode], o.hallucinated_score[mode]) for o in outcomes]
    return {
        "n_pairs": n,
        "accuracy": ratio(caught + passed, 2 * n),
        "detection_rate": ratio(caught, n),
        "false_alarm_rate": ratio(n - passed, n),
        "pairwise_accuracy": pairwise_accuracy(pairs),
        "pairwise_ties": ratio(sum(a == b for a, b in pairs), n),
    }


# --------------------------------------------------------------------------- BEGIN


@dataclass(frozen=True)
class BeginOutcome:
    case_id: str
    label: str
    model_name: str
    confidence: float
    judged_attributable: bool


def begin_outcomes(cases: Iterable[EvalCase], results: Results) -> tuple[list[BeginOutcome], int]:
    outcomes = []
    unscored = 0
    for case in cases:
        truth = _truth(case, BeginLabel)
        result = results.get(case.case_id)
        if result is None:
            unscored += 1
            continue
        outcomes.append(
            BeginOutcome(
                case.case_id,
                truth.label,
                truth.model_name,
                result.confidence,
                judged_attributable=not judged_hallucinated(result, "all"),
            )
        )
    return outcomes, unscored


def score_begin(outcomes: Iterable[BeginOutcome], unscored: int = 0) -> dict:
    """AUROC of the confidence for "Fully attributable" (every other label is negative), and
    balanced accuracy of the accept judgement (the negation of HaluEval's "all" judgement)."""
    outcomes = list(outcomes)
    actual = [o.label == "Fully attributable" for o in outcomes]
    labels = sorted({o.label for o in outcomes})
    return {
        "unscored": unscored,
        "n": len(outcomes),
        "labels": {label: sum(o.label == label for o in outcomes) for label in labels},
        "auroc": auroc([o.confidence for o in outcomes], actual),
        "balanced_accuracy": balanced_accuracy([o.judged_attributable for o in outcomes], actual),
        "mean_confidence": {
            label: fmean(o.confidence for o in outcomes if o.label == label) for label in labels
        },
    }


def _truth(case: EvalCase, kind: type[T]) -> T:
    """The case's truth, checked: scoring a case with another dataset's scorer is a caller bug."""
    if not isinstance(case.truth, kind):
        raise TypeError(
            f"{case.case_id}: expected {kind.__name__} truth, got {type(case.truth).__name__}"
        )
    return case.truth
