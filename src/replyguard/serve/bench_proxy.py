"""`replyguard bench proxy`: what the OpenAI-compatible proxy adds to a call of its upstream.

The typical case of `replyguard bench latency` (a synthetic, clearly labelled KB, a 20-turn
dialogue, ~60-word replies) as chat messages; a scripted upstream on loopback
(replyguard.serve.scripted_upstream) answers with the case's reply. The service and the
upstream each run in a process of their own, as they are deployed (a thread of the measuring
process would share its GIL). Each request is sent to the upstream directly and through the
proxy (one worker, one request at a time, no regeneration):

- plain: p50/p95 of both, and the proxy's added latency over the check itself (per request,
  the proxied wait minus the direct wait minus the check's stages, `timings_ms.total`; and
  minus the check's whole call in the worker, validation and result included: `worker_ms`),
  for all requests and apart for those delivered and those held for review (the typical
  case's Regenerate, with no regeneration allowed, is held); and, where Linux tells it
  (/proc/PID/task/*/schedstat), each process's CPU time per request and its time waiting for a
  CPU while runnable: what the proxy costs, and what a busy machine adds to it (beside the
  service's CPU for a bare `GET /v1/health`, the floor of any request); and, the
  same case checked by an Engine of the measuring process just before it is proxied, the
  check's own CPU time (`time.process_time`) and the CPU the service and its worker spent on
  the proxied request beyond it: a figure the load moves far less than the waits;
- streaming: the time to the first sentence, directly (until the streamed text holds it) and
  through the proxy (until its first text: it releases a sentence only once it has arrived and
  been checked, as written or corrected), at two upstream token rates. A reply whose first
  sentence is held counts the time to the answer that replaces it.

Numbers are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from replyguard.errors import ReplyguardError

CHUNK_CHARS = 4
CHUNK_DELAYS = (0.0, 0.02)  # seconds between streamed chunks: instant, ~50 tokens/s


def add_parser(bench_sub: argparse._SubParsersAction) -> None:
    p = bench_sub.add_parser("proxy", help="the chat-completions proxy's added latency")
    p.add_argument("--size", type=int, default=1000, help="KB size in entities")
    p.add_argument("--requests", type=int, default=30, help="requests per measurement")
    p.add_argument("--json", metavar="FILE", help="also write the numbers as JSON")


def run(args: argparse.Namespace) -> int:
    if args.size < 1 or args.requests < 1:
        raise ReplyguardError("--size and --requests must be positive")
    report = measure(args.size, args.requests)
    print(format_report(report, args.size, args.requests))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


def chat_requests(cases: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str]]:
    """Each typical case as (a chat completion request, the reply the upstream gives)."""
    out = []
    for case in cases:
        turns = case["dialogue"]["turns"]
        messages = [
            {
                "role": t["speaker"] if t["speaker"] in ("user", "assistant") else "user",
                "content": t["text"],
            }
            for t in turns
        ]
        messages.append({"role": "user", "content": case["query"]})
        out.append(({"model": "scripted", "messages": messages}, case["response"]))
    return out


def measure(size: int, requests: int) -> dict[str, Any]:
    import httpx

    from replyguard.serve.bench import typical_cases
    from replyguard.serve.config import ServeConfig
    from replyguard.serve.local import serving_apart
    from replyguard.serve.scripted_upstream import Reply, upstream_apart

    kb, cases = typical_cases(size, requests)
    calls = chat_requests(cases)
    plain = [calls[0], *calls]  # the first warms the worker
    # the upstream runs in a process of its own, so its replies are planned in the order asked:
    # each request once directly, then once through the proxy
    plan = [Reply(reply) for _, reply in plain for _ in (0, 1)]
    for delay in CHUNK_DELAYS:
        streamed = Reply(chunk_chars=CHUNK_CHARS, chunk_delay=delay)
        plan += [replace(streamed, text=reply) for _, reply in calls for _ in (0, 1)]
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="replyguard-bench-") as folder:
        kb_path = Path(folder) / "kb.json"
        kb_path.write_text(json.dumps(kb), encoding="utf-8")
        with upstream_apart(plan) as upstream:
            config = ServeConfig(
                kb=str(kb_path),
                workers=1,
                upstream_url=upstream,
                session_store=str(Path(folder) / "sessions.sqlite3"),
                # no regeneration: one check per request (per sentence when streaming)
                tables={"proxy": {"max_regenerations": 0}},
            )
            checker = _CheckAlone(kb_path)
            with serving_apart(config) as url, httpx.Client(timeout=120) as client:
                rows = _plain_rows(client, upstream, url, plain, checker)
                rows = rows[1:]  # the first warmed the worker
                report["plain"] = _plain_report(rows)
                health = _health_cpu(client, url, requests)
                if health:
                    report["plain"]["health_cpu"] = _percentiles(health)
                report["streaming"] = [
                    _first_sentences(client, upstream, url, calls, delay) for delay in CHUNK_DELAYS
                ]
    return report


class _CheckAlone:
    """The served KB's Engine in the measuring process: a request's check alone, its CPU."""

    def __init__(self, kb_path: Path) -> None:
        from replyguard.engine import Engine

        self.engine = Engine(str(kb_path))

    def cpu_seconds(self, body: dict[str, Any], reply: str) -> float:
        from replyguard.models import Case
        from replyguard.serve.guard import Conversation

        document = Conversation.from_messages(body["messages"]).case(reply)
        case = Case.model_validate({**document, "kb": {"entities": []}})
        started = time.process_time()
        self.engine.check_case(case)
        return time.process_time() - started


def _plain_rows(
    client: Any,
    upstream: str,
    url: str,
    calls: list[tuple[dict[str, Any], str]],
    checker: _CheckAlone,
) -> list[dict[str, Any]]:
    """Each request's check alone in this process, then the request sent directly, then
    through the proxy: the times and the schedstat deltas of the service and its workers over
    the proxied request, and their CPU beyond the check alone."""
    from replyguard.serve.local import process_id

    processes = {"service": process_id(url)} | {
        f"worker {k + 1}": w["pid"]
        for k, w in enumerate(client.get(f"{url}/v1/ready").json()["workers"])
    }
    rows = []
    for body, reply in calls:
        check_cpu = checker.cpu_seconds(body, reply)
        started = time.perf_counter()
        client.post(f"{upstream}/chat/completions", json=body).raise_for_status()
        alone = time.perf_counter() - started
        before = {name: schedstat(pid) for name, pid in processes.items()}
        started = time.perf_counter()
        answer = client.post(f"{url}/v1/chat/completions", json=body)
        through = time.perf_counter() - started
        answer.raise_for_status()
        after = {name: schedstat(pid) for name, pid in processes.items()}
        meta = answer.json()["replyguard"]
        scheduling = _scheduling(before, after)
        row = {
            "action": meta["action"],
            "direct": alone,
            "proxy": through,
            "added_over_check": through - alone - meta["check_ms"] / 1000,
            "added_over_worker": through - alone - meta["worker_ms"] / 1000,
            "check_alone_cpu": check_cpu,
            **scheduling,
        }
        cpus = [v for k, v in scheduling.items() if k.endswith(" cpu")]
        if len(cpus) == len(processes):
            row["cpu_beyond_check"] = sum(cpus) - check_cpu
        rows.append(row)
    return rows


def _health_cpu(client: Any, url: str, requests: int) -> list[float]:
    """The service's CPU time per bare `GET /v1/health`, seconds: the floor of any request
    (one HTTP exchange with the client, nothing else); empty where schedstat is not read."""
    from replyguard.serve.local import process_id

    pid = process_id(url)
    spent = []
    for _ in range(requests):
        before = schedstat(pid)
        client.get(f"{url}/v1/health").raise_for_status()
        after = schedstat(pid)
        if before is None or after is None:
            return []
        spent.append((after[0] - before[0]) / 1e9)
    return spent


def schedstat(pid: int) -> tuple[int, int] | None:
    """Nanoseconds a process's threads ran on a CPU and waited, runnable, for one (Linux's
    /proc/PID/task/*/schedstat); None where it cannot be read."""
    ran = waited = 0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat", encoding="ascii") as f:
                run_ns, wait_ns, _ = f.read().split()
            ran, waited = ran + int(run_ns), waited + int(wait_ns)
    except (OSError, ValueError):
        return None
    return ran, waited


def _scheduling(before: dict[str, Any], after: dict[str, Any]) -> dict[str, float]:
    """Each process's CPU time and wait for a CPU between two schedstat readings, seconds."""
    out = {}
    for name, start in before.items():
        end = after[name]
        if start is not None and end is not None:
            out[f"{name} cpu"] = (end[0] - start[0]) / 1e9
            out[f"{name} wait"] = (end[1] - start[1]) / 1e9
    return out


def _plain_report(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def column(name: str, of: list[dict[str, Any]] = rows) -> dict[str, float]:
        return _percentiles([r[name] for r in of])

    report: dict[str, Any] = {
        name: column(name)
        for name in ("direct", "proxy", "added_over_check", "added_over_worker", "check_alone_cpu")
    }
    if all("cpu_beyond_check" in r for r in rows):
        report["cpu_beyond_check"] = column("cpu_beyond_check")
    report["by_action"] = {
        action: {"requests": len(of), "added_over_check": column("added_over_check", of)}
        for action in sorted({r["action"] for r in rows})
        if (of := [r for r in rows if r["action"] == action])
    }
    measured = [k for k in rows[0] if k.endswith((" cpu", " wait"))]
    report["scheduling"] = {name: column(name) for name in measured if all(name in r for r in rows)}
    return report


def _first_sentences(client, upstream: str, url: str, calls, delay: float) -> dict[str, Any]:  # noqa: ANN001
    from replyguard.serve.streaming import complete_sentences

    direct, proxied = [], []
    for body, reply in calls:
        ends = complete_sentences(reply, 0)
        first = reply[: ends[0]].strip() if ends else reply
        streamed = {**body, "stream": True}
        direct.append(_time_to(client, upstream, streamed, first))
        proxied.append(_time_to(client, f"{url}/v1", streamed, None))
    return {
        "chunk_delay_ms": delay * 1000,
        "direct": _percentiles(direct),
        "proxy": _percentiles(proxied),
    }


def _time_to(client, base: str, body: dict[str, Any], sentence: str | None) -> float:  # noqa: ANN001
    """Seconds until the streamed text holds `sentence` (None: until any text came, the
    proxy releasing whole sentences, as written or corrected). The stream is read to its end,
    so the checks of its later sentences do not hold up the next request."""
    started = time.perf_counter()
    text = ""
    seen = None
    with client.stream("POST", f"{base}/chat/completions", json=body) as response:
        for line in response.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            choices = json.loads(line[6:]).get("choices") or [{}]
            text += (choices[0].get("delta") or {}).get("content") or ""
            if seen is None and (text.strip() if sentence is None else sentence in text):
                seen = time.perf_counter() - started
    return seen if seen is not None else time.perf_counter() - started


def _percentiles(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50_ms": round(statistics.median(ordered) * 1000, 2), "p95_ms": round(p95 * 1000, 2)}


def format_report(report: dict[str, Any], size: int, requests: int) -> str:
    plain = report["plain"]
    lines = [
        f"proxy on the typical case ({size} entities, {requests} requests, 1 worker)",
        f"  upstream directly      p50 {plain['direct']['p50_ms']:8.2f} ms  "
        f"p95 {plain['direct']['p95_ms']:8.2f} ms",
        f"  through the proxy      p50 {plain['proxy']['p50_ms']:8.2f} ms  "
        f"p95 {plain['proxy']['p95_ms']:8.2f} ms",
        f"  added over the check   p50 {plain['added_over_check']['p50_ms']:8.2f} ms  "
        f"p95 {plain['added_over_check']['p95_ms']:8.2f} ms  (its stages, timings_ms.total)",
        f"  added over the worker  p50 {plain['added_over_worker']['p50_ms']:8.2f} ms  "
        f"p95 {plain['added_over_worker']['p95_ms']:8.2f} ms  (the whole call in the worker)",
    ]
    for action, row in plain["by_action"].items():
        added = row["added_over_check"]
        lines.append(
            f"    {action:>15}: {row['requests']:3} requests, added over the check "
            f"p50 {added['p50_ms']:8.2f} ms  p95 {added['p95_ms']:8.2f} ms"
        )
    if plain["scheduling"]:
        lines.append("  per proxied request, p50: CPU time used / time waiting for a CPU")
        for name in dict.fromkeys(k.rsplit(" ", 1)[0] for k in plain["scheduling"]):
            cpu, wait = plain["scheduling"][f"{name} cpu"], plain["scheduling"][f"{name} wait"]
            lines.append(
                f"    {name:>15}: {cpu['p50_ms']:8.2f} ms CPU  {wait['p50_ms']:8.2f} ms waiting"
            )
    if "health_cpu" in plain:
        lines.append(
            f"  a bare health request  p50 {plain['health_cpu']['p50_ms']:8.2f} ms  "
            "service CPU (GET /v1/health: the floor of any request)"
        )
    lines.append(
        f"  the check alone, CPU   p50 {plain['check_alone_cpu']['p50_ms']:8.2f} ms  "
        "(the same case, an Engine of this process)"
    )
    if "cpu_beyond_check" in plain:
        beyond = plain["cpu_beyond_check"]
        lines.append(
            f"  CPU beyond the check   p50 {beyond['p50_ms']:8.2f} ms  "
            f"p95 {beyond['p95_ms']:8.2f} ms  (service + worker, minus the check alone)"
        )
    lines.append("streaming: time to the first sentence")
    for row in report["streaming"]:
        direct, proxy = row["direct"]["p50_ms"], row["proxy"]["p50_ms"]
        lines.append(
            f"  chunks every {row['chunk_delay_ms']:4.0f} ms  directly p50 {direct:8.2f} ms  "
            f"through the proxy p50 {proxy:8.2f} ms  (added {proxy - direct:.2f} ms)"
        )
    return "\n".join(lines)
