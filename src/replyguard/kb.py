"""Loading a knowledge base (JSON document, CSV table, triples) and completing its schema.

A KB is loaded once and reused for many replies, so this module does the slow, careful work up
front: it validates every entity, infers each attribute's value type, cardinality and cue phrases
when the author did not give them, and reports any problem as one line naming the file and the
field or line.
"""

from __future__ import annotations

import csv
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from datetime import date, datetime, timedelta
from pathlib import Path

from pydantic import ValidationError

from replyguard.errors import (
    InputError,
    describe_validation_error,
    parse_json,
    read_input_file,
)
from replyguard.models import (
    ALIAS_SEPARATORS,
    AttributeSchema,
    AttributeValue,
    Cardinality,
    KnowledgeBase,
    ValueType,
)
from replyguard.text.temporal import WEEKDAYS
from replyguard.values import FREE_WORDS, fold, infer_value_type

RESERVED_COLUMNS = ("id", "name", "type", "aliases", "gender", "number")


def symbol_name(text: str) -> str:
    """A column heading or triple subject as a symbol-safe name: "Join Date" -> "join_date"."""
    slug = re.sub(r"[^\w.:-]+", "_", text.strip()).strip("_")
    return slug or "_"


LIST_SEPARATOR = "|"
# Suffixes that name a value's type rather than what it is about ("join_date" is about joining).
_TYPE_SUFFIXES = {
    *"date time year day at on id name number no".split(),
    *"dates times years days".split(),  # "closed_days" is about being closed
}
_PREPOSITIONS = {"at", "on", "by", "from", "to", "in", "for"}
# What a range's name calls it besides what it is of: "lunch_hours" is said "lunch is from ..."
_RANGE_NOUNS = {*_TYPE_SUFFIXES, "hours", "hour", "range", "window"}
_WHEN = (ValueType.time, ValueType.datetime, ValueType.date)


def load_kb(path: str | Path, *, date_order: str | None = None) -> KnowledgeBase:
    """Load a KB file, choosing the reader by extension: .json, .csv, .tsv/.triples (triples).
    `date_order` ("day-first" or "month-first") says how a CSV's numeric dates are written."""
    p = Path(path)
    raw = read_input_file(p, "KB file")
    suffix = p.suffix.lower()
    if suffix == ".csv":
        return kb_from_csv(raw, origin=str(p), date_order=date_order)
    if suffix in (".tsv", ".triples", ".nt"):
        return kb_from_triples(_tsv_triples(raw, str(p)), origin=str(p))
    return kb_from_document(parse_json(raw, str(p)), origin=str(p))


def kb_from_document(doc: object, origin: str = "<kb>") -> KnowledgeBase:
    """A JSON document: {"entities": [...], "schema": {...}}, a bare entity list, or triples."""
    if isinstance(doc, list) and doc and all(isinstance(t, list) and len(t) == 3 for t in doc):
        return kb_from_triples(doc, origin=origin)
    if isinstance(doc, list):
        doc = {"entities": doc}
    if isinstance(doc, dict) and "triples" in doc:
        unknown = sorted(set(doc) - {"triples", "schema"})
        if unknown:
            raise InputError(f"{origin}: {unknown[0]}: unknown field (beside triples)")
        if not isinstance(doc["triples"], list):
            raise InputError(
                f"{origin}: triples: expected a list of [subject, predicate, object], "
                f"got {type(doc['triples']).__name__}"
            )
        return kb_from_triples(doc["triples"], origin=origin, schema=doc.get("schema"))
    if isinstance(doc, dict) and written_as_rows(doc):
        return _kb_from_entity_rows(doc, origin)
    try:
        kb = KnowledgeBase.model_validate(doc)
    except ValidationError as exc:
        raise InputError(f"{origin}: {describe_validation_error(exc)}") from None
    return complete_schema(kb)


