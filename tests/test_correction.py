"""Correction: values written the reply's way, spans valid in both texts, annotation styles."""

from __future__ import annotations

from conftest import REFERENCE, check

from replyguard.engine import Engine
from replyguard.models import CorrectionType, ValueType
from replyguard.stages.correction import render_like


def test_values_keep_the_replys_format():
    assert render_like("3pm", "14:00", ValueType.time) == "2pm"
    assert render_like("3:30 PM", "14:00", ValueType.time) == "2:00 PM"
    assert render_like("15:00", "2pm", ValueType.time) == "14:00"
    assert render_like("Wednesday", "2026-12-01", ValueType.date) == "Tuesday"
    assert render_like("2019", "2020-03-15", ValueType.year) == "2020"
    # a day of the month said alone stays alone; with its month, the month stays
    assert render_like("16th", "2026-12-15", ValueType.date) == "15th"
    assert render_like("the 2nd", "2026-12-01", ValueType.date) == "1st"
    assert render_like("December 16th", "2026-12-15", ValueType.date) == "December 15th"
    assert render_like("16 December", "2026-12-15", ValueType.date) == "15 December"
    assert render_like("Marketing", "Engineering", ValueType.enum) == "Engineering"


def test_several_corrections_keep_every_span_valid(engine):
    reply = (
        "The Budget Review is on Wednesday at 3pm. Sarah works in Finance and Emily "
        "works in Marketing."
    )
    result = check(engine, reply, "When is the budget review?")
    corrected = result.corrected
    fixes = [c for c in corrected.corrections if c.correction_type == CorrectionType.Factual]
    assert [c.replacement for c in fixes] == ["Tuesday", "2pm", "Marketing", "Finance"]
    assert corrected.corrected == (
        "The Budget Review is on Tuesday at 2pm. Sarah works in "
        "Marketing and Emily works in Finance."
    )
    for c in corrected.corrections:
        assert reply[c.span.start : c.span.end] == c.original
        if c.replacement is not None:
            assert (
                corrected.corrected[c.corrected_span.start : c.corrected_span.end] == c.replacement
            )


def test_annotation_styles(seed_kb):
    reply = "Rebecca Stone <b>definitely</b> leads the Zeta team & more."
    texts = {}
    for style in ("plain", "markdown", "html"):
        engine = Engine(seed_kb, annotation_style=style)
        texts[style] = engine.postprocess(reply, "", reference_time=REFERENCE).corrected.annotated
    assert "Rebecca Stone [possible hallucination]" in texts["plain"]
    assert "**Rebecca Stone** _[possible hallucination]_" in texts["markdown"]
    html = texts["html"]
    assert (
        '<mark class="replyguard-possible-hallucination" title="possible hallucination">'
        "Rebecca Stone</mark>" in html
    )
    assert "&lt;b&gt;definitely&lt;/b&gt;" in html and "&amp; more" in html
    assert "<b>" not in html


def test_unverifiable_claims_are_marked(engine):
    result = check(engine, "Acme Corp was founded in 1999.", "When was Acme founded?")
    assert result.factual_validation.claim_validations[0].status.kind == "Unverifiable"
    assert result.corrected.annotated == "Acme Corp was founded in 1999 [unverified]."


def test_max_corrections_and_auto_correct_from_config(seed_kb):
    reply = "Sarah works in Finance and Emily works in Marketing."
    capped = Engine(seed_kb, config={"max-corrections": 1}).postprocess(
        reply, "", reference_time=REFERENCE
    )
    assert (
        len(
            [c for c in capped.corrected.corrections if c.correction_type == CorrectionType.Factual]
        )
        == 1
    )
    off = Engine(seed_kb, config={"auto-correct": False}).postprocess(
        reply, "", reference_time=REFERENCE
    )
    assert off.corrected is None
    assert off.factual_validation.stats.claims_contradicted == 2
