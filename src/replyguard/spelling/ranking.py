"""Scoring candidate words: a noisy channel with bigram context.

    score(c) = ln P(c) + w · [assoc(left, c) + assoc(c, right)] − nats_per_edit · cost(c → typed)

``ln P(c)`` is the lexicon prior (a KB word's is at least ``kb-word-prior``), ``assoc`` the bigram
association of the candidate with each neighbour, ``cost`` the error model's. The scores of the
candidates, and of the hypothesis that the typed word is right, normalise to a posterior that is
the correction's confidence.

The weighted edit distance is the costly part, so candidates are scored in order of an optimistic
bound (every edit at the cheapest cost) and scoring stops once no bound can reach the
``limit``-th best score found.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rapidfuzz.distance import OSA

from replyguard.spelling.errormodel import ErrorModel
from replyguard.spelling.vocabulary import Vocabulary


@dataclass(frozen=True, slots=True)
class Scored:
    word: str
    score: float


@dataclass(frozen=True, slots=True)
class Context:
    """The lower-case neighbouring words (None at a sentence edge or beside a non-word)."""

    left: str | None = None
    right: str | None = None


class Ranker:
    def __init__(
        self, vocabulary: Vocabulary, model: ErrorModel, nats_per_edit: float, context_weight: float
    ) -> None:
        self.vocabulary = vocabulary
        self.model = model
        self.nats = nats_per_edit
        self.context_weight = context_weight

    def fit(self, word: str, context: Context) -> float:
        """How well ``word`` (or two words, "a lot") fits between its neighbours."""
        return self.phrase_fit(tuple(word.split(" ")), context)

    def phrase_fit(self, words: tuple[str, ...], context: Context) -> float:
        lexicon = self.vocabulary.lexicon
        total = sum(self.vocabulary.prior(w) for w in words)
        chain = [context.left, *words, context.right]
        association = sum(
            lexicon.association(a, b)
            for a, b in zip(chain, chain[1:], strict=False)
            if a is not None and b is not None
        )
        return total + self.context_weight * association

    def rank(
        self,
        typed: str,
        candidates: Iterable[str],
        context: Context,
        limit: int,
        extra_cost: float = 0.0,
    ) -> list[Scored]:
        """The ``limit`` best candidates for ``typed``, best first."""
        cheapest = self.model.cheapest_edit
        bounded = []
        for candidate in candidates:
            fit = self.fit(candidate, context)
            floor = cheapest * OSA.distance(candidate, typed) + extra_cost
            bounded.append((fit - self.nats * floor, fit, candidate))
        bounded.sort(reverse=True)
        best: list[Scored] = []
        for bound, fit, candidate in bounded:
            if len(best) >= limit and bound <= best[-1].score:
                break
            score = fit - self.nats * (self.model.cost(candidate, typed) + extra_cost)
            best.append(Scored(candidate, score))
            best.sort(key=lambda s: -s.score)
            del best[limit:]
        return best


def posterior(first: float, others: Sequence[float]) -> float:
    """P(first) among hypotheses whose scores are log-likelihoods."""
    peak = max([first, *others])
    total = sum(math.exp(s - peak) for s in [first, *others])
    return math.exp(first - peak) / total