def written_as_rows(doc: object) -> bool:
    """A KB document (or a bare entity list) whose entities are written as a table's rows, the
    way a user writes them by hand: no entity nests an `attributes` object, and some hold their
    facts as fields of their own (`{"name": "Blue Door", "phone": "..."}`) or leave out the `id`."""
    entities = doc.get("entities") if isinstance(doc, dict) else doc
    if not isinstance(entities, list) or not all(isinstance(e, dict) for e in entities):
        return False
    if any("attributes" in e for e in entities):
        return False
    return any("id" not in e or set(e) - set(RESERVED_COLUMNS) for e in entities)


def _kb_from_entity_rows(doc: dict[str, object], origin: str) -> KnowledgeBase:
    """A JSON KB whose entities are rows: each read as a CSV row is (the `name`, `id`, `type`,
    `aliases`, `gender` and `number` fields in any case, every other field an attribute), the
    document's other fields (`schema`, `organization`, `world`, `today`) as they are."""
    rows = [
        (f"entities.{i}", {_heading(str(k)): v for k, v in row.items()})
        for i, row in enumerate(doc["entities"])  # type: ignore[arg-type]
    ]
    documents, today = _entity_documents(
        rows, name_column="name", id_column="id", type_column="type", entity_type="Unknown"
    )
    others = {k: v for k, v in doc.items() if k != "entities"}
    if today is not None:
        others.setdefault("today", today)
    return _validated(others | {"entities": documents}, [p for p, _ in rows], "type", origin)


def kb_from_rows(
    rows: Iterable[Mapping[str, object]],
    *,
    name_column: str | None = None,
    id_column: str | None = None,
    type_column: str | None = None,
    entity_type: str = "Unknown",
    origin: str = "<rows>",
) -> KnowledgeBase:
    """A table of rows as a KB: one entity per row, every other column an attribute.

    The name column defaults to "name", else the first column; ids default to "id", else R1, R2...
    Empty cells are absent attributes; a cell holding "a | b" is a multi-valued attribute; an
    `aliases` cell holds several aliases separated by "|" or ";". A problem is named by row and
    column ("row 3, column type: ...").
    """
    return _kb_from_placed_rows(
        ((f"row {i + 1}", row) for i, row in enumerate(rows)),
        name_column=name_column,
        id_column=id_column,
        type_column=type_column,
        entity_type=entity_type,
        origin=origin,
    )


def _kb_from_placed_rows(
    rows: Iterable[tuple[str, Mapping[str, object]]],
    *,
    name_column: str | None,
    id_column: str | None,
    type_column: str | None,
    entity_type: str,
    origin: str,
) -> KnowledgeBase:
    """`kb_from_rows` over (place, row) pairs, the place ("line 7") naming the row in errors."""
    placed = [(place, row) for place, row in rows if row]
    for place, row in placed:
        name_col = name_column or ("name" if "name" in row else next(iter(row)))
        if _cell(row.get(name_col)) is None:
            raise InputError(f"{origin}: {place}, column {name_col}: empty name")
    documents, today = _entity_documents(
        placed,
        name_column=name_column,
        id_column=id_column,
        type_column=type_column,
        entity_type=entity_type,
    )
    places = [place for place, _ in placed]
    return _validated({"entities": documents, "today": today}, places, type_column, origin)


def _entity_documents(
    rows: list[tuple[str, Mapping[str, object]]],
    *,
    name_column: str | None,
    id_column: str | None,
    type_column: str | None,
    entity_type: str,
) -> tuple[list[dict[str, object]], str | None]:
    """Each row as an entity document (ids default to R1, R2, ... by position; a row with no
    name is known by its values), and the weekday the table calls today."""
    table, today = read_table(row for _, row in rows)
    entities = []
    for i, row in enumerate(table):
        cols = list(row)
        name_col = name_column or ("name" if "name" in row else cols[0])
        id_col = id_column or "id"
        name = _cell(row.get(name_col))
        doc: dict[str, object] = {
            "id": (
                symbol_name(str(row[id_col])) if row.get(id_col) not in (None, "") else f"R{i + 1}"
            ),
            "type": str(row.get(type_column) or entity_type) if type_column else entity_type,
            "attributes": {},
        }
        if name is not None:
            doc["name"] = str(name)
        for col in cols:
            if col in (name_col, id_col, type_column):
                continue
            value = _cell(row[col])
            if value is None:
                continue
            if col == "aliases":
                cells = value if isinstance(value, list) else [value]
                doc["aliases"] = [
                    a.strip() for c in cells for a in ALIAS_SEPARATORS.split(str(c)) if a.strip()
                ]
            elif col in ("gender", "number"):
                doc[col] = value
            else:
                doc["attributes"][symbol_name(col)] = value  # type: ignore[index]
        entities.append(doc)
    return entities, today


