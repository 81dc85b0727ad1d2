"""`replyguard eval cases FILE.jsonl ...`: a user's own labelled cases, checked and scored.

Each line of a file is a case (docs/case-format.md) plus ``id``, ``metadata`` and ``expect``
(`replyguard.evaluation.expect`). Every line is read and its labels validated before anything is
checked, so a typo costs one line of output, not a run. The score of a case is what its
``expect`` asks for: the recommendation among the acceptable ones, each expected contradiction
found (a contradicted claim or a contradiction flag over the value) and corrected to the right
value in the delivered text, each required flag raised and no forbidden one. Accuracy is a
result, not an error: the command exits 0 whenever it ran.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from replyguard.errors import InputError, ReplyguardError, read_input_file
from replyguard.evaluation.expect import BANDS, Expect, read_expect
from replyguard.evaluation.signals import CONTRADICTION_FLAGS, corrected_region, fires_at
from replyguard.values import grade, infer_value_type

if TYPE_CHECKING:
    from replyguard.models import Case, PostprocessedResponse

_STATUSES = frozenset({"Contradicted"})
_ABBREVIATIONS = {
    "Accept": "Accept",
    "AcceptWithFlags": "AccFlags",
    "CorrectAndDeliver": "Correct",
    "Regenerate": "Regen",
    "HumanReview": "Human",
}


@dataclass
class LabelledCase:
    """One line of a cases file: where it came from, its labels and the case the engine sees."""

    file: str
    line: int
    case_id: str
    metadata: dict
    expect: Expect
    case: Case


@dataclass
class Scored:
    """One case's result against its labels; ``problems`` is empty when it met them all."""

    item: LabelledCase
    recommendation: str | None = None
    verdict_ok: bool | None = None
    found: list[bool] = field(default_factory=list)
    corrected: list[bool | None] = field(default_factory=list)
    raised: list[bool] = field(default_factory=list)
    fired: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    result: PostprocessedResponse | None = None
    error: str | None = None


# --------------------------------------------------------------------------- reading


def load_labelled(path: str | Path, kb: str | None = None) -> list[LabelledCase]:
    """Every case of a JSONL file with its labels; ``kb`` (a KB file) replaces each line's KB.

    Blank lines are skipped; any other problem is an `InputError` naming the file and line.
    """
    from replyguard.batch import _json_object as json_object
    from replyguard.cases import parse_case

    p = Path(path)
    text = read_input_file(p, "cases file")
    out: list[LabelledCase] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        origin = f"{p}: line {number}"
        try:
            document = json_object(raw.encode("utf-8"))
        except InputError as exc:
            raise InputError(f"{origin}: {exc}") from None
        if kb is not None:
            document["kb"] = str(Path(kb).resolve())
        case = parse_case(document, origin, p.parent)
        expect = read_expect(case, origin)
        case_id = case.id or f"{p.stem}:{number}"
        if case_id in seen:
            raise InputError(f"{origin}: id: {case_id!r} already used on line {seen[case_id]}")
        seen[case_id] = number
        out.append(LabelledCase(str(p), number, case_id, case.metadata or {}, expect, case))
    if not out:
        raise InputError(f"{p}: no cases")
    return out


# --------------------------------------------------------------------------- checking


def check_all(
    items: list[LabelledCase], rules_dir: str | None, reference_time: datetime
) -> list[Scored]:
    """Check every case (one engine, moved from KB to KB) and score it against its labels.

    A case without a reference time gets ``reference_time``, so "tomorrow" means the same day
    in every case of a run. An engine failure on a case is recorded and the run goes on.
    """
    from replyguard.engine import Engine

    engine: Engine | None = None
    current = None
    order = sorted(range(len(items)), key=lambda i: _kb_key(items[i].case))
    scored: dict[int, Scored] = {}
    for i in order:
        item = items[i]
        if item.case.reference_time is None:
            item.case.reference_time = reference_time
        key = _kb_key(item.case)
        # A rules directory or KB the engine refuses is the user's to fix: its error ends the run.
        if engine is None:
            engine = Engine(item.case.kb, rules_dir=rules_dir)
        elif key != current:
            engine.replace_kb(item.case.kb)
        current = key
        try:
            scored[i] = score(item, engine.check_case(item.case))
        except ReplyguardError as exc:
            raise InputError(f"{item.file}: line {item.line}: {exc}") from None
        except Exception as exc:  # an engine failure on one case is data for the report
            scored[i] = Scored(item, error=f"{type(exc).__name__}: {exc}")
            scored[i].problems.append(f"engine error: {scored[i].error}")
    return [scored[i] for i in range(len(items))]


