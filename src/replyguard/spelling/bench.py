"""The spelling benchmark: ``python -m replyguard.spelling.bench [--data PATH] [--json OUT]``.

Every measure of the corrector beside its baselines, in one run:

* candidate generators over the same 82k words: build time, ms per query, recall of the target;
* Aspell and Norvig word lists: top-1 / top-3 accuracy (ours, symspellpy, pyspellchecker,
  hunspell);
* Holbrook tagged sentences: detection precision / recall and correction accuracy in context;
* JFLEG dev: GLEU against the four references and the share of sentences changed;
* KVRET dev gold assistant turns: corrections made, split into damage (a change to a KB value or
  name) and the rest, with every tier-3 rejection counted;
* latency: construction and ``correct()`` per call.

The data path defaults to ``../shared/data`` (the repository's sibling, see its README).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from replyguard.spelling import baselines
from replyguard.spelling.benchdata import (
    KBTurn,
    Misspelling,
    TaggedLine,
    read_holbrook,
    read_jfleg,
    read_kvret,
    read_norvig,
    read_word_list,
)
from replyguard.spelling.corrector import SpellingCorrector
from replyguard.spelling.edits import TextEdit, apply_edits
from replyguard.spelling.gleu import corpus_gleu
from replyguard.spelling.lexicon import english

Correct = Callable[[str], list[TextEdit]]


def _timed(function: Callable[[], object]) -> tuple[object, float]:
    start = time.perf_counter()
    result = function()
    return result, time.perf_counter() - start


def _optional(name: str, build: Callable[[], object], notes: list[str]) -> object | None:
    try:
        return build()
    except Exception as error:  # an optional baseline: missing package or dictionary
        notes.append(f"{name} skipped: {type(error).__name__}: {error}")
        return None


# --- word lists ------------------------------------------------------------------------------
def word_list_accuracy(pairs: Sequence[Misspelling], suggest: baselines.Suggest) -> dict:
    top1 = top3 = 0
    start = time.perf_counter()
    for pair in pairs:
        found = [s.lower() for s in suggest(pair.typed)]
        target = pair.target.lower()
        top1 += bool(found) and found[0] == target
        top3 += target in found[:3]
    elapsed = time.perf_counter() - start
    n = len(pairs)
    return {"top1": top1 / n, "top3": top3 / n, "ms_per_word": 1000 * elapsed / n}


def generators(pairs: Sequence[Misspelling], notes: list[str]) -> dict[str, dict]:
    """Build time, query time and target recall of each candidate generator, same 82k words."""
    from replyguard.spelling.candidates import DeleteIndex

    words = english().written
    queries = sorted({p.typed.lower() for p in pairs if " " not in p.typed})
    targets: dict[str, set[str]] = {}
    for p in pairs:
        targets.setdefault(p.typed.lower(), set()).add(p.target.lower())
    builders: dict[str, Callable[[], Callable[[str], set[str]]]] = {
        "replyguard DeleteIndex": lambda: DeleteIndex(words).lookup,
        "symspellpy": lambda: baselines.symspell_generator(words),
        "rapidfuzz (length buckets)": lambda: baselines.rapidfuzz_generator(words),
        "liblevenshtein (Python trie)": lambda: baselines.liblevenshtein_generator(words),
    }
    results = {}
    for name, build in builders.items():
        built = _optional(name, lambda build=build: _timed(build), notes)
        if built is None:
            continue
        lookup, build_seconds = built  # type: ignore[misc]
        found, query_seconds = _timed(lambda lookup=lookup: [lookup(q) for q in queries])
        hits = sum(bool(targets[q] & f) for q, f in zip(queries, found, strict=True))  # type: ignore[call-overload]
        results[name] = {
            "build_s": build_seconds,
            "ms_per_query": 1000 * query_seconds / len(queries),
            "target_recall": hits / len(queries),
        }
    return results


# --- running text ----------------------------------------------------------------------------
def _spelling_edits(edits: Sequence[TextEdit]) -> list[TextEdit]:
    """Edits that change a word's spelling (not only its case; no inserted punctuation)."""
    return [
        e
        for e in edits
        if e.start < e.end and e.original.strip().lower() != e.replacement.strip().lower()
    ]