def _validated(
    document: dict[str, object], places: list[str], type_column: str | None, origin: str
) -> KnowledgeBase:
    """The KB of entity documents made from rows, a problem named by the row's place and the
    column ("line 3, column type: ...")."""
    try:
        kb = KnowledgeBase.model_validate(document)
    except ValidationError as exc:
        problem = describe_validation_error(exc)
        at = re.match(r"entities\.(\d+)\.([^.:]+)(?:\.([^:]+))?: (.*)", problem)
        if at is None:
            raise InputError(f"{origin}: {problem}") from None
        index, field, attribute, message = at.groups()
        column = attribute if field == "attributes" and attribute else field
        if column == type_column:
            message += "; this column holds entity types (rename it to keep it as an attribute)"
        raise InputError(f"{origin}: {places[int(index)]}, column {column}: {message}") from None
    return complete_schema(kb)


# A labelled part of a compound cell: "low of 40F", "price: $12", "high = 52F".
_LABELLED = re.compile(r"(?P<label>[^\W\d_][\w ]{0,30}?)\s*(?:\bof\b|:|=)\s*(?P<value>.+)")
_TODAY_COLUMN = "today"


def read_table(
    rows: Iterable[Mapping[str, object]],
) -> tuple[list[dict[str, object]], str | None]:
    """A table as a user hands it in, read into one fact per cell part, and the weekday it
    calls today.

    A compound cell ("rain, low of 40F, high of 52F") states several facts: each labelled part
    whose value has a type ("low of 40F") is the column's `<column>_<label>` ("monday_low"), and
    what is left unlabelled ("rain") is the column's own value. A `today` column naming one
    weekday in every row is the day the table counts its weekday columns from, not a fact of
    the row."""
    table = [dict(row) for row in rows]
    days = {
        fold(str(row[column]))
        for row in table
        for column in row
        if column.strip().lower() == _TODAY_COLUMN and _cell(row[column]) is not None
    }
    today = next(iter(days)) if len(days) == 1 and days <= set(WEEKDAYS) else None
    out = []
    for row in table:
        read: dict[str, object] = {}
        for column, cell in row.items():
            if today is not None and column.strip().lower() == _TODAY_COLUMN:
                continue
            read.update(_cell_facts(column, cell))
        out.append(read)
    return out, today


def on_table_day(kb: KnowledgeBase, reference: datetime) -> datetime:
    """The reference time moved to the nearest day that is the KB's `today` (at most three
    days away), so "today", "tomorrow" and "on Friday" pick the table's columns."""
    if kb.today is None or kb.today not in WEEKDAYS:
        return reference
    shift = (WEEKDAYS.index(kb.today) - reference.weekday()) % 7
    return reference + timedelta(days=shift - 7 if shift > 3 else shift)


def _cell_facts(column: str, cell: object) -> dict[str, object]:
    if not isinstance(cell, str) or "," not in cell:
        return {column: cell}
    plain, labelled = [], {}
    for part in (p.strip() for p in cell.split(",")):
        m = _LABELLED.fullmatch(part)
        if m is not None and infer_value_type(m["value"]) is not None:
            labelled[f"{column}_{symbol_name(m['label'].lower())}"] = m["value"].strip()
        else:
            plain.append(part)
    if not labelled:
        return {column: cell}
    return ({column: ", ".join(plain)} if plain else {}) | labelled


