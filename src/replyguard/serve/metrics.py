"""Prometheus metrics, one registry per app (so several apps in one process stay apart):

    replyguard_requests_total{route,method,status}     requests answered
    replyguard_request_seconds{route}                  latency of a request (histogram)
    replyguard_stage_seconds{stage}                    a check's time per stage (histogram)
    replyguard_recommendations_total{kind}             recommendations given
    replyguard_flags_total{type}                       hallucination flags and coherence issues
    replyguard_pending_checks                          checks waiting or running in the pool

`observe_result(result)` takes a PostprocessedResponse as JSON; any route that checks a reply
(the proxy's too) calls it. A streamed reply is checked once per sentence, each check reading
the reply so far: each round's stages are observed (each is a check of its own), each flag and
issue once, in the round that first found it (`observe_flags` with the stream's `counted`), and
one recommendation per reply, the one its response reports (`observe_recommendation`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    content_type = "text/plain; version=0.0.4; charset=utf-8"

    def __init__(self, pending: Callable[[], int]) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "replyguard_requests", "Requests answered", ["route", "method", "status"], registry=r
        )
        self.latency = Histogram(
            "replyguard_request_seconds", "Request latency", ["route"], buckets=_BUCKETS, registry=r
        )
        self.stages = Histogram(
            "replyguard_stage_seconds",
            "Check time per stage",
            ["stage"],
            buckets=_BUCKETS,
            registry=r,
        )
        self.recommendations = Counter(
            "replyguard_recommendations", "Recommendations given", ["kind"], registry=r
        )
        self.flags = Counter("replyguard_flags", "Flags raised, by type", ["type"], registry=r)
        gauge = Gauge("replyguard_pending_checks", "Checks waiting or running", registry=r)
        gauge.set_function(pending)

        # each metric's child per label values, taken from it once (`labels()` validates its
        # arguments and takes a lock at every call: a tenth of a millisecond per proxied
        # request); no larger than the registry, which keeps every child too
        self._children: dict[tuple[object, ...], Any] = {}

    def _child(self, metric: Counter | Histogram, *labels: str) -> Any:
        key = (metric, *labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*labels)
        return child

    def observe_request(self, route: str, method: str, status: int, seconds: float) -> None:
        self._child(self.requests, route, method, str(status)).inc()
        self._child(self.latency, route).observe(seconds)

    def observe_result(self, result: dict[str, Any]) -> None:
        self.observe_stages(result)
        self.observe_recommendation(result)
        self.observe_flags(result)

    def observe_stages(self, result: dict[str, Any]) -> None:
        for stage, ms in result.get("timings_ms", {}).items():
            self.observe_stage(stage, ms / 1000)

    def observe_stage(self, stage: str, seconds: float) -> None:
        self._child(self.stages, stage).observe(seconds)

    def observe_recommendation(self, result: dict[str, Any]) -> None:
        self._child(self.recommendations, result["recommendation"]["kind"]).inc()

    def observe_flags(self, result: dict[str, Any], counted: set[tuple] | None = None) -> None:
        """Every hallucination flag and coherence issue of the result, by type; given the set
        `counted` (a stream's), only those not in it (same type and span), which join it."""
        found = [
            (f["hallucination_type"], f.get("span")) for f in result.get("hallucination_flags", [])
        ]
        found += [
            (i["issue_type"], i.get("span")) for i in result.get("coherence", {}).get("issues", [])
        ]
        for kind, span in found:
            key = (kind, None if span is None else (span["start"], span["end"]))
            if counted is not None:
                if key in counted:
                    continue
                counted.add(key)
            self._child(self.flags, kind).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
