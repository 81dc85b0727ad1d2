"""The SGD adapter declares a column's type as a user reading the schema would: a money or
percent column from its description, but never a column with a closed list of kinds ("Type of
fare": Saver, Open return) nor a name column, whatever its description mentions."""

from __future__ import annotations

import json
from pathlib import Path

from replyguard.evaluation.sgd import read_schema


def test_kinds_and_names_are_not_declared_amounts(tmp_path: Path) -> None:
    slots = [
        {"name": "fare", "description": "Fare of one seat", "is_categorical": False},
        {
            "name": "fare_kind",
            "description": "Kind of fare bought",
            "is_categorical": True,
            "possible_values": ["Saver", "Open return"],
        },
        {"name": "payee_name", "description": "Who the money goes to", "is_categorical": False},
        {"name": "damp", "description": "Humidity in percent", "is_categorical": False},
    ]
    path = tmp_path / "schema.json"
    path.write_text(json.dumps([{"service_name": "Ferries_9", "slots": slots}]), "utf-8")
    declared = read_schema(path)["Ferries_9"].declared
    assert declared == {"fare": "money", "damp": "percent"}