# A numeric date, day and month in either order ("03/12/2026", "3.12.2026 14:00").
_NUMERIC_DATE = re.compile(r"(\d{1,2})([/.-])(\d{1,2})\2(\d{4})(?=$|[ T])")
DATE_ORDERS = {
    **dict.fromkeys(["day-first", "dmy", "dd/mm/yyyy"], "day-first"),
    **dict.fromkeys(["month-first", "mdy", "mm/dd/yyyy"], "month-first"),
}


def kb_from_csv(text: str, origin: str = "<csv>", date_order: str | None = None) -> KnowledgeBase:
    """A CSV table, one entity per row: a `name` column, optional `id`, `type`, `aliases`,
    `gender` and `number` columns (headings in any case), every other column an attribute.

    Lines starting with "#" before the header are settings: `# date_order: day-first` (or
    month-first) says how numeric dates such as 03/12/2026 are written. Without one, the file's
    unambiguous dates (13/12/2026) decide; a date that is still ambiguous is an error. Day-first
    dates are stored in ISO form (2026-12-03), so they are read as meant.
    """
    lines = text.removeprefix("\ufeff").splitlines()
    settings = 0
    while settings < len(lines) and lines[settings].lstrip().startswith("#"):
        key, _, value = lines[settings].lstrip("# \t").partition(":")
        if key.strip().lower().replace(" ", "_") == "date_order" and date_order is None:
            date_order = value.strip()
        settings += 1
    order = _date_order(date_order, origin, settings)
    reader = csv.reader(lines[settings:], delimiter=_delimiter(lines[settings:]))
    try:
        table = [(settings + reader.line_num, row) for row in reader if row]
    except csv.Error as exc:
        where = settings + reader.line_num
        raise InputError(f"{origin}: line {where}: cannot read CSV ({exc})") from None
    if not table:
        raise InputError(f"{origin}: CSV has no header row")
    header_line, header = table[0]
    fields = [_heading(f) for f in header]
    if len(set(fields)) != len(fields):
        raise InputError(f"{origin}: line {header_line}: duplicate column names")
    if "name" not in fields:
        raise InputError(
            f"{origin}: line {header_line}: no 'name' column (the entities' names); "
            f"the columns are {', '.join(fields)}"
        )
    rows = []
    for line_no, cells in table[1:]:
        if len(cells) > len(fields):
            raise InputError(f"{origin}: line {line_no}: more cells than header columns")
        if len(cells) < len(fields):
            raise InputError(
                f"{origin}: line {line_no}, column {fields[len(cells)]}: missing "
                f"({len(cells)} cells, the header has {len(fields)})"
            )
        rows.append((f"line {line_no}", dict(zip(fields, cells, strict=True))))
    order = order or _evident_date_order(rows, origin)
    for place, row in rows:
        for column, cell in row.items():
            row[column] = _read_dates(cell, order, f"{origin}: {place}, column {column}")
    return _kb_from_placed_rows(
        rows,
        name_column="name",
        id_column="id" if "id" in fields else None,
        type_column="type" if "type" in fields else None,
        entity_type="Unknown",
        origin=origin,
    )


def _delimiter(lines: list[str]) -> str:
    """The table's cell separator: a comma, else what its header row separates its names with,
    a semicolon or a tab (a spreadsheet saved as CSV where the comma is the decimal mark)."""
    header = next((line for line in lines if line.strip()), "")
    if "," in header:
        return ","
    return max((";", "\t"), key=header.count) if ";" in header or "\t" in header else ","


def _heading(text: str) -> str:
    """A column heading, the reserved ones in any case ("Name", "ID")."""
    heading = text.strip()
    return heading.lower() if heading.lower() in RESERVED_COLUMNS else heading


def _date_order(declared: str | None, origin: str, line: int) -> str | None:
    if declared is None:
        return None
    order = DATE_ORDERS.get(declared.strip().lower())
    if order is None:
        raise InputError(
            f"{origin}: line {max(line, 1)}: date_order {declared!r}: expected day-first or "
            "month-first"
        )
    return order


