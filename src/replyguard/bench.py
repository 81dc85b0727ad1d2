"""`replyguard bench latency`: the typical case of DESIGN §9, measured.

A synthetic (generated, clearly labelled) KB of N people x 6 attributes, a 20-turn dialogue and
~60-word replies with ~4 claims each (some right, some wrong, some about unknown people). Each KB
size runs in its own process so that its peak memory is its own. Numbers are printed, never
asserted.
"""

from __future__ import annotations

import json
import random
import resource
import statistics
import subprocess
import sys
import time
from datetime import datetime

from replyguard.models import DialogueState, Entity, KnowledgeBase, Turn

FIRST = [
    "John",
    "Sarah",
    "Mike",
    "Emma",
    "David",
    "Olivia",
    "James",
    "Sophia",
    "Robert",
    "Mia",
    "William",
    "Ava",
    "Daniel",
    "Grace",
    "Thomas",
    "Chloe",
    "Henry",
    "Lucy",
    "Peter",
    "Anna",
]
LAST = [
    "Smith",
    "Johnson",
    "Brown",
    "Taylor",
    "Wilson",
    "Davies",
    "Evans",
    "Thomas",
    "Roberts",
    "Walker",
    "Wright",
    "Hughes",
    "Green",
    "Hall",
    "Wood",
    "Clarke",
    "Lewis",
    "Harris",
    "Young",
    "King",
    "Scott",
    "Baker",
    "Turner",
    "Hill",
    "Moore",
]
DEPARTMENTS = [
    "Engineering",
    "Marketing",
    "Sales",
    "Finance",
    "Legal",
    "Operations",
    "Support",
    "Research",
    "Design",
    "Security",
]
TITLES = ["Analyst", "Engineer", "Manager", "Director", "Designer", "Consultant", "Specialist"]
CITIES = ["Boston", "Denver", "Austin", "Seattle", "Chicago", "Portland", "Atlanta", "Phoenix"]
REFERENCE = datetime(2026, 11, 30, 9, 0)


