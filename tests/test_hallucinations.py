"""One test per hallucination type (DESIGN §5.3), reference date 2026-11-30."""

from __future__ import annotations

from conftest import check

from replyguard.models import HallucinationType as H
from replyguard.models import Turn


def _flags(result, kind):
    return [f for f in result.hallucination_flags if f.hallucination_type == kind]


def test_fabricated_founding_fact(engine):
    result = check(engine, "Acme Corp was founded in 1999 by three engineers.")
    [flag] = _flags(result, H.FabricatedFact)
    assert "founded" in flag.reason and flag.content.startswith("Acme Corp")


def test_fabricated_fact_about_unknown_subject(engine):
    result = check(engine, "Mike Brown's email is mike.brown@company.com.")
    [flag] = _flags(result, H.FabricatedFact)
    assert flag.confidence == 0.85


def test_nonexistent_person(engine):
    result = check(engine, "Please ask Rebecca Stone in accounting.")
    [flag] = _flags(result, H.NonexistentEntity)
    assert flag.content == "Rebecca Stone"


def test_wrong_department_belongs_to_someone_else(engine):
    result = check(engine, "Emily Chen works in Marketing.")
    [wrong] = _flags(result, H.WrongAttribute)
    assert "Sarah Johnson" in wrong.reason and wrong.content == "Marketing"
    assert _flags(result, H.ContradictsFact)


def test_kb_contradicting_weekday(engine):
    result = check(
        engine, "The Budget Review is on Wednesday at 2pm.", "When is the budget review?"
    )
    statuses = {
        c.predicate: v.status.kind
        for c, v in zip(
            result.factual_validation.claims,
            result.factual_validation.claim_validations,
            strict=True,
        )
    }
    assert statuses == {"date": "Contradicted", "time": "Verified"}
    [flag] = _flags(result, H.ContradictsFact)
    assert flag.content == "Wednesday"
    assert result.corrected.corrected == "The Budget Review is on Tuesday at 2pm."


def test_contradicting_an_earlier_turn(engine):
    turns = [Turn(id="T1", speaker="user", text="Emily's phone number is 617-555-0101.")]
    result = check(engine, "Emily's phone is 617-555-0199.", "How do I reach Emily?", turns)
    [flag] = _flags(result, H.ContradictsPrior)
    assert flag.evidence[0].turn_id == "T1"
    assert result.factual_validation.claim_validations[0].status.kind == "HistoryConflict"


def test_the_kb_overrules_an_earlier_turn(engine):
    turns = [Turn(id="T1", speaker="assistant", text="Sarah works in Sales.")]
    result = check(engine, "Sarah works in Marketing.", "Where does Sarah work?", turns)
    assert result.factual_validation.claim_validations[0].status.kind == "Verified"
    assert not _flags(result, H.ContradictsPrior)  # the earlier turn was the mistake


def test_unsupported_statistic_from_studies(engine):
    result = check(engine, "Studies show that 40% of employees prefer remote work.")
    [flag] = _flags(result, H.UnsupportedClaim)
    assert flag.confidence > 0.5  # sourced-sounding and a statistic


def test_completed_before_it_started(engine):
    result = check(
        engine, "The project was completed in March 2024, before it started in June 2024."
    )
    assert _flags(result, H.TemporalError)


def test_last_year_in_2026(engine):
    result = check(engine, "We launched the product last year in 2026.")
    [flag] = _flags(result, H.TemporalError)
    assert flag.content == "last year in 2026"


def test_past_tense_about_a_future_date(engine):
    result = check(engine, "The conference was held on December 5, 2026.")
    [flag] = _flags(result, H.TemporalError)
    assert flag.content == "December 5, 2026"


def test_a_plan_in_the_past_tense_is_fine(engine):
    result = check(engine, "The conference was moved to December 5, 2026.")
    assert not _flags(result, H.TemporalError)


def test_year_far_beyond_reference(engine):
    assert _flags(check(engine, "The office will open in 2045."), H.TemporalError)
    assert not _flags(check(engine, "The office will open in 2028."), H.TemporalError)


def test_running_and_not_running(engine):
    result = check(engine, "The server is both running and not running.")
    [flag] = _flags(result, H.LogicalInconsistency)
    assert flag.confidence == 0.95


def test_two_values_for_one_attribute(engine):
    result = check(
        engine, "John's email is john.smith@company.com and his email is jsmith@company.com."
    )
    assert _flags(result, H.LogicalInconsistency)