def _kb_key(case: Case) -> str:
    kb = case.kb
    return kb if isinstance(kb, str) else kb.model_dump_json()


def score(item: LabelledCase, result: PostprocessedResponse) -> Scored:
    """How ``result`` measures up to the case's ``expect``, with a line per unmet label."""
    expect = item.expect
    response = item.case.response
    got = str(result.recommendation.kind)
    out = Scored(item, recommendation=got, result=result)
    if expect.recommendation:
        out.verdict_ok = got in expect.recommendation
        if not out.verdict_ok:
            wanted = " or ".join(expect.recommendation)
            out.problems.append(f"verdict {got}, expected {wanted}")
    text = result.corrected.corrected if result.corrected else response
    for c in expect.contradicted:
        # where the value stands alone ("band C", not the c of "Court"), else where it occurs
        alone = re.search(rf"(?<![^\W_]){re.escape(c.value)}(?![^\W_])", response, re.IGNORECASE)
        start = alone.start() if alone else response.lower().index(c.value.lower())
        end = start + len(c.value)
        found = fires_at(result, [(start, end)], _STATUSES, CONTRADICTION_FLAGS)
        out.found.append(found)
        if not found:
            out.problems.append(f"{c.value!r} not found contradicted")
        if not c.corrections:
            out.corrected.append(None)
            continue
        regions = _regions(result, response, text, start, end)
        right = any(_same_value(r, want) for r in regions for want in c.corrections)
        out.corrected.append(right)
        changed = [r for r in dict.fromkeys(regions) if r != response[start:end]]
        if found and not right:
            shown = ", ".join(repr(r) for r in changed)
            out.problems.append(
                f"{c.value!r} corrected to {shown}, expected {c.correct!r}"
                if changed
                else f"{c.value!r} not corrected, expected {c.correct!r}"
            )
    raised = {str(f.hallucination_type) for f in result.hallucination_flags}
    raised |= {str(i.issue_type) for i in result.coherence.issues}
    for name in expect.flags:
        out.raised.append(name in raised)
        if name not in raised:
            out.problems.append(f"{name} not raised")
    out.fired = [name for name in expect.no_flags if name in raised]
    out.problems += [f"{name} raised" for name in out.fired]
    return out


def _regions(
    result: PostprocessedResponse, response: str, text: str, start: int, end: int
) -> list[str]:
    """What the delivered text holds where the wrong value was: the value's own place, and the
    place of each applied correction that covers it (a correction may rewrite a wider span)."""
    spans = [(start, end)]
    for c in result.corrected.corrections if result.corrected else []:
        if c.replacement is not None and max(c.span.start, start) < min(c.span.end, end):
            spans.append((min(c.span.start, start), max(c.span.end, end)))
    return [corrected_region(response, text, s, e) for s, e in spans]


def _same_value(region: str, want: str) -> bool:
    """Whether the corrected text ``region`` states ``want``: the same typed value ("4pm" and
    "4:00 pm"), the same letters and digits, or a leading part of it not cut inside a number
    ("30 minutes" of "30 minutes before departure")."""
    from replyguard.evaluation.scene import norm

    have, full = norm(region), norm(want)
    if not have:
        return False
    kind = infer_value_type(want)
    if kind is not None and grade(kind, region, want).kind in ("Exact", "Normalised", "Compatible"):
        return True  # "4pm" is the KB's "4:00 pm", "8 December" its 2026-12-08
    return any(
        not (m.start() > 0 and full[m.start() - 1].isdigit())
        and not (m.end() < len(full) and full[m.end()].isdigit())
        for m in re.finditer(re.escape(have), full)
    )