def _evident_date_order(rows: list[tuple[str, dict[str, str]]], origin: str) -> str | None:
    """The order the file's own dates show: a first part over 12 is a day, a second a month."""
    seen: dict[str, str] = {}
    for place, row in rows:
        for column, cell in row.items():
            for first, _, second, _ in _NUMERIC_DATE.findall(cell):
                if int(first) > 12 >= int(second):
                    seen.setdefault("day-first", f"{place}, column {column}")
                elif int(second) > 12 >= int(first):
                    seen.setdefault("month-first", f"{place}, column {column}")
    if len(seen) > 1:
        raise InputError(
            f"{origin}: dates written day first ({seen['day-first']}) and month first "
            f"({seen['month-first']}); write them one way, or as 2026-12-03"
        )
    return next(iter(seen), None)


def _read_dates(cell: str, order: str | None, where: str) -> str:
    """A cell with its numeric dates read in `order`: day-first ones in ISO form."""

    def read(match: re.Match[str]) -> str:
        first, _, second, year = match.groups()
        if order is None:
            if first != second and int(first) <= 12 and int(second) <= 12:
                raise InputError(
                    f"{where}: {match.group()!r} could be day/month or month/day; declare "
                    "'# date_order: day-first' (or month-first) above the header, or write "
                    f"{year}-MM-DD"
                )
            return match.group()
        day, month = (first, second) if order == "day-first" else (second, first)
        try:
            iso = date(int(year), int(month), int(day)).isoformat()
        except ValueError:
            raise InputError(f"{where}: {match.group()!r} is not a {order} date") from None
        return iso if order == "day-first" else match.group()

    return _NUMERIC_DATE.sub(read, cell) if any(c.isdigit() for c in cell) else cell


def _tsv_triples(text: str, origin: str) -> list[list[str]]:
    triples = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3:
            raise InputError(f"{origin}: line {line_no}: expected subject<TAB>predicate<TAB>object")
        triples.append([p.strip() for p in parts])
    return triples


def kb_from_triples(
    triples: Iterable[object], origin: str = "<triples>", schema: object = None
) -> KnowledgeBase:
    """Subject/predicate/object triples; predicates name, type, alias and gender fill fields."""
    docs: dict[str, dict[str, object]] = {}
    for i, triple in enumerate(triples):
        if not (isinstance(triple, list | tuple) and len(triple) == 3):
            raise InputError(f"{origin}: triples.{i}: expected [subject, predicate, object]")
        if not all(isinstance(x, str | int | float | bool) for x in triple):
            raise InputError(f"{origin}: triples.{i}: expected text or numbers, not lists")
        s, p, o = (str(x) if not isinstance(x, int | float | bool) else x for x in triple)
        s = str(s)
        doc = docs.setdefault(s, {"id": symbol_name(s), "name": s, "attributes": {}, "aliases": []})
        if p == "name":
            doc["name"] = str(o)
        elif p == "alias":
            doc["aliases"].append(str(o))  # type: ignore[union-attr]
        elif p in ("type", "gender", "number"):
            doc[p] = o
        else:
            attrs: dict[str, object] = doc["attributes"]  # type: ignore[assignment]
            p = symbol_name(str(p))
            if p in attrs:
                prev = attrs[p]
                attrs[p] = [*prev, o] if isinstance(prev, list) else [prev, o]
            else:
                attrs[p] = o
    document: dict[str, object] = {"entities": list(docs.values())}
    if schema is not None:
        document["schema"] = schema
    return kb_from_document(document, origin=origin)


def _cell(value: object) -> object:
    """A cell's value: None when empty; a JSON row's list, number, yes/no or
    `{value, confidence, source}` as it is; text trimmed, "a | b" a list."""
    if value is None:
        return None
    if isinstance(value, int | float | bool | dict):
        return value
    if isinstance(value, list):
        return [c for c in (_cell(v) for v in value) if c is not None] or None
    text = str(value).strip()
    if not text or text == "-":
        return None
    if LIST_SEPARATOR in text:
        return [v.strip() for v in text.split(LIST_SEPARATOR) if v.strip()]
    return text


