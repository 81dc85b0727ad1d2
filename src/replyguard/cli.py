"""The command line: check a case, benchmark, validate rule files.

Bad input is one line on stderr naming the file, field or line, and a non-zero exit; never a
traceback (set REPLYGUARD_DEBUG=1 to see one for an internal error).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Sequence

from replyguard.cli_options import add_engine_options
from replyguard.errors import ReplyguardError
from replyguard.serve import bench as serve_bench
from replyguard.serve import bench_proxy

EXIT_INPUT = 2
EXIT_INTERNAL = 70


# Modules that add their own subcommands: each has register(subparsers) and sets
# `handler=run` on its parser, with run(args) -> exit status.
COMMAND_MODULES: tuple[str, ...] = (
    "replyguard.evaluation.harness",
    "replyguard.batch",
    "replyguard.trace_cli",
    "replyguard.session_cli",
    "replyguard.repl",
    "replyguard.serve.cli",
)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="replyguard", description="Check an LLM reply before a person reads it."
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    check = sub.add_parser("check", help="check one case file and print the report")
    check.add_argument("case", help="case file (JSON: kb, dialogue, query, response, ...)")
    check.add_argument("--json", action="store_true", help="print the full result as JSON")
    add_engine_options(check)
    check.add_argument("--explain", action="store_true", help="show the rule behind each verdict")
    check.add_argument("--color", choices=("auto", "always", "never"), default="auto")

    bench = sub.add_parser("bench", help="measure speed")
    bench_sub = bench.add_subparsers(dest="bench", required=True, metavar="WHAT")
    latency = bench_sub.add_parser("latency", help="per-reply latency on the typical case")
    latency.add_argument(
        "--sizes",
        default="1000,10000,100000",
        help="KB sizes in entities, comma-separated (default %(default)s)",
    )
    latency.add_argument("--replies", type=int, default=200, help="replies per size")
    latency.add_argument("--json", metavar="FILE", help="also write the numbers as JSON")
    spelling = bench_sub.add_parser("spelling", help="the spelling corrector against baselines")
    spelling.add_argument("--data", default="../shared/data", help="the datasets' folder")
    spelling.add_argument("--json", metavar="FILE", help="also write the numbers as JSON")
    scaling = bench_sub.add_parser("scaling", help="latency as replies and dialogues grow")
    scaling.add_argument("--size", type=int, default=10000, help="KB size in entities")
    scaling.add_argument("--replies", type=int, default=100, help="replies per point")
    serve_bench.add_parser(bench_sub)
    bench_proxy.add_parser(bench_sub)

    rules = sub.add_parser("rules", help="rule files")
    rules_sub = rules.add_subparsers(dest="rules", required=True, metavar="WHAT")
    rules_check = rules_sub.add_parser(
        "check", help="load the shipped and user rules, report errors"
    )
    rules_check.add_argument("dir", nargs="?", help="user rules directory")

    sub.add_parser("schema", help="print the JSON schema of case files")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return p


def _check(args: argparse.Namespace) -> int:
    from replyguard.cases import case_kb, load_case
    from replyguard.engine import Engine
    from replyguard.report import render_report

    case = load_case(args.case)
    engine = Engine(case_kb(case), rules_dir=args.rules, annotation_style=args.style)
    result = engine.check_case(case)
    if args.json:
        print(result.model_dump_json(indent=2))
        return 0
    colour = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    print(render_report(result, colour=colour, explain=args.explain))
    return 0


def _bench(args: argparse.Namespace) -> int:
    from replyguard.bench import format_table, measure_scaling, run_latency

    if args.bench == "spelling":
        from replyguard.spelling.bench import main as spelling_bench

        return spelling_bench(["--data", args.data, *(["--json", args.json] if args.json else [])])
    if args.bench == "serve":
        return serve_bench.run(args)
    if args.bench == "proxy":
        return bench_proxy.run(args)
    if args.bench == "scaling":
        if args.size < 1 or args.replies < 1:
            raise ReplyguardError("--size and --replies must be positive")
        print(f"{'turns':>6} {'words':>6} {'p50 ms':>7} {'p95 ms':>7}   ({args.size} entities)")
        for row in measure_scaling(args.size, args.replies):
            print(
                f"{row['turns']:>6} {row['words_per_reply']:>6} {row['p50_ms']:>7} "
                f"{row['p95_ms']:>7}"
            )
        return 0
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        raise ReplyguardError(f"--sizes: expected numbers, got {args.sizes!r}") from None
    if not sizes or min(sizes) < 1 or args.replies < 1:
        raise ReplyguardError("--sizes and --replies must be positive")
    results = run_latency(sizes, args.replies)
    print(format_table(results))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(results, fh, indent=2)
    return 0


def _rules(args: argparse.Namespace) -> int:
    from replyguard.rule_check import check_rules

    report = check_rules(args.dir)
    for problem in report.problems:
        print(problem)
    verdict = f"{len(report.problems)} problems" if report.problems else "ok"
    print(
        f"{verdict}: {report.forms} rules and facts from {report.files} files"
        + (f"; {report.overridden} shipped definitions overridden" if report.overridden else "")
    )
    return 1 if report.problems else 0


def _schema(args: argparse.Namespace) -> int:
    from replyguard.cases import case_json_schema

    del args
    print(json.dumps(case_json_schema(), indent=2))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    handlers = {"check": _check, "bench": _bench, "rules": _rules, "schema": _schema}
    try:
        handler = getattr(args, "handler", None) or handlers[args.command]
        return handler(args)
    except ReplyguardError as exc:
        print(f"replyguard: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("replyguard: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # an internal error: one line unless debugging
        if os.environ.get("REPLYGUARD_DEBUG"):
            raise
        print(
            f"replyguard: internal error: {exc.__class__.__name__}: {exc} "
            "(set REPLYGUARD_DEBUG=1 for details)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