# --------------------------------------------------------------------------- summing up


def summarise(scored: list[Scored]) -> dict:
    """The scores of a set of cases, and the confusion table (expected band → verdict)."""
    verdicts = [s.verdict_ok for s in scored if s.verdict_ok is not None]
    found = [f for s in scored for f in s.found]
    corrected = [c for s in scored for c in s.corrected if c is not None]
    raised = [r for s in scored for r in s.raised]
    confusion: dict[str, Counter] = {}
    for s in scored:
        if s.item.expect.band is not None and s.recommendation is not None:
            row = confusion.setdefault(str(s.item.expect.band), Counter())
            row[s.recommendation] += 1
    return {
        "cases": len(scored),
        "as_expected": sum(not s.problems for s in scored),
        "engine_errors": sum(s.error is not None for s in scored),
        "verdicts": _share(sum(verdicts), len(verdicts)),
        "contradictions_found": _share(sum(found), len(found)),
        "corrected_right": _share(sum(corrected), len(corrected)),
        "required_flags_raised": _share(sum(raised), len(raised)),
        "forbidden_flags_raised": sum(len(s.fired) for s in scored),
        "accepted_unchecked": sum(_accepted_unchecked(s) for s in scored),
        "confusion": {
            band: {str(k): confusion[band][str(k)] for k in BANDS if confusion[band][str(k)]}
            for band in (str(b) for b in BANDS)
            if band in confusion
        },
    }


def _accepted_unchecked(s: Scored) -> bool:
    """Accepted although no claim of the reply was read and checked against the KB."""
    result = s.result
    return (
        result is not None
        and str(result.recommendation.kind) == "Accept"
        and not result.factual_validation.claims
    )


def _share(right: int, total: int) -> dict:
    return {"right": right, "of": total, "rate": round(right / total, 4) if total else None}


def format_summary(title: str, summary: dict) -> str:
    def share(key: str) -> str:
        s = summary[key]
        rate = "n/a" if s["rate"] is None else f"{s['rate']:.3f}"
        return f"{s['right']}/{s['of']} {rate}"

    lines = [
        f"{title}: {summary['cases']} cases, {summary['as_expected']} met every label"
        + (f", {summary['engine_errors']} engine errors" if summary["engine_errors"] else ""),
        f"  verdict as expected     {share('verdicts')}",
        f"  contradictions found    {share('contradictions_found')}",
        f"  corrected right         {share('corrected_right')}",
        f"  required flags raised   {share('required_flags_raised')}",
        f"  forbidden flags raised  {summary['forbidden_flags_raised']}",
        f"  accepted, none checked  {summary['accepted_unchecked']}",
    ]
    confusion = summary["confusion"]
    if confusion:
        head = [_ABBREVIATIONS[str(b)] for b in BANDS]
        lines.append("  expected \\ got     " + " ".join(f"{h:>8}" for h in head))
        for band, row in confusion.items():
            cells = " ".join(f"{row.get(str(b), 0):>8}" for b in BANDS)
            lines.append(f"  {band:<18} {cells}")
    return "\n".join(lines)


def explanation(s: Scored) -> list[str]:
    """Why the engine gave its verdict, as `check --explain` shows it: the reason, the guidance,
    the recommendation's rule tree, and every claim and flag behind it."""
    from replyguard.report import _Style, explanation_lines

    result = s.result
    if result is None:
        return [f"engine error: {s.error}"]
    rec = result.recommendation
    lines = [f"reason: {rec.reason}"] if rec.reason else []
    if rec.guidance:
        lines.append(f"guidance: {rec.guidance}")
    if rec.explanation:
        lines += explanation_lines(rec.explanation, _Style(False), "")
    validations = {v.claim_id: v for v in result.factual_validation.claim_validations}
    for claim in result.factual_validation.claims:
        v = validations.get(claim.id)
        kb = f" (KB {v.kb_evidence.value!r})" if v and v.kb_evidence else ""
        neg = "not " if claim.negated else ""
        status = v.status.kind if v else "?"
        lines.append(
            f"claim {claim.subject} · {claim.predicate} = {neg}{claim.object!r}: {status}{kb}"
        )
    for f in result.hallucination_flags:
        lines.append(f"flag {f.hallucination_type} {f.confidence:.2f} {f.content!r}: {f.reason}")
    lines += [f"issue {i.issue_type}: {i.description}" for i in result.coherence.issues]
    if result.corrected and result.corrected.corrected != result.original:
        lines.append(f"corrected: {result.corrected.corrected}")
    return lines