# --------------------------------------------------------------------------- schema inference


def attribute_values(kb: KnowledgeBase, attribute: str) -> list[str]:
    out: list[str] = []
    for entity in kb.entities:
        out.extend(str(v) for v in entity.values_of(attribute)[0])
    return out


# A range of two values of one type in one cell: "6:00 pm - 9:30 pm", "£80 to £120".
_RANGE = re.compile(r"(?P<low>.+?)\s*(?:\s[-–]\s|–|\bto\b|\buntil\b)\s*(?P<high>.+)")
_RANGED = (ValueType.time, ValueType.money, ValueType.date, ValueType.datetime)


def _range_ends(value: object) -> tuple[str, str] | None:
    m = _RANGE.fullmatch(str(value).strip()) if isinstance(value, str) else None
    if m is None:
        return None
    low, high = infer_value_type(m["low"]), infer_value_type(m["high"])
    return (m["low"], m["high"]) if low is not None and low == high and low in _RANGED else None


_QUALIFIED = re.compile(r"(?P<head>[^,]+?),\s*(?P<range>[^,]+)")


def _cell_range(value: object) -> tuple[str | None, str, str] | None:
    """(what it qualifies, low, high) of a range cell: "6:00 pm - 9:30 pm" (no qualifier), or
    "Monday to Friday, 9:00 am - 5:00 pm" (the days, then the hours)."""
    ends = _range_ends(value)
    if ends is not None:
        return None, *ends
    m = _QUALIFIED.fullmatch(str(value).strip()) if isinstance(value, str) else None
    ends = _range_ends(m["range"]) if m else None
    return (m["head"].strip(), *ends) if m and ends else None


def split_ranges(kb: KnowledgeBase) -> KnowledgeBase:
    """An attribute whose every value is a range of times, dates or amounts ("opening_hours":
    "6:00 pm - 9:30 pm") becomes its two bounds, `<attribute>_start` and `<attribute>_end`, so
    "open from 6pm" and "until 10pm" are each checked against their own end; so does one whose
    other cells hold no value of the range's kind ("closed", "24 hours"), which stay whole. A
    range after a qualifier ("Monday to Friday, 9:00 am - 5:00 pm") leaves the qualifier as the
    value."""
    held: dict[str, list[object]] = defaultdict(list)
    for entity in kb.entities:
        for attribute in entity.attributes:
            held[attribute].extend(entity.values_of(attribute)[0])
    ranged = {
        a
        for a, values in held.items()
        if a not in kb.attribute_schema
        and any(_cell_range(v) for v in values)
        and all(_cell_range(v) or infer_value_type(str(v)) not in _RANGED for v in values)
    }
    if not ranged:
        return kb
    entities = []
    for entity in kb.entities:
        attributes: dict[str, object] = {}
        for attribute, given in entity.attributes.items():
            if attribute not in ranged:
                attributes[attribute] = given
                continue
            values = entity.values_of(attribute)[0]
            if len(values) != 1 or _cell_range(values[0]) is None:  # "closed", "24 hours"
                attributes[attribute] = given
                continue
            head, low, high = _cell_range(values[0])  # type: ignore[misc]
            bounds = [(f"{attribute}_start", low), (f"{attribute}_end", high)]
            if head is not None:  # "Monday to Friday, 9:00 am - 5:00 pm": the days stay
                bounds.insert(0, (attribute, head))
            for bound, value in bounds:
                attributes[bound] = (
                    given.model_copy(update={"value": value})
                    if isinstance(given, AttributeValue)
                    else value
                )
        entities.append(entity.model_copy(update={"attributes": attributes}))
    return kb.model_copy(update={"entities": entities})