def holbrook(lines: Sequence[TaggedLine], correct: Correct, known: Callable[[str], bool]) -> dict:
    flagged = true_flags = 0
    errors = detected = corrected = 0
    by_kind: Counter[str] = Counter()
    for line in lines:
        edits = _spelling_edits(correct(line.text))
        flagged += len(edits)
        true_flags += sum(
            any(e.start < g.end and g.start < e.end for g in line.errors) for e in edits
        )
        for gold in line.errors:
            if gold.target == "?":
                continue
            kind = "real-word" if all(known(w) for w in gold.typed.split()) else "non-word"
            errors += 1
            by_kind[kind + " errors"] += 1
            touching = [e for e in edits if e.start < gold.end and gold.start < e.end]
            if not touching:
                continue
            detected += 1
            by_kind[kind + " detected"] += 1
            shift = sum(len(e.replacement) - (e.end - e.start) for e in touching)
            start = min(gold.start, *(e.start for e in touching))
            end = max(gold.end, *(e.end for e in touching))
            fixed = apply_edits(line.text, touching)[start : end + shift].strip()
            if fixed.lower() == gold.target.lower():
                corrected += 1
                by_kind[kind + " corrected"] += 1
    return {
        "detection_precision": true_flags / flagged if flagged else 0.0,
        "detection_recall": detected / errors,
        "correction_accuracy": corrected / errors,
        "flagged": flagged,
        "errors": errors,
        "recall_non_word": by_kind["non-word detected"] / max(1, by_kind["non-word errors"]),
        "recall_real_word": by_kind["real-word detected"] / max(1, by_kind["real-word errors"]),
        "non_word_errors": by_kind["non-word errors"],
        "real_word_errors": by_kind["real-word errors"],
    }


def jfleg(sources: Sequence[str], references: Sequence[Sequence[str]], correct: Correct) -> dict:
    outputs = [apply_edits(s, correct(s)) for s in sources]
    changed = sum(o.split() != s.split() for o, s in zip(outputs, sources, strict=True))
    return {"gleu": corpus_gleu(sources, outputs, references), "changed": changed / len(sources)}


def kvret(turns: Sequence[KBTurn], with_kb: bool = True) -> tuple[dict, list[dict]]:
    """Corrections on gold turns; ``with_kb=False`` withholds the KB words from the corrector
    (tier 3 then knows only typed values), which shows what the KB protection prevents."""
    correctors: dict[tuple[str, ...], SpellingCorrector] = {}
    counts: Counter[str] = Counter()
    examples = []
    latencies = []
    for turn in turns:
        known = turn.kb_terms if with_kb else ()
        corrector = correctors.get(known)
        if corrector is None:
            corrector = correctors[known] = SpellingCorrector(extra_words=known)
        start = time.perf_counter()
        edits, rejections = corrector.correct_with_log(turn.utterance)
        latencies.append(time.perf_counter() - start)
        kb_spans = _kb_spans(turn.utterance, turn.kb_terms)
        counts["rejections"] += len(rejections)
        for edit in edits:
            damage = any(edit.start < end and start < edit.end for start, end in kb_spans)
            counts["damage" if damage else edit.tier] += 1
            examples.append(
                {
                    "text": turn.utterance,
                    "tier": edit.tier,
                    "rule": edit.rule,
                    "original": edit.original,
                    "replacement": edit.replacement,
                    "damage": damage,
                }
            )
    summary = {
        "turns": len(turns),
        "edits": sum(v for k, v in counts.items() if k != "rejections"),
        **counts,
        "latency_ms": _latency(latencies),
    }
    return summary, examples


def _kb_spans(text: str, terms: Sequence[str]) -> list[tuple[int, int]]:
    spans = []
    for term in terms:
        pattern = r"(?<!\w)" + re.escape(term) + r"(?!\w)"
        spans += [m.span() for m in re.finditer(pattern, text, re.IGNORECASE)]
    return spans