def synthetic_kb(size: int, seed: int = 7) -> KnowledgeBase:
    rng = random.Random(seed)
    entities = []
    for i in range(size):
        first, last = FIRST[i % len(FIRST)], LAST[(i // len(FIRST)) % len(LAST)]
        suffix = "" if i < len(FIRST) * len(LAST) else f" {i // (len(FIRST) * len(LAST))}"
        name = f"{first} {last}{suffix}"
        handle = f"{first.lower()}.{last.lower()}{i}"
        entities.append(
            Entity(
                id=f"E{i}",
                name=name,
                type="Person",
                aliases=[] if suffix else [first],
                gender="Feminine" if FIRST.index(first) % 2 else "Masculine",
                attributes={
                    "email": f"{handle}@company.com",
                    "phone": f"+1 555 {rng.randint(100, 999)} {rng.randint(1000, 9999)}",
                    "department": rng.choice(DEPARTMENTS),
                    "title": rng.choice(TITLES),
                    "location": rng.choice(CITIES),
                    "join_date": rng.randint(2005, 2025),
                },
            )
        )
    schema = {
        "email": {"value_type": "email", "cues": ["email", "email address"]},
        "phone": {"value_type": "phone", "cues": ["phone", "phone number"]},
        "department": {"value_type": "enum", "cues": ["works in", "department"]},
        "title": {"value_type": "enum", "cues": ["title", "works as"]},
        "location": {"value_type": "enum", "cues": ["based in", "located in"]},
        "join_date": {"value_type": "year", "cues": ["joined", "started"]},
    }
    return KnowledgeBase.model_validate(
        {"entities": [e.model_dump() for e in entities], "schema": schema}
    )


def synthetic_case(
    kb: KnowledgeBase, rng: random.Random, *, turns: int = 20, repeat: int = 1
) -> tuple[str, str, DialogueState]:
    """A ~50-word reply with ~5 claims (repeated `repeat` times, about other people) about a
    person a `turns`-turn dialogue has discussed."""
    person = rng.choice(kb.entities[: min(len(kb.entities), 500)])
    other = rng.choice(kb.entities[: min(len(kb.entities), 500)])
    attrs = person.attributes
    wrong = rng.random() < 0.5
    dept = rng.choice(DEPARTMENTS) if wrong else attrs["department"]
    year = int(attrs["join_date"]) + (rng.randint(1, 3) if wrong else 0)
    she, her = ("she", "her") if person.gender == "Feminine" else ("he", "his")
    history = []
    topics = ["the quarterly budget", "the team offsite", "the hiring plan", "the new office"]
    for t in range(turns):
        if t % 2 == 0:
            subject = person if t % 4 == 0 else other
            text = (
                f"Can you remind me what {subject.name.split()[0]} said about "
                f"{rng.choice(topics)} last week?"
            )
            history.append(Turn(id=f"T{t + 1}", speaker="user", text=text))
        else:
            history.append(
                Turn(
                    id=f"T{t + 1}",
                    speaker="assistant",
                    text=f"They mentioned {rng.choice(topics)} and asked for an update "
                    f"before Friday.",
                )
            )
    query = f"What do we know about {person.name}?"
    parts = [_reply(person, other, dept, year, she, her)]
    for _ in range(repeat - 1):
        extra = rng.choice(kb.entities[: min(len(kb.entities), 500)])
        pronouns = ("she", "her") if extra.gender == "Feminine" else ("he", "his")
        parts.append(
            _reply(
                extra,
                person,
                extra.attributes["department"],
                int(extra.attributes["join_date"]),
                *pronouns,
            )
        )
    return " ".join(parts), query, DialogueState(turns=history)


def _reply(person: Entity, other: Entity, dept: object, year: int, she: str, her: str) -> str:
    attrs = person.attributes
    return (
        f"{person.name}'s email is {attrs['email']} and {she} works in the {dept} "
        f"department. {she.capitalize()} joined the company in {year} and is based in "
        f"{attrs['location']}. According to the directory, {her} title is {attrs['title']}, "
        f"and {she} often works with {other.name} on the quarterly budget and the hiring "
        f"plan for next year."
    )


def measure(size: int, replies: int, seed: int = 11) -> dict[str, object]:
    from replyguard.engine import Engine

    kb = synthetic_kb(size)
    started = time.perf_counter()
    engine = Engine(kb)
    build = time.perf_counter() - started
    rng = random.Random(seed)
    cases = [synthetic_case(kb, rng) for _ in range(replies)]
    engine.postprocess(*cases[0][:2], cases[0][2], reference_time=REFERENCE)  # warm the caches
    totals = []
    stages: dict[str, list[float]] = {}
    words = []
    claims = []
    for reply, query, dialogue in cases:
        t0 = time.perf_counter()
        result = engine.postprocess(reply, query, dialogue, reference_time=REFERENCE)
        totals.append((time.perf_counter() - t0) * 1000)
        for stage, ms in result.timings_ms.items():
            stages.setdefault(stage, []).append(ms)
        words.append(len(reply.split()))
        claims.append(len(result.factual_validation.claims))
    totals.sort()
    return {
        "entities": size,
        "kb_atoms": engine.kb_atoms,
        "build_seconds": round(build, 3),
        "replies": replies,
        "words_per_reply": round(statistics.mean(words), 1),
        "claims_per_reply": round(statistics.mean(claims), 2),
        "p50_ms": round(statistics.median(totals), 2),
        "p95_ms": round(totals[int(0.95 * (len(totals) - 1))], 2),
        "replies_per_second": round(1000 / statistics.mean(totals), 1),
        "stage_p50_ms": {k: round(statistics.median(v), 2) for k, v in stages.items()},
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def measure_scaling(size: int, replies: int, seed: int = 13) -> list[dict[str, object]]:
    """p50/p95 as the reply and the dialogue grow, at one KB size (one engine)."""
    from replyguard.engine import Engine

    kb = synthetic_kb(size)
    engine = Engine(kb)
    rows = []
    for turns, repeat in ((20, 1), (20, 2), (20, 4), (5, 1), (80, 1), (200, 1)):
        rng = random.Random(seed)
        cases = [synthetic_case(kb, rng, turns=turns, repeat=repeat) for _ in range(replies)]
        engine.postprocess(cases[0][0], cases[0][1], cases[0][2], reference_time=REFERENCE)
        times = []
        for reply, query, dialogue in cases:
            t0 = time.perf_counter()
            engine.postprocess(reply, query, dialogue, reference_time=REFERENCE)
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()
        rows.append(
            {
                "turns": turns,
                "words_per_reply": len(cases[0][0].split()),
                "p50_ms": round(statistics.median(times), 2),
                "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
            }
        )
    return rows


def run_latency(sizes: list[int], replies: int) -> list[dict[str, object]]:
    """Each size in a fresh interpreter, so peak memory is per size."""
    results = []
    for size in sizes:
        out = subprocess.run(
            [sys.executable, "-m", "replyguard.bench", str(size), str(replies)],
            capture_output=True,
            text=True,
            check=False,
        )
        if out.returncode != 0:
            raise RuntimeError(
                f"benchmark at {size} entities failed: "
                f"{out.stderr.strip().splitlines()[-1] if out.stderr else ''}"
            )
        results.append(json.loads(out.stdout))
    return results


def format_table(results: list[dict[str, object]]) -> str:
    header = (
        f"{'entities':>9} {'KB atoms':>9} {'build s':>8} {'p50 ms':>7} {'p95 ms':>7} "
        f"{'reply/s':>8} {'peak MB':>8}  stage p50 (ms)"
    )
    lines = [header]
    for r in results:
        stage = ", ".join(
            f"{k} {v}"
            for k, v in r["stage_p50_ms"].items()  # type: ignore[union-attr]
            if k != "total"
        )
        lines.append(
            f"{r['entities']:>9} {r['kb_atoms']:>9} {r['build_seconds']:>8} "
            f"{r['p50_ms']:>7} {r['p95_ms']:>7} {r['replies_per_second']:>8} "
            f"{r['peak_rss_mb']:>8}  {stage}"
        )
    first = results[0]
    lines.append(
        f"(synthetic typical case: {first['words_per_reply']} words and "
        f"{first['claims_per_reply']} claims per reply, 20-turn dialogue, "
        f"{first['replies']} replies per size)"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    print(json.dumps(measure(int(sys.argv[1]), int(sys.argv[2]))))
