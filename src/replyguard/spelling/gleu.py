"""Corpus GLEU for grammatical error correction (Napoles et al. 2015, multi-reference form of 2016).

The JFLEG benchmark reports GLEU with four references: each of 500 iterations picks one reference
per sentence at random (seeded ``101 * iteration``, as the reference script does) and the score is
the mean of the per-iteration corpus scores. The n-gram precision rewards n-grams shared with the
reference and penalises source n-grams the reference dropped but the hypothesis kept.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence

ORDER = 4
ITERATIONS = 500


def _ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) + 1 - n))


def _sentence_stats(source: list[str], hypothesis: list[str], reference: list[str]) -> list[int]:
    """Length of hypothesis and reference, then (matches, possible) for n = 1..4."""
    stats = [len(hypothesis), len(reference)]
    for n in range(1, ORDER + 1):
        hyp = _ngrams(hypothesis, n)
        ref = _ngrams(reference, n)
        src = _ngrams(source, n)
        dropped = Counter({gram: count for gram, count in src.items() if gram not in ref})
        matches = sum((hyp & ref).values()) - sum((hyp & dropped).values())
        stats += [max(matches, 0), max(len(hypothesis) + 1 - n, 0)]
    return stats


def _score(stats: Sequence[int]) -> float:
    if any(value == 0 for value in stats):
        return 0.0
    hyp_len, ref_len = stats[0], stats[1]
    log_precision = sum(math.log(m / p) for m, p in zip(stats[2::2], stats[3::2], strict=True))
    return math.exp(min(0.0, 1 - ref_len / hyp_len) + log_precision / ORDER)


def corpus_gleu(
    sources: Sequence[str],
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    iterations: int = ITERATIONS,
) -> float:
    """GLEU × 100 of whitespace-tokenised ``hypotheses``; ``references[k][i]`` is the k-th
    reference of sentence i."""
    if len(hypotheses) != len(sources) or any(len(r) != len(sources) for r in references):
        raise ValueError("sources, hypotheses and every reference set must have the same length")
    per_ref = [
        [_sentence_stats(src.split(), hyp.split(), refs[i].split()) for refs in references]
        for i, (src, hyp) in enumerate(zip(sources, hypotheses, strict=True))
    ]
    scores = []
    width = len(references)
    for iteration in range(iterations):
        rng = random.Random(iteration * 101)
        # The reference script ran on Python 2, whose randint drew int(random() * width).
        choice = [int(rng.random() * width) for _ in per_ref]
        totals = [0] * (2 + 2 * ORDER)
        for stats_by_ref, k in zip(per_ref, choice, strict=True):
            totals = [a + b for a, b in zip(totals, stats_by_ref[k], strict=True)]
        scores.append(_score(totals))
    return 100 * sum(scores) / len(scores)
