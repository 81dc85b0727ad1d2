"""`replyguard bench proxy`'s report: the lines it prints from the numbers it measured."""

from __future__ import annotations

from replyguard.serve.bench_proxy import format_report


def report(**plain_extra: object) -> dict[str, object]:
    ms = {"p50_ms": 1.0, "p95_ms": 2.0}
    plain = {
        name: ms
        for name in ("direct", "proxy", "added_over_check", "added_over_worker", "check_alone_cpu")
    }
    plain |= {"by_action": {}, "scheduling": {}, **plain_extra}
    return {"plain": plain, "streaming": []}


def test_the_health_floor_is_printed_when_measured():
    shown = format_report(report(health_cpu={"p50_ms": 0.87, "p95_ms": 1.5}), 10, 5)
    assert "a bare health request  p50     0.87 ms  service CPU" in shown
    assert "bare health" not in format_report(report(), 10, 5)