def _latency(seconds: Sequence[float]) -> dict:
    ordered = sorted(seconds)
    return {
        "p50": 1000 * statistics.median(ordered),
        "p95": 1000 * ordered[int(0.95 * (len(ordered) - 1))],
        "mean": 1000 * statistics.fmean(ordered),
    }


# --- the report ------------------------------------------------------------------------------
def run(data: Path) -> dict:
    notes: list[str] = []
    spelling = data / "spelling"
    aspell = read_word_list(spelling / "aspell.dat")
    norvig = read_norvig(spelling / "spell-testset1.txt")
    lines = read_holbrook(spelling / "holbrook-tagged.dat")
    sources, references = read_jfleg(data / "jfleg" / "dev")
    turns = read_kvret(data / "kvret" / "kvret_dev_public.json")

    ours, build_seconds = _timed(SpellingCorrector)
    assert isinstance(ours, SpellingCorrector)
    _, second_build = _timed(lambda: SpellingCorrector(extra_words=["John Smith", "Engineering"]))
    systems: dict[str, tuple[baselines.Suggest, Callable[[str], bool]]] = {
        "replyguard": (ours.suggest, lambda w: ours.vocabulary.known(w.lower())),
    }
    for name, build in (
        ("symspellpy lookup", baselines.symspell),
        ("pyspellchecker", baselines.pyspellchecker),
        ("hunspell", baselines.hunspell),
    ):
        system = _optional(name, build, notes)
        if system is not None:
            systems[name] = system  # type: ignore[assignment]

    report: dict = {
        "datasets": {
            "aspell": len(aspell),
            "norvig": len(norvig),
            "holbrook_lines": len(lines),
            "holbrook_errors": sum(len(x.errors) for x in lines),
            "jfleg_dev": len(sources),
            "kvret_assistant_turns": len(turns),
        },
        "construction_s": {"first": build_seconds, "next": second_build},
    }
    report["word_lists"] = {
        name: {
            "aspell": word_list_accuracy(aspell, suggest),
            "norvig": word_list_accuracy(norvig, suggest),
        }
        for name, (suggest, _) in systems.items()
    }
    report["generators"] = generators(aspell + norvig, notes)

    known = systems["replyguard"][1]
    in_context: dict[str, Correct] = {"replyguard": ours.correct}
    if "symspellpy lookup" in systems:
        suggest, is_known = systems["symspellpy lookup"]
        in_context["symspellpy word by word"] = lambda text, s=suggest, k=is_known: (
            baselines.word_by_word(text, s, k)
        )
    report["holbrook"] = {
        name: holbrook(lines, correct, known) for name, correct in in_context.items()
    }
    jfleg_systems: dict[str, Correct] = {"source (unedited)": lambda text: [], **in_context}
    report["jfleg"] = {
        name: jfleg(sources, references, correct) for name, correct in jfleg_systems.items()
    }
    spellchecked = (data / "jfleg" / "dev" / "dev.spellchecked.src").read_text().splitlines()
    report["jfleg"]["JFLEG's own spell-checked source"] = {
        "gleu": corpus_gleu(sources, spellchecked, references),
        "changed": sum(a.split() != b.split() for a, b in zip(sources, spellchecked, strict=True))
        / len(sources),
    }

    report["kvret"], report["kvret_edits"] = kvret(turns)
    report["kvret_without_kb"] = kvret(turns, with_kb=False)[0]
    latencies = []
    for source in sources:
        start = time.perf_counter()
        ours.correct(source)
        latencies.append(time.perf_counter() - start)
    words = statistics.fmean(len(s.split()) for s in sources)
    report["latency_jfleg_ms"] = {**_latency(latencies), "words_per_sentence": words}
    report["notes"] = notes
    return report


