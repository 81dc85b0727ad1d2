"""Where a correction put the right value back (evaluation/signals.py): stray one- or two-letter
alignments of the wrong value with the right one ("$49.22." against "$12.57.", "an Ink Drawing"
against "a Watercolour Painting") anchor nothing, and a relative day put back as the date it
means is right."""

from __future__ import annotations

from datetime import datetime

from replyguard.evaluation.signals import corrected_in_place, corrected_region

FRIDAY = datetime(2031, 5, 2)


def _at(perturbed: str, corrected: str, wrong: str, right: str, **kw) -> bool:
    start = perturbed.index(wrong)
    return corrected_in_place(perturbed, corrected, start, start + len(wrong), right, **kw)


def test_a_price_put_back_is_found_whole_though_its_digits_align_with_the_wrong_one():
    perturbed = "Your parcel is on its way. Postage came to $49.22."
    corrected = "Your parcel is on its way. Postage came to $12.57."
    start = perturbed.index("$49.22")
    assert corrected_region(perturbed, corrected, start, start + 6).strip(".") == "$12.57"
    assert _at(perturbed, corrected, "$49.22", "$12.57")


def test_a_name_put_back_after_a_changed_article_is_found_whole():
    perturbed = "Your class is an Ink Drawing session."
    corrected = "Your class is a Watercolour Painting session."
    assert _at(perturbed, corrected, "Ink Drawing", "Watercolour Painting")
    perturbed = "The Rowan Room is an Art Deco space."
    assert _at(perturbed, "The Rowan Room is a Mid Century space.", "Art Deco", "Mid Century")


def test_a_wrong_value_left_in_place_is_not_corrected():
    perturbed = "The ferry sails at 4:15 pm from the east pier."
    assert not _at(perturbed, perturbed, "4:15 pm", "4:45 pm")
    assert not _at(perturbed, perturbed.replace("east", "west"), "4:15 pm", "4:45 pm")


def test_a_relative_day_put_back_as_its_date_is_right_given_the_reference_time():
    perturbed = "Your tasting is booked for tomorrow at noon."
    corrected = "Your tasting is booked for May 2 at noon."
    assert not _at(perturbed, corrected, "tomorrow", "today")
    assert _at(perturbed, corrected, "tomorrow", "today", reference=FRIDAY)
    assert _at(perturbed, corrected, "tomorrow", "2031-05-02", reference=FRIDAY)
    assert not _at(perturbed, corrected, "tomorrow", "2031-05-03", reference=FRIDAY)


def test_an_article_changed_before_the_value_stays_out_of_it():
    perturbed = "The nearest bakery is a Crumb Corner on Vale Road."
    corrected = "The nearest bakery is an Oat House on Vale Road."
    assert _at(perturbed, corrected, "Crumb Corner", "Oat House")


def test_a_full_stop_after_the_value_at_the_end_stays_out_of_it():
    perturbed = "The kiln is fired at 9 sharp."
    corrected = "The kiln is fired at 7:30am."
    start = perturbed.index("9 sharp")
    assert corrected_region(perturbed, corrected, start, start + 7) == "7:30am"
    perturbed = "Doors open at 6pm."
    start = perturbed.index("6pm")
    assert corrected_region(perturbed, "Doors open at 5pm.", start, start + 3) == "5pm"
