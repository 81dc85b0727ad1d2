"""`replyguard eval sgd`: the SGD dataset as the harness runs it — loading, per-unit scoring,
the summary, the table rows with the issue's targets, and the printed report (tune and
validation side by side, then per service and per domain).

Failures are listed (``--errors``) for the tune split only: validation cases are never read one
by one, so the figures on them stay a measurement and not something the engine was fitted to.
"""

from __future__ import annotations

from collections.abc import Sequence

from replyguard.evaluation.cases import EvalCase
from replyguard.evaluation.harness import Row, Target, UnitResult, _failure, _kept, _pooled
from replyguard.evaluation.sgd import PERTURBATION_KINDS, SPLITS, SgdKind, SgdTruth

# Issue 11's targets, judged on the validation split.
TARGETS = {
    "gold false alarms": Target("<=", 0.03),
    "value_swap precision": Target(">=", 0.95),
    "value_swap recall": Target(">=", 0.90),
    "value_swap correction accuracy (of detected)": Target(">=", 0.95),
    "value_swap sent to CorrectAndDeliver or Regenerate": Target(">=", 0.95),
    "invented_name recall": Target(">=", 0.90),
    "yes_no_flip recall": Target(">=", 0.85),
    "offer_without_rows recall": Target(">=", 0.85),
}
# The per-service and per-domain columns: (heading, kind or None for gold, figure).
_COLUMNS = (
    ("gold", None, "n"),
    ("false al.", None, "false_alarm_rate"),
    ("swap P", SgdKind.value_swap, "precision"),
    ("swap R", SgdKind.value_swap, "recall"),
    ("corr.", SgdKind.value_swap, "correction_accuracy_of_detected"),
    ("routed", SgdKind.value_swap, "routed_rate"),
    ("name R", SgdKind.invented_name, "recall"),
    ("yes/no R", SgdKind.yes_no_flip, "recall"),
    ("user R", SgdKind.user_contradiction, "recall"),
    ("no-rows R", SgdKind.offer_without_rows, "recall"),
)


def load(data: str, limit: int | None, seed: int) -> list[EvalCase]:
    from replyguard.evaluation import sgd

    return list(sgd.iter_sgd_cases(data, limit, seed=seed))


def split_of(case: EvalCase) -> str:
    truth = case.truth
    assert isinstance(truth, SgdTruth)
    return truth.split


def score_unit(
    cases: Sequence[EvalCase], results: dict, positions: dict[str, int], out: UnitResult
) -> None:
    from replyguard.evaluation import sgd_scoring

    outcomes = _kept(out, *sgd_scoring.sgd_outcomes(cases, results))
    by_id = {c.case_id: c for c in cases}
    for o in outcomes:
        if o.split != "tune":
            continue  # validation cases are scored, never listed
        case, result = by_id[o.case_id], results[o.case_id]
        truth = case.truth
        assert isinstance(truth, SgdTruth)
        if o.kind is SgdKind.gold:
            if o.alarms:
                record = _failure(case, result, "gold/false_alarm", "no alarm")
                out.failures.append((positions[o.case_id], record | {"service": o.service}))
            continue
        expected = _expected(truth)
        if not o.detected:
            kind = f"{o.kind}/missed"
        elif o.corrected is False:
            kind = f"{o.kind}/uncorrected"
        else:
            kind = None
        if kind is not None:
            record = _failure(case, result, kind, expected) | {"service": o.service}
            out.failures.append((positions[o.case_id], record))
        if o.source_fired:
            source_id = truth.source_id or ""
            record = _failure(
                by_id[source_id],
                results[source_id],
                f"{o.kind}/false_positive",
                {**expected, "where": "nothing of this kind over the original text"},
            )
            out.failures.append(
                (positions[o.case_id], record | {"service": o.service, "perturbation": o.case_id})
            )