def complete_schema(kb: KnowledgeBase) -> KnowledgeBase:
    """Fill in the schema for every attribute the author did not describe, and add name cues."""
    kb = split_ranges(kb)
    names = {fold(e.name) for e in kb.entities if e.name} | {fold(e.id) for e in kb.entities}
    schema = dict(kb.attribute_schema)
    attributes: Counter[str] = Counter(a for e in kb.entities for a in e.attributes)
    shared = family_cues(list(attributes))
    leading = leading_cues(list(attributes))
    for attribute in attributes:
        given = schema.get(attribute)
        value_type = given.value_type if given else _infer_type(kb, attribute, names)
        family = shared.get(attribute, ())
        inflected = [  # a time is when something happens: saturday_open "opens", "opened"
            f
            for cue in family
            if value_type in _WHEN and " " not in cue and cue not in WEEKDAYS
            for f in _verb_forms(cue)
        ]
        inferred = [
            *name_cues(attribute),
            *_range_cues(attribute, attributes),
            *leading.get(attribute, ()),
            *family,
            *inflected,
        ]
        if given is None:
            schema[attribute] = AttributeSchema(
                value_type=value_type,
                cardinality=_infer_cardinality(kb, attribute),
                cues=list(dict.fromkeys(inferred)),
            )
        else:
            cues = list(dict.fromkeys([*given.cues, *inferred]))
            schema[attribute] = given.model_copy(update={"cues": cues})
    for attribute, inverse in _infer_inverses(kb, schema).items():
        if schema[attribute].inverse is None:
            schema[attribute] = schema[attribute].model_copy(update={"inverse": inverse})
    return kb.model_copy(update={"attribute_schema": schema})


def _infer_inverses(kb: KnowledgeBase, schema: dict[str, AttributeSchema]) -> dict[str, str]:
    """Relations the KB states from both ends: B is A's inverse when every "x A y" between two
    entities is matched by "y B x" ("wrote" and "written_by"; "sibling" is its own)."""
    names = {e.id: fold(e.label) for e in kb.entities}
    by_name = {fold(e.name) for e in kb.entities if e.name}
    pairs: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for entity in kb.entities:
        for attribute in entity.attributes:
            if schema[attribute].value_type != ValueType.entity:
                continue
            for value in entity.values_of(attribute)[0]:
                if fold(str(value)) in by_name:
                    pairs[attribute].add((names[entity.id], fold(str(value))))
    out = {}
    for attribute, facts in pairs.items():
        reversed_facts = {(y, x) for x, y in facts}
        matches = [b for b, other in pairs.items() if reversed_facts <= other]
        if len(matches) == 1:
            out[attribute] = matches[0]
    return out


