"""Metrics for the evaluation harness: pure, dependency-free, and explicit about edge cases.

Every function returns ``None`` when its metric is undefined on the given data (no positives, no
predictions, an empty sample) rather than 0.0 or 1.0, because a run with ``--limit`` can easily
produce such samples and a made-up number in a report is worse than a visible ``null``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class PRF:
    """Precision, recall and F1 with the counts they were computed from."""

    tp: int
    fp: int
    fn: int
    precision: float | None
    recall: float | None
    f1: float | None


def ratio(numerator: float, denominator: float) -> float | None:
    return None if denominator == 0 else numerator / denominator


def precision_recall_f1(tp: int, fp: int, fn: int) -> PRF:
    """F1 is the harmonic mean of precision and recall; undefined when either is."""
    precision = ratio(tp, tp + fp)
    recall = ratio(tp, tp + fn)
    if precision is None or recall is None:
        f1 = None
    elif precision + recall == 0:
        f1 = 0.0
    else:
        f1 = 2 * precision * recall / (precision + recall)
    return PRF(tp, fp, fn, precision, recall, f1)


def accuracy(predicted: Sequence[bool], actual: Sequence[bool]) -> float | None:
    _same_length(predicted, actual)
    return ratio(sum(p == a for p, a in zip(predicted, actual, strict=True)), len(actual))


def balanced_accuracy(predicted: Sequence[bool], actual: Sequence[bool]) -> float | None:
    """Mean of the true-positive and true-negative rates; undefined unless both classes occur.

    Used instead of accuracy where the classes are unbalanced (BEGIN is 58% negative), so that
    always answering the majority class scores 0.5, not 0.58.
    """
    _same_length(predicted, actual)
    pos = [p for p, a in zip(predicted, actual, strict=True) if a]
    neg = [p for p, a in zip(predicted, actual, strict=True) if not a]
    if not pos or not neg:
        return None
    return (sum(pos) / len(pos) + sum(not p for p in neg) / len(neg)) / 2


def auroc(scores: Sequence[float], labels: Sequence[bool]) -> float | None:
    """Area under the ROC curve as the Mann-Whitney U statistic, with tied scores given mid-ranks.

    Equals the probability that a random positive scores above a random negative, counting ties as
    one half, so a constant score gives exactly 0.5 whatever the class balance.
    """
    _same_length(scores, labels)
    n_pos = sum(1 for label in labels if label)
    n_neg = len(labels) - n_pos
    if n_pos == 0 or n_neg == 0:
        return None
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    ranks = [0.0] * len(scores)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        mid_rank = (i + j) / 2 + 1  # ranks are 1-based
        for k in range(i, j + 1):
            ranks[order[k]] = mid_rank
        i = j + 1
    rank_sum = sum(r for r, label in zip(ranks, labels, strict=True) if label)
    u = rank_sum - n_pos * (n_pos + 1) / 2
    return u / (n_pos * n_neg)


def pairwise_accuracy(pairs: Iterable[tuple[float, float]]) -> float | None:
    """Share of (preferred, other) pairs in which the preferred item scores higher; a tie is 1/2.

    The half credit for ties makes a scorer that cannot tell the two apart land at 0.5, the same
    chance level as a coin flip, instead of at 0 or 1 depending on a tie rule.
    """
    credit = 0.0
    n = 0
    for preferred, other in pairs:
        n += 1
        if preferred > other:
            credit += 1.0
        elif preferred == other:
            credit += 0.5
    return ratio(credit, n)


def _same_length(a: Sequence[object], b: Sequence[object]) -> None:
    if len(a) != len(b):
        raise ValueError(f"length mismatch: {len(a)} predictions for {len(b)} labels")