def _expected(truth: SgdTruth) -> dict:
    from replyguard.evaluation.sgd_scoring import EXPECTED, NOT_DELIVERED

    if truth.kind is SgdKind.offer_without_rows:
        return {"recommendation": sorted(str(k) for k in NOT_DELIVERED), "kb": "no rows"}
    statuses, flags = EXPECTED[truth.kind]
    return {
        "verdict": sorted(statuses) + sorted(str(f) for f in flags),
        "span": [truth.start, truth.end],
        "slot": truth.slot,
        "original": truth.original,
        "replacement": truth.replacement,
        "correct_to": list(truth.correct_to) or None,
    }


def summary(results: Sequence[UnitResult]) -> dict:
    from replyguard.evaluation import sgd_scoring

    return sgd_scoring.score_sgd(*_pooled(results))


def rows(m: dict) -> list[Row]:
    """The headline figures of each split present in the run, targets on both."""
    out = []
    for split, entry in m["splits"].items():
        if not entry["gold"]["n"] and not any(entry[str(k)]["n"] for k in PERTURBATION_KINDS):
            continue
        for name, value, n in headline(entry):
            out.append(Row(f"{split}: {name}", value, n, TARGETS.get(name)))
    return out


def headline(entry: dict) -> list[tuple[str, float | None, int]]:
    gold, swap = entry["gold"], entry["value_swap"]
    out = [
        ("gold false alarms", gold["false_alarm_rate"], gold["n"]),
        ("value_swap precision", swap.get("precision"), swap["n"]),
        ("value_swap recall", swap["recall"], swap["n"]),
        (
            "value_swap correction accuracy (of detected)",
            swap["correction_accuracy_of_detected"],
            swap["detected"],
        ),
        ("value_swap sent to CorrectAndDeliver or Regenerate", swap["routed_rate"], swap["n"]),
    ]
    for kind in PERTURBATION_KINDS:
        if kind is SgdKind.value_swap:
            continue
        k = entry[str(kind)]
        if "precision" in k:
            out.append((f"{kind} precision", k["precision"], k["n"]))
        out.append((f"{kind} recall", k["recall"], k["n"]))
    return out


def sizes(cases: Sequence[EvalCase]) -> dict:
    truths = [c.truth for c in cases if isinstance(c.truth, SgdTruth)]
    out: dict = {"dialogues": len({t.dialogue_id for t in truths}), "cases": len(cases)}
    for split in SPLITS:
        out[split] = {
            str(kind): sum(t.split == split and t.kind is kind for t in truths) for kind in SgdKind
        }
    return out


# --------------------------------------------------------------------------- printing


def format_report(report: dict) -> str:
    """The header, the headline figures side by side (tune | validation), then per service and
    per domain within each split."""
    from replyguard.evaluation.harness import format_section

    head = format_section(report | {"table": []}).splitlines()
    m = report["metrics"]["splits"]
    lines = head[:2]
    table = [("metric", "tune", "n", "validation", "n", "target", "pass")]
    tune, validation = headline(m["tune"]), headline(m["validation"])
    for (name, tv, tn), (_, vv, vn) in zip(tune, validation, strict=True):
        target = TARGETS.get(name)
        verdict = "" if target is None or vv is None else ("pass" if target.met(vv) else "FAIL")
        table.append((name, _num(tv), str(tn), _num(vv), str(vn), str(target or ""), verdict))
    lines += _grid(table)
    for scope in ("by_service", "by_domain"):
        grid = [("split", scope.split("_")[1], *(c[0] for c in _COLUMNS))]
        for split in SPLITS:
            for name, entry in m[split][scope].items():
                grid.append((split, name, *(_cell(entry, kind, f) for _, kind, f in _COLUMNS)))
        lines += ["", *_grid(grid)]
    return "\n".join(lines)


def _cell(entry: dict, kind: SgdKind | None, figure: str) -> str:
    value = entry["gold"][figure] if kind is None else entry[str(kind)].get(figure)
    if figure == "n":
        return str(value)
    of = entry["gold"] if kind is None else entry[str(kind)]
    n = of["detected"] if figure == "correction_accuracy_of_detected" else of["n"]
    return "" if value is None else f"{_num(value)} ({n})"


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _grid(table: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    return [
        "  "
        + "  ".join(
            cell.ljust(w) if i < 2 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()
        for r in table
    ]
