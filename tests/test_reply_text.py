"""Corrections on hostile reply text: spans that quote the reply exactly, edits at one offset that
compose, markup and code that no tier edits, e-mail addresses of any shape read as addresses.

The files in tests/data/repro/ are the reproducers of issue 10 (R02, R03, R26, R27); the other
inputs are new sentences.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import check
from invariants import check_corrections, check_result

from replyguard.engine import Engine
from replyguard.models import Case, CorrectionType, ResponseCorrection, Span
from replyguard.stages.correction import apply_edits
from replyguard.values import EMAIL_RE

REPRO = Path(__file__).parent / "data" / "repro"


def _repro(name: str):
    case = Case.model_validate(json.loads((REPRO / name).read_text(encoding="utf-8")))
    return Engine(case.kb).check_case(case)


def _edit(start: int, end: int, original: str, replacement: str) -> ResponseCorrection:
    return ResponseCorrection(
        correction_type=CorrectionType.Grammar,
        original=original,
        replacement=replacement,
        span=Span(start=start, end=end),
        confidence=1.0,
    )


# ------------------------------------------------------------------ spans quote the reply


@pytest.mark.parametrize("gap", ["\t", "\n", "\u2028", "  ", "\u00a0"])
def test_a_factual_correction_quotes_the_reply_whatever_the_whitespace(engine, gap):
    reply = f"Emily Chen works in Human{gap}Resources."
    result = check(engine, reply, "Where does Emily work?")
    (fix,) = [c for c in result.corrected.corrections if c.correction_type.value == "Factual"]
    assert fix.original == f"Human{gap}Resources"
    assert result.corrected.corrected == "Emily Chen works in Finance."
    check_result(result)


def test_repro_tab_inside_a_corrected_value():
    result = _repro("R03_correction_original_mismatch.json")
    (fix,) = result.corrected.corrections
    assert fix.original == "Sales\tMarketing"
    check_result(result)


# ------------------------------------------------------------------ edits at one offset


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("The team meets every every", "The team meets every."),
        ("We will review it it", "We will review it."),
    ],
)
def test_a_full_stop_and_a_deletion_at_one_offset_compose(engine, reply, expected):
    result = check(engine, reply)
    assert result.corrected.corrected == expected
    starts = [c.span.start for c in result.corrected.corrections]
    assert len(starts) == 2 and starts[0] == starts[1]  # the case this guards
    check_corrections(result)


def test_repro_doubled_last_word():
    result = _repro("R02_grammar_edit_collision.json")
    assert result.corrected.corrected == "It works in."
    check_result(result)


def test_edits_at_one_offset_apply_in_order_whatever_order_they_come_in():
    text = "ab cd"
    insert_x, insert_y = _edit(2, 2, "", "X"), _edit(2, 2, "", "Y")
    delete = _edit(2, 5, " cd", "")
    assert apply_edits(text, [delete, insert_x]) == "abX"
    assert apply_edits(text, [insert_x, delete]) == "abX"
    assert apply_edits(text, [insert_x, insert_y]) == "abXY cd"
    assert apply_edits(text, [insert_y, insert_x]) == "abYX cd"


# ------------------------------------------------------------------ markup is not prose


@pytest.mark.parametrize(
    ("reply", "kept"),
    [
        ('Open the <a hreff="/x" clas=big>teh page</a> now.', ['<a hreff="/x" clas=big>', "</a>"]),
        ("Run `mkae instal --forse` twice.", ["`mkae instal --forse`"]),
        ("Run this:\n\n```\nmkae instal\nthe build is is done\n```\n", ["```\nmkae instal\n"]),
        ("<!-- teh draft, do not edit -->Done.", ["<!-- teh draft, do not edit -->"]),
        ("Call <code>recieve(adress)</code> first.", ["<code>recieve(adress)</code>"]),
        ("<pre>\nwich is is\n</pre>", ["<pre>\nwich is is\n</pre>"]),
        ("<?xml versoin='1.0'?><nte>teh</nte>", ["<?xml versoin='1.0'?>", "<nte>", "</nte>"]),
        ("See https://exmaple.org/teh/docs or wrte to teh@exmaple.org.", ["exmaple.org/teh/docs"]),
        ("Ask teh@exmaple.org abuot it.", ["teh@exmaple.org"]),
    ],
)
def test_markup_code_urls_and_addresses_come_through_unchanged(engine, reply, kept):
    result = check(engine, reply)
    corrected = result.corrected.corrected
    for piece in kept:
        assert piece in corrected
    check_corrections(result)


def test_prose_between_tags_is_still_corrected(engine):
    result = check(engine, "<p>The report is in teh folder.</p>")
    assert result.corrected.corrected == "<p>The report is in the folder.</p>"


def test_no_full_stop_is_appended_inside_code(engine):
    reply = "Type this:\n\n```\nlet the tests run now\n\n"  # an unclosed fence runs to the end
    assert check(engine, reply).corrected.corrected == reply


def test_repro_markup_in_a_reply():
    result = _repro("R27_markup_mangled.json")
    corrected = result.corrected
    assert corrected.corrected == corrected.original.replace(
        "john.s@company.org", "john.smith@company.com"
    )
    assert all(c.correction_type == CorrectionType.Factual for c in corrected.corrections)
    check_result(result)


# ------------------------------------------------------------------ e-mail addresses


@pytest.mark.parametrize("address", ["a@b.c", "q.r@s.t", "x+y@mail.z"])
def test_short_addresses_are_addresses(address):
    assert EMAIL_RE.fullmatch(address)


def test_a_wrong_address_with_a_one_letter_domain_is_corrected(engine):
    result = check(engine, "Emily Chen's email is e@c.f.", "What is Emily's email?")
    (claim,) = result.factual_validation.claims
    assert claim.object == "e@c.f"
    assert result.corrected.corrected == "Emily Chen's email is emily.chen@company.com."


def test_repro_one_letter_address():
    result = _repro("R26_brief_injection_example.json")
    (validation,) = result.factual_validation.claim_validations
    assert validation.status.kind == "Contradicted"
    assert result.recommendation.kind.value != "Accept"
