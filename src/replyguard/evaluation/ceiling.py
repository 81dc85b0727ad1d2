"""How far a checker that knows only the knowledge and the history can go on HaluEval, against
hand labels of a sample of records, and how far replyguard goes on the same sample.

    python -m replyguard.evaluation.ceiling --data ../shared/data \\
        --labels docs/halueval_sample_labels.jsonl

Each labelled record gives its right and its hallucinated response one of four labels:

- K  contradicts the knowledge or the history (a checker with only those could prove it wrong);
- U  adds a specific claim they do not hold, without contradicting them;
- W  (hallucinated only) wrong, but only by world knowledge;
- N  claims nothing beyond them.

A perfect knowledge-only checker flags exactly the K responses (or, at the other extreme, every
K, U and W response: everything the knowledge does not hold). Its accuracy under the HaluEval
protocol is the ceiling; replyguard's judgements are reported per label beside it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from replyguard.engine import Engine
from replyguard.errors import InputError
from replyguard.evaluation.cases import locate_data_file
from replyguard.evaluation.halueval import HALUEVAL_FILE, record_cases
from replyguard.evaluation.scoring import MODES, judged_hallucinated

LABELS = ("K", "U", "W", "N")
SIDES = ("right", "hallucinated")


def read_labels(path: str | Path) -> dict[int, dict[str, str]]:
    """Line number of a record -> {"right": label, "hallucinated": label}."""
    out: dict[int, dict[str, str]] = {}
    with open(path, encoding="utf-8") as lines:
        for n, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                labels = {side: str(row[side]) for side in SIDES}
                out[int(row["line"])] = labels
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise InputError(f"{path}: line {n}: bad label row ({exc})") from None
            if not set(labels.values()) <= set(LABELS):
                raise InputError(f"{path}: line {n}: labels must be one of {', '.join(LABELS)}")
    return out


def ceilings(labels: dict[int, dict[str, str]]) -> dict[str, float]:
    """HaluEval accuracy of a perfect checker that flags K only, or everything K, U or W."""
    n = len(labels)
    right = Counter(v["right"] for v in labels.values())
    hallucinated = Counter(v["hallucinated"] for v in labels.values())

    def accuracy(flagged: set[str]) -> float:
        caught = sum(hallucinated[k] for k in flagged)
        passed = n - sum(right[k] for k in flagged)
        return round((caught + passed) / (2 * n), 4)

    return {"flags K": accuracy({"K"}), "flags K, U, W": accuracy({"K", "U", "W"})}


def judge(data: str | Path, labels: dict[int, dict[str, str]]) -> dict:
    """Run the labelled records; per side, label and mode: how many were judged hallucinated."""
    path = locate_data_file(data, HALUEVAL_FILE)
    judged: Counter[tuple[str, str, str]] = Counter()
    totals: Counter[tuple[str, str]] = Counter()
    outcomes = {m: [0, 0] for m in MODES}  # caught hallucinated, passed right
    engine: Engine | None = None
    with path.open(encoding="utf-8") as lines:
        for line_no, line in enumerate(lines, start=1):
            if line_no not in labels:
                continue
            for case in record_cases(json.loads(line), f"halueval/{line_no}"):
                if engine is None:
                    engine = Engine(case.case.kb)
                else:
                    engine.replace_kb(case.case.kb)
                result = engine.check_case(case.case)
                side = "hallucinated" if case.truth.hallucinated else "right"
                label = labels[line_no][side]
                totals[(side, label)] += 1
                for mode in MODES:
                    flagged = judged_hallucinated(result, mode)
                    judged[(side, label, mode)] += flagged
                    outcomes[mode][side == "right"] += flagged == (side == "hallucinated")
    n = len(labels)
    return {
        "records": n,
        "per_label": {
            f"{side} {label}": {
                "n": totals[(side, label)],
                **{m: judged[(side, label, m)] for m in MODES},
            }
            for side in SIDES
            for label in LABELS
            if totals[(side, label)]
        },
        "accuracy": {m: round(sum(outcomes[m]) / (2 * n), 4) for m in MODES},
        "ceiling": ceilings(labels),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m replyguard.evaluation.ceiling")
    parser.add_argument("--data", default="../shared/data", help="data root or the HaluEval file")
    parser.add_argument("--labels", required=True, help="hand labels, one JSON line per record")
    args = parser.parse_args(argv)
    try:
        report = judge(args.data, read_labels(args.labels))
    except (InputError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{report['records']} labelled records")
    print(f"  {'side and label':<16} {'n':>4}  {'contradiction':>13}  {'all':>5}")
    for key, row in report["per_label"].items():
        print(f"  {key:<16} {row['n']:>4}  {row['contradiction']:>13}  {row['all']:>5}")
    for mode, value in report["accuracy"].items():
        print(f"  replyguard accuracy ({mode}): {value:.3f}")
    for name, value in report["ceiling"].items():
        print(f"  ceiling, a perfect checker that {name}: {value:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
