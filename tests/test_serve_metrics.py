"""The service's Prometheus metrics, counted per label values (each child taken once)."""

from __future__ import annotations

from replyguard.serve.metrics import Metrics


def sample(metrics: Metrics, name: str, **labels: str) -> float | None:
    return metrics.registry.get_sample_value(name, labels)


def test_each_label_set_is_counted_apart_and_every_time():
    metrics = Metrics(lambda: 0)
    for status in (200, 200, 422):
        metrics.observe_request("/v1/check", "POST", status, 0.004)
    metrics.observe_request("/v1/chat/completions", "POST", 200, 0.2)
    check = {"route": "/v1/check", "method": "POST"}
    assert sample(metrics, "replyguard_requests_total", **check, status="200") == 2
    assert sample(metrics, "replyguard_requests_total", **check, status="422") == 1
    assert sample(metrics, "replyguard_request_seconds_count", route="/v1/check") == 3
    assert sample(metrics, "replyguard_request_seconds_count", route="/v1/chat/completions") == 1
    result = {
        "timings_ms": {"total": 30.0, "facts": 4.0},
        "recommendation": {"kind": "Accept"},
        "hallucination_flags": [{"hallucination_type": "WrongValue", "span": None}],
    }
    metrics.observe_result(result)
    metrics.observe_result(result)
    metrics.observe_stage("upstream", 0.002)
    assert sample(metrics, "replyguard_stage_seconds_count", stage="total") == 2
    assert sample(metrics, "replyguard_stage_seconds_count", stage="upstream") == 1
    assert sample(metrics, "replyguard_recommendations_total", kind="Accept") == 2
    assert sample(metrics, "replyguard_flags_total", type="WrongValue") == 2