def test_hedging_lowers_and_certainty_raises(engine):
    plain = _flags(check(engine, "Rebecca Stone leads the team."), H.NonexistentEntity)[0]
    hedged = _flags(check(engine, "I think Rebecca Stone leads the team."), H.NonexistentEntity)[0]
    sure = _flags(check(engine, "Rebecca Stone definitely leads the team."), H.NonexistentEntity)[0]
    assert hedged.confidence < plain.confidence < sure.confidence


def test_a_confirmation_must_restate_the_request(engine):
    request = [
        Turn(
            id="T1",
            speaker="user",
            text="Schedule my 10 am dentist appointment on Friday with my father.",
        )
    ]
    wrong = check(
        engine,
        "Okay, I have scheduled your dentist appointment for this Friday at 2 pm with your father.",
        "",
        request,
    )
    [flag] = _flags(wrong, H.ContradictsPrior)
    assert flag.content == "2 pm" and flag.evidence[0].turn_id == "T1"
    right = check(
        engine,
        "Okay, I have scheduled your dentist appointment for this Friday at "
        "10 am with your father.",
        "",
        request,
    )
    assert not _flags(right, H.ContradictsPrior)
    answer = check(engine, "Your dentist appointment is at 2 pm.", "", request)
    assert not _flags(answer, H.ContradictsPrior)  # an answer, not a confirmation


def test_a_later_user_turn_updates_the_request(engine):
    turns = [
        Turn(speaker="user", text="schedule a yoga activity at 9am with my sister"),
        Turn(speaker="assistant", text="Sure! Do you want me to schedule it for tomorrow?"),
        Turn(speaker="user", text="No, schedule my yoga activity for today."),
    ]
    ok = check(engine, "Okay, scheduling your yoga activity for today at 9am.", "", turns)
    assert not _flags(ok, H.ContradictsPrior)
    wrong = check(engine, "Okay, scheduling your yoga activity for tomorrow at 9am.", "", turns)
    assert [f.content for f in _flags(wrong, H.ContradictsPrior)] == ["tomorrow"]
    later = check(engine, "Okay, scheduling your yoga activity for today at 2pm.", "", turns)
    assert [f.content for f in _flags(later, H.ContradictsPrior)] == ["2pm"]  # 9am, asked first


def test_details_named_by_phrases_are_restated(engine):
    request = [
        Turn(
            id="T1",
            speaker="user",
            text="Set a reminder for dinner on the 8th at 3pm with my aunt.",
        )
    ]
    ok = check(
        engine, "Setting a reminder for dinner on the 8th at 3pm with your aunt.", "", request
    )
    assert not _flags(ok, H.ContradictsPrior)
    party = check(
        engine, "Setting a reminder for dinner on the 8th at 3pm with mother.", "", request
    )
    assert [f.content for f in _flags(party, H.ContradictsPrior)] == ["mother"]
    event = check(engine, "Your yoga class on the 8th at 3pm with your aunt is set.", "", request)
    # the subject of "... is set" names the event
    assert [f.content for f in _flags(event, H.ContradictsPrior)] == ["yoga class"]
    same = check(engine, "Okay, dinner on the 8th at 3pm with your aunt is set.", "", request)
    assert not _flags(same, H.ContradictsPrior)
    renamed = check(engine, "Reminder set for yoga class on the 8th at 3pm.", "", request)
    assert [f.content for f in _flags(renamed, H.ContradictsPrior)] == ["yoga class"]


def test_a_confirmed_task_ends_the_request(engine):
    turns = [
        Turn(speaker="user", text="Schedule dinner with Ana at 7pm."),
        Turn(speaker="assistant", text="Dinner with Ana at 7pm is set."),
        Turn(speaker="user", text="Also book a yoga class with my sister."),
    ]
    ok = check(engine, "Booking a yoga class at 9am with your sister.", "", turns)
    assert not _flags(ok, H.ContradictsPrior)  # 7pm and Ana belonged to the finished task
    wrong = check(engine, "Booking a yoga class at 9am with Ana.", "", turns)
    assert [f.content for f in _flags(wrong, H.ContradictsPrior)] == ["Ana"]


def test_an_opening_particle_does_not_hide_the_act_and_weekdays_restate_dates(engine):
    request = [
        Turn(speaker="user", text="Schedule my dentist appointment Monday August 8th at 3pm.")
    ]
    ok = check(
        engine, "Okay, I am scheduling your dentist appointment for Monday at 3pm.", "", request
    )
    assert not _flags(ok, H.ContradictsPrior)  # "Monday" restates "Monday August 8th"
    wrong = check(
        engine,
        "Okay, great, I am scheduling your dentist appointment for Tuesday at 3pm.",
        "",
        request,
    )
    assert [f.content for f in _flags(wrong, H.ContradictsPrior)] == ["Tuesday"]