def format_miss(s: Scored) -> str:
    item = s.item
    head = f"{item.case_id} ({Path(item.file).name} line {item.line}): " + "; ".join(s.problems)
    lines = [head, f"    reply: {item.case.response}"]
    if item.expect.note:
        lines.append(f"    note: {item.expect.note}")
    lines += [f"    {line}" for line in explanation(s)]
    return "\n".join(lines)


def record(s: Scored) -> dict:
    """A case's line in the JSON report: its labels, what the engine made of it, and why."""
    from replyguard.evaluation.harness import describe

    item = s.item
    return {
        "id": item.case_id,
        "file": item.file,
        "line": item.line,
        "metadata": item.metadata,
        "expect": item.expect.model_dump(mode="json", exclude_defaults=True),
        "as_expected": not s.problems,
        "problems": s.problems,
        "got": describe(s.result) if s.result is not None else {"error": s.error},
        "explanation": explanation(s),
    }


# --------------------------------------------------------------------------- the command


def command_line(args: argparse.Namespace) -> str:
    """The run as a command that reproduces it."""
    parts = ["replyguard", "eval", "cases", *args.files]
    for option, value in (
        ("--kb", args.kb),
        ("--rules", args.rules),
        ("--json", args.json),
        ("--errors", args.errors),
    ):
        if value:
            parts += [option, value]
    if args.no_misses:
        parts.append("--no-misses")
    return shlex.join(parts)


def run(args: argparse.Namespace) -> int:
    from replyguard.evaluation.harness import code_version

    if not args.files:
        raise InputError("eval cases: give one or more JSONL files of labelled cases")
    if args.kb is not None and not Path(args.kb).is_file():
        raise InputError(f"--kb {args.kb}: no such file")
    if args.rules is not None and not Path(args.rules).is_dir():
        raise InputError(f"--rules {args.rules}: no such directory")
    for option, value in (("--json", args.json), ("--errors", args.errors)):
        if value and not Path(value).resolve().parent.is_dir():
            raise InputError(f"{option} {value}: directory {Path(value).parent} does not exist")
    files = {path: load_labelled(path, args.kb) for path in args.files}
    reference = datetime.now().replace(microsecond=0)
    scored = check_all([c for items in files.values() for c in items], args.rules, reference)
    by_file = {path: [s for s in scored if s.item.file == str(Path(path))] for path in files}
    report = {
        "command": command_line(args),
        "code": code_version(),
        "reference_time": reference.isoformat(),
        "kb": args.kb,
        "files": {path: summarise(items) for path, items in by_file.items()},
        "total": summarise(scored),
    }
    against = f" (against {args.kb})" if args.kb else ""
    for path, summary in report["files"].items():
        print(format_summary(path + against, summary) + "\n")
    if len(files) > 1:
        print(format_summary("all files", report["total"]) + "\n")
    misses = [s for s in scored if s.problems]
    if not args.no_misses:
        for s in misses:
            print(format_miss(s) + "\n")
    print(f"cases without a reference_time were checked at {reference.isoformat()}")
    if args.json:
        report["cases"] = [record(s) for s in scored]
        Path(args.json).write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    if args.errors:
        with open(args.errors, "w", encoding="utf-8") as fh:
            for s in misses:
                fh.write(json.dumps(record(s), ensure_ascii=False) + "\n")
    return 0
