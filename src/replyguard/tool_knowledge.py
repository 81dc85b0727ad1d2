"""Tool results as knowledge: what an agent's tools returned, as a KB merged over the served one.

In an agent's conversation the facts of the moment are what its tools returned. The JSON content
of each `tool` message (or legacy `function` result) is read as rows: a returned list's objects
are rows, an object holding lists of objects gives the rows of those lists, and any other object
is one row. Each row becomes an entity (named by its name-like field, `name-field` facts in
metta/tools.metta, or nameless: known by its values), its other fields attributes (a nested
object's fields as `outer.inner`, a list of scalars as a multi-valued attribute). A row naming an
entity the served KB holds updates that entity's attributes (the tool is the fresher source).

    results = tool_results_from_messages(messages)   # OpenAI chat messages
    engine.postprocess(reply, query, dialogue, tool_results=results)
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from pydantic import ValidationError

from replyguard.atoms import clear_space, load_kb_space
from replyguard.errors import InputError, describe_validation_error
from replyguard.kb import complete_schema, symbol_name
from replyguard.models import KnowledgeBase, Scalar, text_problem
from replyguard.values import fold

if TYPE_CHECKING:
    from replyguard.engine import Engine

TOOL_ROLES = ("tool", "function")


def tool_results_from_messages(messages: Sequence[Mapping[str, object]]) -> list[object]:
    """The JSON content of every tool (or legacy function) message, in order; a message whose
    content is not JSON (plain text), or JSON nested too deeply, is not read as knowledge."""
    results: list[object] = []
    for message in messages:
        if not isinstance(message, Mapping) or message.get("role") not in TOOL_ROLES:
            continue
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
        if not isinstance(content, str):
            continue
        try:
            result = json.loads(content)
        except (ValueError, RecursionError):  # not JSON, or nested too deeply to read
            continue
        if text_problem(result) is None:  # nested past MAX_NESTING: not read as knowledge
            results.append(result)
    return results


def rows_of(result: object) -> list[Mapping[str, object]]:
    """The rows a tool result holds (see the module's docstring)."""
    if isinstance(result, list):
        return [row for item in result for row in _rows_of_item(item)]
    if isinstance(result, Mapping):
        lists = [v for v in result.values() if _is_row_list(v)]
        if lists:
            return [row for rows in lists for item in rows for row in _rows_of_item(item)]
        return [result] if _flat_fields(result) else []
    return []


def _rows_of_item(item: object) -> list[Mapping[str, object]]:
    return rows_of(item) if isinstance(item, Mapping | list) else []


def _is_row_list(value: object) -> bool:
    return isinstance(value, list) and any(isinstance(v, Mapping) for v in value)


def _flat_fields(row: Mapping[str, object], prefix: str = "") -> dict[str, Scalar | list[Scalar]]:
    """A row's scalar fields by attribute name: nested objects flattened, scalar lists kept,
    empty values and lists of objects (rows of their own) left out."""
    out: dict[str, Scalar | list[Scalar]] = {}
    for key, value in row.items():
        name = prefix + symbol_name(str(key))
        if isinstance(value, Mapping):
            out.update(_flat_fields(value, name + "."))
        elif isinstance(value, list):
            scalars = [v for v in value if _is_scalar(v)]
            if scalars and len(scalars) == len(value):
                out[name] = scalars
        elif _is_scalar(value):
            out[name] = value  # type: ignore[assignment]
    return out


def _is_scalar(value: object) -> bool:
    return (isinstance(value, str) and value.strip() != "") or isinstance(value, bool | int | float)


def kb_from_tool_results(
    results: Sequence[object], name_fields: Sequence[str], name_suffixes: Sequence[str]
) -> KnowledgeBase:
    """The rows of every tool result as one KB (ids `tool1_row2`, ...)."""
    entities: list[dict[str, object]] = []
    for k, result in enumerate(results, start=1):
        for i, row in enumerate(rows_of(result), start=1):
            fields = _flat_fields(row)
            name_key = _name_key(fields, name_fields, name_suffixes)
            entity: dict[str, object] = {"id": f"tool{k}_row{i}"}
            if name_key is not None:
                entity["name"] = str(fields.pop(name_key))
            entity["attributes"] = fields
            entities.append(entity)
    try:
        return KnowledgeBase.model_validate({"entities": entities})
    except ValidationError as exc:
        raise InputError(f"tool_results: {describe_validation_error(exc)}") from None


def _name_key(
    fields: Mapping[str, object], name_fields: Sequence[str], name_suffixes: Sequence[str]
) -> str | None:
    textual = [k for k, v in fields.items() if isinstance(v, str)]
    folded = {k.casefold(): k for k in textual}
    for name in name_fields:
        if name.casefold() in folded:
            return folded[name.casefold()]
    for key in textual:
        if any(key.casefold().endswith(s.casefold()) for s in name_suffixes):
            return key
    return None


def merge_kb(served: KnowledgeBase, overlay: KnowledgeBase) -> KnowledgeBase:
    """`overlay`'s entities over `served`: one with a served entity's name updates that
    entity's attributes; the others are added. The served schema and world are kept."""
    by_name = {fold(name): e for e in served.entities for name in e.names}
    entities = [e.model_copy(deep=True) for e in served.entities]
    position = {e.id: i for i, e in enumerate(entities)}
    for entity in overlay.entities:
        known = by_name.get(fold(entity.name)) if entity.name else None
        if known is None:
            entities.append(entity)
        else:
            target = entities[position[known.id]]
            target.attributes = {**target.attributes, **entity.attributes}
    merged = KnowledgeBase(entities=entities, schema=served.attribute_schema, world=served.world)
    return complete_schema(merged)


def check_tool_results(results: object) -> list[object]:
    if isinstance(results, str | bytes) or not isinstance(results, Sequence):
        raise InputError(
            f"tool_results: expected a list of tool results (JSON values), "
            f"got {type(results).__name__}"
        )
    return list(results)


@contextmanager
def knowing(engine: Engine, results: Sequence[object]) -> Iterator[KnowledgeBase]:
    """The engine checks against its KB merged with these tool results inside the block, and
    against its own KB again after it (its rules and sessions are untouched)."""
    overlay = kb_from_tool_results(
        check_tool_results(results),
        [str(f[0]) for f in engine.host.facts("name-field")],
        [str(f[0]) for f in engine.host.facts("name-field-suffix")],
    )
    saved = (engine.kb, engine.kb_atoms, engine.index, engine.spelling, engine.reader)
    version, found_nothing = engine.rules_version, engine.lookup_found_nothing
    merged = merge_kb(engine.kb, overlay)
    engine.replace_kb(merged)
    # tools were called and none returned a row: what the reply offers was not found
    engine.lookup_found_nothing = bool(results) and not overlay.entities
    try:
        yield merged
    finally:
        clear_space(engine.host.kb)
        engine.lookup_found_nothing = found_nothing
        engine.kb, engine.kb_atoms, engine.index, engine.spelling, engine.reader = saved
        load_kb_space(engine.host.kb, engine.kb)
        engine.rules_version = version
