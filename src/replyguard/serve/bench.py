"""`replyguard bench serve`: the service's throughput and latency on the typical case.

The typical case of `replyguard bench latency` (a synthetic, clearly labelled KB, a 20-turn
dialogue, ~60-word replies with ~5 claims), sent to POST /v1/check of a service running in a
process of its own on a loopback port (real HTTP, real worker processes), at each concurrency
with each number of workers. The service's added latency is, per request, the time the client waited
minus the check's own time (its `timings_ms.total`, measured inside the worker): HTTP, JSON,
validation and the hand-off to the worker process. Numbers are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from replyguard.errors import ReplyguardError


def add_parser(bench_sub: argparse._SubParsersAction) -> None:
    p = bench_sub.add_parser("serve", help="the HTTP service's throughput and latency")
    p.add_argument("--size", type=int, default=1000, help="KB size in entities")
    p.add_argument("--requests", type=int, default=100, help="requests per point")
    p.add_argument("--concurrency", default="1,8,32", help="comma-separated (default %(default)s)")
    p.add_argument("--workers", default="1,2", help="comma-separated (default %(default)s)")
    p.add_argument("--json", metavar="FILE", help="also write the numbers as JSON")


def _numbers(text: str, flag: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ReplyguardError(f"{flag}: expected numbers, got {text!r}") from None
    if not values or min(values) < 1:
        raise ReplyguardError(f"{flag}: expected positive numbers")
    return values


def run(args: argparse.Namespace) -> int:
    concurrency = _numbers(args.concurrency, "--concurrency")
    workers = _numbers(args.workers, "--workers")
    if args.size < 1 or args.requests < 1:
        raise ReplyguardError("--size and --requests must be positive")
    rows = measure(args.size, args.requests, workers, concurrency)
    print(format_table(rows, args.size, args.requests))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2), encoding="utf-8")
    return 0


def typical_cases(size: int, count: int, seed: int = 11) -> tuple[dict[str, Any], list[dict]]:
    from replyguard.bench import REFERENCE, synthetic_case, synthetic_kb

    kb = synthetic_kb(size)
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        reply, query, dialogue = synthetic_case(kb, rng)
        cases.append(
            {
                "query": query,
                "response": reply,
                "dialogue": json.loads(dialogue.model_dump_json(exclude_none=True)),
                "reference_time": REFERENCE.isoformat(),
            }
        )
    return json.loads(kb.model_dump_json(by_alias=True)), cases


def measure(
    size: int, requests: int, workers: list[int], concurrency: list[int]
) -> list[dict[str, Any]]:
    from replyguard.serve.config import ServeConfig
    from replyguard.serve.local import serving_apart

    kb, cases = typical_cases(size, requests)
    rows = []
    with tempfile.TemporaryDirectory(prefix="replyguard-bench-") as folder:
        kb_path = Path(folder) / "kb.json"
        kb_path.write_text(json.dumps(kb), encoding="utf-8")
        for n in workers:
            config = ServeConfig(
                kb=str(kb_path),
                workers=n,
                max_pending=max(concurrency) * 2,
                session_store=str(Path(folder) / "sessions.sqlite3"),
            )
            with serving_apart(config) as url:
                _send(url, cases[: min(len(cases), 2 * n)], 1)  # warm each worker
                http = _round_trips(url, requests)
                for c in concurrency:
                    point = _send(url, cases, c)
                    rows.append({"workers": n, "concurrency": c, **point, "http_p50_ms": http})
    return rows


def _send(url: str, cases: list[dict], concurrency: int) -> dict[str, Any]:
    """Every case sent by `concurrency` threads, each with its own blocking client (an asyncio
    client costs the measurement itself a few ms per request on a busy machine)."""
    import httpx

    waited: list[float] = []
    added: list[float] = []  # over the check's stages (its timings_ms.total)
    beyond: list[float] = []  # over the whole call in the worker (Server-Timing: worker)
    local = threading.local()

    def one(case: dict) -> None:
        if not hasattr(local, "client"):
            local.client = httpx.Client(base_url=url, timeout=600)
            clients.append(local.client)
        t0 = time.perf_counter()
        response = local.client.post("/v1/check", json=case)
        ms = (time.perf_counter() - t0) * 1000
        response.raise_for_status()
        waited.append(ms)
        added.append(ms - response.json()["result"]["timings_ms"]["total"])
        beyond.append(ms - server_timing(response.headers["server-timing"])["worker"])

    clients: list[httpx.Client] = []
    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as threads:
        list(threads.map(one, cases))
    wall = time.perf_counter() - started
    for client in clients:
        client.close()
    waited.sort()
    added.sort()
    beyond.sort()
    return {
        "requests": len(cases),
        "per_second": round(len(cases) / wall, 1),
        "p50_ms": round(statistics.median(waited), 2),
        "p95_ms": round(waited[int(0.95 * (len(waited) - 1))], 2),
        "added_p50_ms": round(statistics.median(added), 2),
        "added_p95_ms": round(added[int(0.95 * (len(added) - 1))], 2),
        "beyond_worker_p50_ms": round(statistics.median(beyond), 2),
    }


def server_timing(header: str) -> dict[str, float]:
    """A Server-Timing header (`check;dur=51.2, worker;dur=52.0`) as {name: milliseconds}."""
    parts = (entry.strip().split(";dur=") for entry in header.split(","))
    return {name: float(ms) for name, ms in parts}


def _round_trips(url: str, count: int) -> float:
    """p50 of GET /v1/health, one at a time: the HTTP stack alone, no check, no worker."""
    import httpx

    times = []
    with httpx.Client(base_url=url) as client:
        for _ in range(count):
            t0 = time.perf_counter()
            client.get("/v1/health").raise_for_status()
            times.append((time.perf_counter() - t0) * 1000)
    return round(statistics.median(times), 2)


def format_table(rows: list[dict[str, Any]], size: int, requests: int) -> str:
    lines = [
        f"{'workers':>7} {'conc':>5} {'req/s':>7} {'p50 ms':>8} {'p95 ms':>8} "
        f"{'added p50':>10} {'added p95':>10} {'beyond p50':>11} {'http p50':>9}"
    ]
    for r in rows:
        lines.append(
            f"{r['workers']:>7} {r['concurrency']:>5} {r['per_second']:>7} {r['p50_ms']:>8} "
            f"{r['p95_ms']:>8} {r['added_p50_ms']:>10} {r['added_p95_ms']:>10} "
            f"{r['beyond_worker_p50_ms']:>11} {r['http_p50_ms']:>9}"
        )
    lines.append(
        f"(POST /v1/check over loopback HTTP; synthetic typical case, {size} entities, "
        f"{requests} requests per row; added = client's wait minus the check's stages "
        "(timings_ms.total); beyond = client's wait minus the whole call in the worker "
        "(validation and result included); http = GET /v1/health, the HTTP stack alone)"
    )
    return "\n".join(lines)