def _infer_type(kb: KnowledgeBase, attribute: str, entity_names: set[str]) -> ValueType:
    values = attribute_values(kb, attribute)
    if not values:
        return ValueType.text
    # values naming entities other than the one holding each ("code": "KOI" of the entity whose
    # id is "koi" is its code, not a reference to itself)
    refs = [
        fold(str(v)) in entity_names and fold(str(v)) not in (fold(e.id), fold(e.name or ""))
        for e in kb.entities
        for v in e.values_of(attribute)[0]
    ]
    if all(refs):
        return ValueType.entity
    # "free" in a column of prices is a price
    types = Counter(
        ValueType.money if fold(v) in FREE_WORDS else infer_value_type(v) for v in values
    )
    common, count = types.most_common(1)[0]
    if common is not None and count >= 0.8 * len(values):
        if common is ValueType.year and any(w in attribute.lower() for w in ("date", "day")):
            return ValueType.year
        return common
    distinct = len({fold(v) for v in values})
    if len(values) >= 4 and distinct <= max(2, len(values) // 2):
        return ValueType.enum
    return ValueType.text


def _infer_cardinality(kb: KnowledgeBase, attribute: str) -> Cardinality:
    for entity in kb.entities:
        if len(entity.values_of(attribute)[0]) > 1:
            return Cardinality.many
    return Cardinality.one


def name_cues(attribute: str) -> list[str]:
    """Cue phrases read off an attribute's name: "join_date" -> "join date", "join", "joined"."""
    words = name_words(attribute)
    cues = [" ".join(words)] if words else []
    content = [w for w in words if w not in _TYPE_SUFFIXES and w not in _PREPOSITIONS] or words
    if content and content != words:
        cues.append(" ".join(content))
    if len(content) == 1 and len(words) > 1:
        verb = content[0]
        cues.extend(_verb_forms(verb))
        if words[0] == verb and len(words) == 2 and words[1] in _PREPOSITIONS:
            # "arriveBy" -> "arrives by", "arrived by" as well as "arrives"
            cues.extend(f"{form} {words[1]}" for form in _verb_forms(verb))
    if len(words) == 2:
        cues.append("-".join(words))  # "check_out" is written "check-out"
    return list(dict.fromkeys(cues))


def _range_cues(attribute: str, attributes: Mapping[str, object]) -> list[str]:
    """A bound of a range split in two (`split_ranges`: "lunch_hours_start") is named as the
    range is ("lunch hours", "lunch"); which end is meant the sentence says."""
    for end, other in (("_start", "_end"), ("_end", "_start")):
        base = attribute.removesuffix(end)
        if base != attribute and base + other in attributes:
            words = name_words(base)
            content = [w for w in words if w not in _RANGE_NOUNS and w not in _PREPOSITIONS]
            if not content or all(w in WEEKDAYS for w in content):
                return [" ".join(words)]  # "monday_hours": the day picks it, it is no cue
            return [" ".join(words), " ".join(content)]
    return []


def leading_cues(attributes: list[str]) -> dict[str, list[str]]:
    """A name of three words or more is said by its leading words when no other attribute's
    name starts with them: "cabin_bag_allowance" is "a 6 kg cabin bag"."""
    out: dict[str, list[str]] = {}
    lead = {a: name_words(a)[:-1] for a in attributes if len(name_words(a)) >= 3}
    for attribute, words in lead.items():
        if words[-1] in _PREPOSITIONS or words[0] in _PREPOSITIONS:
            continue
        if sum(name_words(b)[: len(words)] == words for b in attributes) == 1:
            out[attribute] = [" ".join(words)]
    return out


def family_cues(attributes: list[str]) -> dict[str, list[str]]:
    """Columns that differ in one part of their names share a cue in the rest: "monday_low",
    "tuesday_low", ... are each a "low", "home_address" and "work_address" each an "address";
    the differing part then tells them apart in a sentence ("the low on Tuesday")."""
    parts = {a: name_words(a) for a in attributes}
    families: dict[tuple[int, tuple[str, ...]], set[str]] = defaultdict(set)
    for attribute, words in parts.items():
        if len(words) < 2:
            continue
        for k in range(len(words)):
            families[(k, tuple(words[:k] + words[k + 1 :]))].add(attribute)
    # An attribute in several families ("monday_low" with the other lows and with "monday_high")
    # takes its cue from the largest: seven days of lows, not a day's low and high.
    largest: dict[str, int] = defaultdict(int)
    for members in families.values():
        for attribute in members:
            largest[attribute] = max(largest[attribute], len(members))
    out: dict[str, list[str]] = defaultdict(list)
    for (_, rest), members in families.items():
        if len(members) < 2:
            continue
        for attribute in members:
            if len(members) == largest[attribute]:
                out[attribute].append(" ".join(rest))
    return out


def name_words(attribute: str) -> list[str]:
    """The words of an attribute's name: "join_date" and "joinDate" are "join", "date"."""
    return [w.lower() for w in re.split(r"[_\-\s]+|(?<=[a-z])(?=[A-Z])", attribute) if w]


def _verb_forms(verb: str) -> list[str]:
    if verb.endswith(("ed", "s")) or not verb.isalpha():
        return []  # "closed", "runs" are inflected already
    if verb.endswith("e"):
        return [verb + "d", verb + "s"]
    return [verb + "ed", verb + "s"]
