"""SGD results against the truth: one outcome per case, figures per split, service and domain.

The tune and validation splits (`sgd.VALIDATION_SERVICES`) are always scored apart, never pooled:
the validation figures are the ones that count, and they are reported only as aggregates.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from replyguard.evaluation.cases import EvalCase, PerturbationKind
from replyguard.evaluation.metrics import precision_recall_f1, ratio
from replyguard.evaluation.scoring import EXPECTED as KVRET_EXPECTED
from replyguard.evaluation.sgd import PERTURBATION_KINDS, SPLITS, SgdKind, SgdTruth
from replyguard.evaluation.signals import alarms, corrected_in_place, fires_at
from replyguard.models import HallucinationType, PostprocessedResponse, RecommendationKind

Results = Mapping[str, PostprocessedResponse]

# The verdicts that count as catching each perturbation, over the changed span: a wrong value or
# an invented name as for KVRET, a flipped yes/no as a wrong value, and a contradiction of the
# user as either a conflict with the user's turn or (where the rows hold the user's choice) with
# the KB.
_WRONG_VALUE = KVRET_EXPECTED[PerturbationKind.value_swap]
_AGAINST_USER = KVRET_EXPECTED[PerturbationKind.prior_contradiction]
EXPECTED: dict[SgdKind, tuple[frozenset[str], frozenset[HallucinationType]]] = {
    SgdKind.value_swap: _WRONG_VALUE,
    SgdKind.invented_name: KVRET_EXPECTED[PerturbationKind.entity_swap],
    SgdKind.yes_no_flip: _WRONG_VALUE,
    SgdKind.user_contradiction: (
        _AGAINST_USER[0] | _WRONG_VALUE[0],
        _AGAINST_USER[1] | _WRONG_VALUE[1],
    ),
}
# An offer of rows the service never returned is caught when the reply is not delivered: the
# engine asks for a new reply or a person (there is nothing to correct it with).
NOT_DELIVERED = frozenset({RecommendationKind.Regenerate, RecommendationKind.HumanReview})
# Where a reply with a wrong KB value should go: corrected in place, or written again.
ROUTED = frozenset({RecommendationKind.CorrectAndDeliver, RecommendationKind.Regenerate})


@dataclass(frozen=True)
class SgdOutcome:
    """A scored case. Gold: ``alarms``. Perturbation: ``detected``, ``source_fired`` (the same
    verdict over the same place of the gold reply; None when not paired), ``corrected`` (value
    swaps), and the ``recommendation``."""

    case_id: str
    kind: SgdKind
    service: str
    split: str
    recommendation: str
    alarms: tuple[str, ...] = ()
    detected: bool = False
    source_fired: bool | None = None
    corrected: bool | None = None

    @property
    def domain(self) -> str:
        return self.service.split("_", 1)[0]


def outcome(
    case: EvalCase, result: PostprocessedResponse, source: PostprocessedResponse | None
) -> SgdOutcome:
    truth = case.truth
    assert isinstance(truth, SgdTruth), f"{case.case_id}: not an SGD case"
    base = {
        "case_id": case.case_id,
        "kind": truth.kind,
        "service": truth.service,
        "split": truth.split,
        "recommendation": str(result.recommendation.kind),
    }
    if truth.kind is SgdKind.gold:
        return SgdOutcome(**base, alarms=tuple(alarms(result)))
    if truth.kind is SgdKind.offer_without_rows:
        return SgdOutcome(**base, detected=result.recommendation.kind in NOT_DELIVERED)
    statuses, flags = EXPECTED[truth.kind]
    corrected = None
    if truth.kind is SgdKind.value_swap:
        text = result.corrected.corrected if result.corrected else case.case.response
        corrected = any(
            corrected_in_place(
                case.case.response, text, truth.start, truth.end, right, case.case.reference_time
            )
            for right in truth.correct_to
        )
    return SgdOutcome(
        **base,
        detected=fires_at(result, [(truth.start, truth.end)], statuses, flags),
        source_fired=None
        if source is None
        else fires_at(source, [(truth.source_start, truth.source_end)], statuses, flags),
        corrected=corrected,
    )


def sgd_outcomes(cases: Iterable[EvalCase], results: Results) -> tuple[list[SgdOutcome], int]:
    """Outcomes of every scorable case, and how many could not be scored (no result, or a paired
    perturbation whose gold reply has none)."""
    out, unscored = [], 0
    for case in cases:
        result = results.get(case.case_id)
        truth = case.truth
        assert isinstance(truth, SgdTruth)
        paired = truth.kind not in (SgdKind.gold, SgdKind.offer_without_rows)
        source = results.get(truth.source_id or "") if paired else None
        if result is None or (paired and source is None):
            unscored += 1
            continue
        out.append(outcome(case, result, source))
    return out, unscored


# --------------------------------------------------------------------------- figures


def figures(outcomes: Sequence[SgdOutcome]) -> dict:
    """The issue's measures over one group of outcomes (a split, a service, a domain)."""
    gold = [o for o in outcomes if o.kind is SgdKind.gold]
    alarmed = sum(bool(o.alarms) for o in gold)
    report: dict = {
        "gold": {
            "n": len(gold),
            "false_alarms": alarmed,
            "false_alarm_rate": ratio(alarmed, len(gold)),
            "reasons": dict(sorted(Counter(r for o in gold for r in o.alarms).items())),
        }
    }
    for kind in PERTURBATION_KINDS:
        of_kind = [o for o in outcomes if o.kind is kind]
        tp = sum(o.detected for o in of_kind)
        paired = [o for o in of_kind if o.source_fired is not None]
        fp = sum(bool(o.source_fired) for o in paired)
        prf = precision_recall_f1(tp, fp, len(of_kind) - tp)
        entry: dict = {
            "n": len(of_kind),
            "tp": tp,
            "recall": prf.recall,
            "recommendations": dict(sorted(Counter(o.recommendation for o in of_kind).items())),
        }
        if kind in EXPECTED:  # paired with its gold reply: precision is defined
            entry |= {"fp": fp, "precision": prf.precision, "f1": prf.f1}
        if kind is SgdKind.value_swap:
            detected = [o for o in of_kind if o.detected]
            routed = sum(o.recommendation in ROUTED for o in of_kind)
            entry |= {
                "detected": len(detected),
                "correction_accuracy_of_detected": ratio(
                    sum(bool(o.corrected) for o in detected), len(detected)
                ),
                "routed_rate": ratio(routed, len(of_kind)),
            }
        report[str(kind)] = entry
    return report


def score_sgd(outcomes: Iterable[SgdOutcome], unscored: int = 0) -> dict:
    """Figures per split, and within each split per service and per domain."""
    outcomes = list(outcomes)
    splits = {}
    for split in SPLITS:
        mine = [o for o in outcomes if o.split == split]
        entry = figures(mine)
        entry["by_service"] = {
            s: figures([o for o in mine if o.service == s])
            for s in sorted({o.service for o in mine})
        }
        entry["by_domain"] = {
            d: figures([o for o in mine if o.domain == d]) for d in sorted({o.domain for o in mine})
        }
        splits[split] = entry
    return {"unscored": unscored, "splits": splits}