def render(report: dict, wall: float) -> str:
    out = []
    sizes = report["datasets"]
    out.append("Datasets: " + ", ".join(f"{k} {v}" for k, v in sizes.items()))
    c = report["construction_s"]
    out.append(
        f"Construction: first {c['first']:.2f} s (lexicon and indexes), "
        f"next {1000 * c['next']:.0f} ms (per KB)"
    )
    out.append("")
    out.append("Isolated words            Aspell top-1  top-3   Norvig top-1  top-3   ms/word")
    for name, r in report["word_lists"].items():
        a, n = r["aspell"], r["norvig"]
        ms = (a["ms_per_word"] * sizes["aspell"] + n["ms_per_word"] * sizes["norvig"]) / (
            sizes["aspell"] + sizes["norvig"]
        )
        out.append(
            f"  {name:<24}{a['top1']:>10.3f}{a['top3']:>7.3f}{n['top1']:>14.3f}"
            f"{n['top3']:>7.3f}{ms:>10.2f}"
        )
    out.append("")
    out.append("Candidate generators (82,765 words, edit distance 2)  build s  ms/query  recall")
    for name, r in report["generators"].items():
        out.append(
            f"  {name:<52}{r['build_s']:>7.2f}{r['ms_per_query']:>10.3f}{r['target_recall']:>8.3f}"
        )
    out.append("")
    out.append("Holbrook in context       precision  recall  corrected  recall non-/real-word")
    for name, r in report["holbrook"].items():
        out.append(
            f"  {name:<24}{r['detection_precision']:>10.3f}{r['detection_recall']:>8.3f}"
            f"{r['correction_accuracy']:>11.3f}   {r['recall_non_word']:.3f} / "
            f"{r['recall_real_word']:.3f}"
        )
    first = next(iter(report["holbrook"].values()))
    out.append(
        f"  ({first['errors']} errors with a known target: {first['non_word_errors']} "
        f"non-word, {first['real_word_errors']} real-word)"
    )
    out.append("")
    out.append("JFLEG dev                              GLEU  changed")
    for name, r in report["jfleg"].items():
        out.append(f"  {name:<35}{r['gleu']:>7.2f}{100 * r['changed']:>8.1f}%")
    out.append("")
    k = report["kvret"]
    tiers = ", ".join(f"{t} {k.get(t, 0)}" for t in ("lexical", "syntactic", "semantic"))
    out.append(
        f"KVRET dev gold turns: {k['turns']} turns, {k['edits']} corrections ({tiers}), "
        f"KB damage {k.get('damage', 0)}, tier-3 rejections logged {k.get('rejections', 0)}"
    )
    bare = report["kvret_without_kb"]
    out.append(
        f"  the same turns with the KB words withheld: {bare['edits']} corrections, "
        f"KB damage {bare.get('damage', 0)}"
    )
    lexical = [e for e in report["kvret_edits"] if e["tier"] != "syntactic"]
    for e in lexical:
        out.append(
            f"  {e['tier']}: {e['original']!r} -> {e['replacement']!r}"
            f"{'  DAMAGE' if e['damage'] else ''}"
        )
    rules = Counter(e["rule"] for e in report["kvret_edits"] if e["tier"] == "syntactic")
    out.append("  syntactic by rule: " + ", ".join(f"{r} {n}" for r, n in rules.most_common()))
    out.append("")
    lk, lj = report["kvret"]["latency_ms"], report["latency_jfleg_ms"]
    out.append(
        f"correct() latency: KVRET turns p50 {lk['p50']:.2f} ms, p95 {lk['p95']:.2f} ms; "
        f"JFLEG sentences ({lj['words_per_sentence']:.0f} words) p50 {lj['p50']:.2f} ms, "
        f"p95 {lj['p95']:.2f} ms"
    )
    for note in report["notes"]:
        out.append(f"Note: {note}")
    out.append(f"Benchmark wall time: {wall:.0f} s")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--json", type=Path, help="write every number (and the KVRET edits) here")
    args = parser.parse_args(argv)
    if not (args.data / "spelling" / "aspell.dat").is_file():
        print(f"{args.data}: no spelling/aspell.dat (pass --data PATH)", file=sys.stderr)
        return 2
    report, wall = _timed(lambda: run(args.data))
    print(render(report, wall))  # type: ignore[arg-type]
    if args.json:
        args.json.write_text(json.dumps({**report, "wall_s": wall}, indent=2))  # type: ignore[dict-item]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
