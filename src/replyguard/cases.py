"""Case files: one JSON document holding kb (inline or a path), dialogue, query, response.

The format is documented in docs/case-format.md with a JSON schema (docs/case.schema.json)
generated from the Case model, so other tools can produce cases.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from replyguard.errors import InputError, describe_validation_error, parse_json, read_input_file
from replyguard.kb import complete_schema, kb_from_document, load_kb
from replyguard.models import Case, KnowledgeBase


def parse_case(document: object, origin: str, base_dir: Path | None = None) -> Case:
    """A case from parsed JSON; a `kb` path is read relative to base_dir (the case's folder),
    an inline `kb` as a KB file's document is (entities nested or written as rows)."""
    inline = document.get("kb") if isinstance(document, dict) else None
    if isinstance(inline, dict | list):
        document = {**document, "kb": kb_from_document(inline, f"{origin}: kb")}  # type: ignore[dict-item]
    try:
        case = Case.model_validate(document)
    except ValidationError as exc:
        raise InputError(f"{origin}: {describe_validation_error(exc)}") from None
    if isinstance(case.kb, str):
        kb_path = Path(case.kb)
        if not kb_path.is_absolute() and base_dir is not None:
            kb_path = base_dir / kb_path
        case.kb = load_kb(kb_path)
    elif inline is None:
        case.kb = complete_schema(case.kb)
    return case


def load_case(path: str | Path) -> Case:
    p = Path(path)
    text = read_input_file(p, "case file")
    return parse_case(parse_json(text, str(p)), str(p), p.parent)


def case_kb(case: Case) -> KnowledgeBase:
    assert isinstance(case.kb, KnowledgeBase), "parse_case resolves kb paths"
    return case.kb


def case_json_schema() -> dict[str, object]:
    schema = Case.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "replyguard case"
    return schema
