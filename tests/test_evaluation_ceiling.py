"""The HaluEval ceiling report: hand labels in, per-label judgements and ceilings out."""

from __future__ import annotations

import json

import pytest

from replyguard.errors import InputError
from replyguard.evaluation.ceiling import ceilings, judge, main, read_labels

RECORDS = [
    {  # the hallucinated response contradicts the knowledge: K
        "knowledge": "Tom Hanks wrote Larry Crowne",
        "dialogue_history": "[Human]: Who wrote Larry Crowne? ",
        "right_response": "Tom Hanks wrote Larry Crowne.",
        "hallucinated_response": "Jim Carrey wrote Larry Crowne.",
    },
    {  # wrong only by world knowledge: W
        "knowledge": "Zodiac is starring Jake Gyllenhaal",
        "dialogue_history": "[Human]: Do you know Zodiac? ",
        "right_response": "Yes, Jake Gyllenhaal starred in it.",
        "hallucinated_response": "Yes, it is a musical comedy.",
    },
]
LABELS = [
    {"line": 1, "right": "N", "hallucinated": "K", "note": "denies the knowledge's author"},
    {"line": 2, "right": "N", "hallucinated": "W", "note": "Zodiac is no musical"},
]


@pytest.fixture
def files(tmp_path):
    data = tmp_path / "halueval"
    data.mkdir()
    (data / "dialogue_dev.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in LABELS))
    return tmp_path, labels


def test_the_ceilings_follow_from_the_label_counts():
    labels = {1: {"right": "N", "hallucinated": "K"}, 2: {"right": "U", "hallucinated": "W"}}
    # flags K: catches 1 of 2 hallucinated, passes both right -> (1 + 2) / 4
    # flags K, U, W: catches both, passes the N right only -> (2 + 1) / 4
    assert ceilings(labels) == {"flags K": 0.75, "flags K, U, W": 0.75}


def test_each_label_is_judged_and_replyguard_catches_the_contradiction(files):
    root, labels = files
    report = judge(root, read_labels(labels))
    assert report["records"] == 2
    assert report["per_label"]["hallucinated K"] == {"n": 1, "contradiction": 1, "all": 1}
    assert report["per_label"]["hallucinated W"]["contradiction"] == 0
    assert report["per_label"]["right N"]["n"] == 2
    assert report["ceiling"] == {"flags K": 0.75, "flags K, U, W": 1.0}


def test_a_bad_label_file_is_a_one_line_error(tmp_path, capsys):
    bad = tmp_path / "labels.jsonl"
    bad.write_text('{"line": 1, "right": "X", "hallucinated": "K"}\n')
    with pytest.raises(InputError, match="labels.jsonl: line 1: labels must be one of"):
        read_labels(bad)
    bad.write_text("not json\n")
    assert main(["--data", str(tmp_path), "--labels", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 1: bad label row" in err


def test_the_shipped_sample_labels_give_the_documented_ceilings():
    from collections import Counter
    from pathlib import Path

    labels = read_labels(Path(__file__).parent.parent / "docs" / "halueval_sample_labels.jsonl")
    assert len(labels) == 150
    hallucinated = Counter(v["hallucinated"] for v in labels.values())
    right = Counter(v["right"] for v in labels.values())
    assert hallucinated == {"K": 51, "W": 84, "U": 13, "N": 2}
    assert right == {"U": 92, "N": 57, "K": 1}
    assert ceilings(labels) == {"flags K": 0.6667, "flags K, U, W": 0.6833}