def test_a_request_inside_a_longer_phrase_and_a_question_that_keeps_the_task_open(engine):
    turns = [
        # "remind me about" is a detail phrase; "remind me" within it still makes a request
        Turn(speaker="user", text="Remind me about my meeting with the vice president on Monday"),
        # restates the request but asks for more: the task stays open
        Turn(
            speaker="assistant", text="Scheduling your meeting with the vice president, what time?"
        ),
        Turn(speaker="user", text="It's at 6 pm to discuss the company picnic."),
    ]
    ok = (
        "Okay, setting a reminder about your meeting with the vice president on Monday at 6 pm"
        " to discuss the company picnic."
    )
    assert not _flags(check(engine, ok, "", turns), H.ContradictsPrior)
    wrong = check(engine, ok.replace("discuss the company picnic", "go over the budget"), "", turns)
    assert [f.content for f in _flags(wrong, H.ContradictsPrior)] == ["budget"]


def test_details_after_a_date_and_names_that_say_who_not_what(engine):
    request = [Turn(speaker="user", text="Please set a reminder for the 8th at 5 pm for yoga.")]
    wrong = check(
        engine, "Okay, reminder set for your swimming class on the 8th at 5pm.", "", request
    )
    assert [f.content for f in _flags(wrong, H.ContradictsPrior)] == ["swimming class"]
    medicine = [Turn(speaker="user", text="Set a reminder to take medicine with Jon at 5pm.")]
    ok = check(engine, "Reminder set for Jon to take medicine at 5pm.", "", medicine)
    assert not _flags(ok, H.ContradictsPrior)  # "for Jon" is who it is for, not the event


def test_a_request_marked_late_in_the_turn_and_an_event_stated_as_i_have_a(engine):
    request = [
        Turn(speaker="user", text="i have a meeting on the 12th of august at 5:50, remind me")
    ]
    wrong = check(
        engine, "I have set a reminder for your medicine on August 12th at 5:50", "", request
    )
    assert [f.content for f in _flags(wrong, H.ContradictsPrior)] == ["medicine"]
    ok = check(engine, "I have set a reminder for your meeting on August 12th at 5:50", "", request)
    assert not _flags(ok, H.ContradictsPrior)
    statement = [Turn(speaker="user", text="i have a meeting on the 12th of august at 5:50")]
    told = check(engine, "I have set a reminder for your medicine on August 12th.", "", statement)
    assert not _flags(told, H.ContradictsPrior)  # nothing was requested


def test_two_values_are_compared_only_within_one_subject_and_attribute(engine):
    # Sarah's two values are far apart, with claims about other people between them
    spread = check(
        engine,
        "Sarah Johnson works in Marketing. Emily Chen works in Finance. "
        "John Smith's phone is 617-555-0100. Sarah Johnson works in Legal.",
    )
    [flag] = _flags(spread, H.LogicalInconsistency)
    assert "Marketing" in flag.reason and "Legal" in flag.reason
    # one value each for three people is no inconsistency
    distinct = check(
        engine,
        "Sarah Johnson works in Marketing. Emily Chen works in Finance. "
        "John Smith works in Engineering.",
    )
    assert not _flags(distinct, H.LogicalInconsistency)
    # the same value said twice, once in other words, is no inconsistency either
    repeated = check(
        engine, "Emily Chen works in Finance. John Smith works in Engineering. Emily is in Finance."
    )
    assert not _flags(repeated, H.LogicalInconsistency)


def test_a_request_to_confirm_restates_how_many_were_asked_for(engine):
    turns = [
        Turn(speaker="user", text="Book me seats for the string quartet on Saturday."),
        Turn(speaker="assistant", text="How many seats do you need?"),
        Turn(speaker="user", text="Two seats, please."),
    ]
    wrong = check(
        engine, "Could you confirm 3 seats for the string quartet on Saturday?", "", turns
    )
    assert [f.content for f in _flags(wrong, H.ContradictsPrior)] == ["3"]
    right = check(engine, "Just to confirm: 2 seats for the string quartet on Saturday.", "", turns)
    assert not _flags(right, H.ContradictsPrior)
    # a number inside another value counts nothing: "at 7 pm" is a time, not 7 of "pm"
    later = check(engine, "Please confirm 2 seats on Saturday at 7 pm.", "", turns)
    assert not _flags(later, H.ContradictsPrior)
