"""Command-line options that several commands share."""

from __future__ import annotations

import argparse

from replyguard.stages.correction import STYLES


def add_engine_options(parser: argparse.ArgumentParser) -> None:
    """--rules DIR and --style, as every command that builds an engine and checks replies takes
    them."""
    parser.add_argument("--rules", metavar="DIR", help="user rules directory (overrides shipped)")
    parser.add_argument(
        "--style",
        choices=STYLES,
        default="plain",
        help="annotation style of the annotated text",
    )
