"""BEGIN (Wizard-of-Wikipedia dev): a response, the message it answers, the knowledge it should rest
on, and a human label saying whether the knowledge fully supports it.

The knowledge is one free Wikipedia sentence, not graph-shaped like HaluEval's, so no KB can be
read off it without a parser the engine does not have. It is given as the call's passage instead,
as a chat backend would pass a retrieved document, and each response sentence is measured against
it (UnsupportedClaim, `Ungrounded`). The KB is empty and open: it is not a KB of the domain.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

from replyguard.errors import InputError
from replyguard.evaluation.cases import BeginLabel, EvalCase, locate_data_file
from replyguard.models import Case, DialogueState, KnowledgeBase, Turn

BEGIN_FILE = "begin/wow/begin_dev_wow.tsv"
COLUMNS = ("model_name", "data_source", "knowledge", "message", "response", "begin_label")
LABELS = ("Fully attributable", "Not fully attributable", "Generic")


def row_case(row: dict[str, str], case_id: str) -> EvalCase:
    turns = [Turn(id="T1", speaker="user", text=row["message"].strip())]
    case = Case(
        kb=KnowledgeBase(world="open"),
        dialogue=DialogueState(turns=turns),
        query=turns[-1].text,
        response=row["response"].strip(),
        passages=[row["knowledge"].strip()],
        session_id=case_id,
        turn_id="T2",
    )
    return EvalCase(
        case_id=case_id,
        case=case,
        truth=BeginLabel(label=row["begin_label"].strip(), model_name=row["model_name"].strip()),
    )


def iter_begin_cases(data: str | Path, limit: int | None = None) -> Iterator[EvalCase]:
    """One case per TSV row, ids "begin/<line number>" (the header is line 1)."""
    path = locate_data_file(data, BEGIN_FILE)
    with path.open(encoding="utf-8", newline="") as handle:
        # The text columns hold bare quote characters, so the TSV is read without CSV quoting.
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
        if missing:
            raise InputError(f"{path}: line 1: missing columns {', '.join(missing)}")
        for n, row in enumerate(reader):
            if limit is not None and n >= limit:
                return
            line = reader.line_num
            if None in row or None in row.values() or row["begin_label"].strip() not in LABELS:
                raise InputError(f"{path}: line {line}: expected 6 columns and a BEGIN label")
            yield row_case(row, f"begin/{line}")
