"""Nonexistent entities, misspelt names and new-entity listing (DESIGN §5.3, §5.6)."""

from __future__ import annotations

from conftest import REFERENCE, check

from replyguard.models import HallucinationType, Turn


def _types(result):
    return [(f.hallucination_type, f.content) for f in result.hallucination_flags]


def test_unknown_person_is_a_nonexistent_entity(engine):
    result = check(engine, "You should contact Mike Brown from the Analytics team.")
    assert (HallucinationType.NonexistentEntity, "Mike Brown") in _types(result)
    flag = next(f for f in result.hallucination_flags if f.content == "Mike Brown")
    assert flag.confidence >= 0.8  # a two-word proper name


def test_misspelt_known_name_is_reported_not_flagged(engine):
    result = check(engine, "You should contact Jon Smith about the budget.")
    assert all(
        f.hallucination_type != HallucinationType.NonexistentEntity
        for f in result.hallucination_flags
    )
    assert [(n.name, n.similar_to) for n in result.new_entities] == [("Jon Smith", "John Smith")]


def test_misspelt_name_still_carries_claims(engine):
    result = check(engine, "Jon Smith works in Engineering.")
    validation = result.factual_validation.claim_validations[0]
    assert result.factual_validation.claims[0].subject_id == "E42"
    assert validation.status.kind == "Verified"


def test_names_from_the_dialogue_are_not_nonexistent(engine):
    from replyguard.models import Turn

    turns = [Turn(speaker="user", text="I met Priya Patel from the vendor yesterday.")]
    result = check(engine, "Priya Patel can join the call.", "Who can join?", turns)
    assert all(f.content != "Priya Patel" for f in result.hallucination_flags)
    assert result.new_entities == []


def test_sentence_initial_word_is_not_a_name(engine):
    result = check(engine, "Noted. Thanks for the update.")
    assert result.new_entities == []
    assert result.hallucination_flags == []


def test_new_entity_guessed_types(engine):
    result = check(engine, "Please email Maria Lopez at the Globex Corp office in Springfield.")
    guessed = {n.name: n.guessed_type.value for n in result.new_entities}
    assert guessed["Maria Lopez"] == "Person"
    assert guessed["Globex Corp"] == "Organization"
    assert guessed["Springfield"] == "Location"


def test_sentence_opening_gerund_is_a_verb_not_a_name(engine):
    result = check(engine, "Navigating to the office now. Displaying the fastest route.")
    assert result.new_entities == []
    assert result.hallucination_flags == []
    # An -ing name with no common verb inside it is still a name.
    result = check(engine, "Irving can join the call.")
    assert [n.name for n in result.new_entities] == ["Irving"]


def test_an_open_world_kb_makes_absence_weak_evidence(engine, seed_kb):
    from conftest import REFERENCE

    from replyguard.engine import Engine

    reply = "You should contact Mike Brown from the Analytics team."
    closed = engine.postprocess(reply, "", reference_time=REFERENCE)
    opened = Engine(seed_kb.model_copy(update={"world": "open"})).postprocess(
        reply, "", reference_time=REFERENCE
    )

    def confidence(result):
        return next(f.confidence for f in result.hallucination_flags if f.content == "Mike Brown")

    assert confidence(closed) >= 0.8
    assert 0.5 <= confidence(opened) < 0.8  # still reported, no longer high-confidence
    assert opened.hallucination_flags[0].explanation.rule.endswith(" open)")


def test_initials_belong_to_the_name_and_interjections_are_no_names(engine):
    named = check(engine, "Oh, that book was written by J.K. Rowling. Im sure of it.", "")
    assert [
        content for kind, content in _types(named) if kind == HallucinationType.NonexistentEntity
    ] == ["J.K. Rowling"]
    adverb = check(engine, "Interestingly, the budget review is on Monday.", "")
    assert not [k for k, _ in _types(adverb) if k == HallucinationType.NonexistentEntity]


def test_a_place_written_in_lower_case_is_a_name_after_in_or_for():
    from replyguard.engine import Engine
    from replyguard.kb import kb_from_rows

    engine = Engine(
        kb_from_rows([{"location": "menlo park", "monday": "foggy"}], name_column="location")
    )

    def unknown(text):
        return _unknown(engine, text)

    assert unknown("It will be foggy in danville on Monday.") == ["danville"]
    assert unknown("There is no frost forecast for grand rapids this week.") == ["grand rapids"]
    assert unknown("It will be foggy in menlo park on Monday.") == []  # the KB's own
    assert unknown("You can listen to it in reading mode.") == []  # a common word, not a place
    assert unknown("I was born in danville.") == ["danville"]
    assert unknown("danville is nice.") == []  # not after "in", "for", ...: only words


def test_an_event_named_by_common_nouns_that_the_calendar_lacks_is_nonexistent():
    from replyguard.engine import Engine
    from replyguard.kb import kb_from_rows

    calendar = kb_from_rows(
        [
            {"event": "dinner", "date": "the 6th", "time": "5pm"},
            {"event": "taking medicine", "date": "the 7th", "time": "8am"},
        ],
        name_column="event",
        entity_type="Event",
    )
    engine = Engine(calendar)

    def unknown(text, asked=""):
        return _unknown(engine, text, asked)

    assert unknown("Your tennis activity is at 11 am on Monday.") == ["tennis activity"]
    assert unknown("You have a lab appointment at 5pm.") == ["lab appointment"]
    assert unknown("Your dinner is at 5pm on the 6th.") == []  # the KB's
    assert unknown("Your medicine is at 8am.") == []  # "taking medicine", by a word of its name
    assert unknown("Your next appointment is at 5pm.") == []  # generic words name no event
    assert unknown("Your yoga class is set for 5pm.", "Remind me of yoga at 5pm") == []
    assert unknown("Your brother is coming along.") == []  # no date or time: no event
    assert unknown("Your booking is complete, the dinner is at 5pm.") == []  # another clause


def test_capitalised_common_words_are_names_where_they_stand_alone_or_inside_a_name():
    from replyguard.engine import Engine
    from replyguard.kb import kb_from_rows

    engine = Engine(
        kb_from_rows(
            [{"poi": "Valero", "address": "200 Alester Ave", "poi_type": "gas station"}],
            name_column="poi",
        )
    )

    def unknown(text):
        return _unknown(engine, text)

    assert unknown("The nearest gas station is Shell at 200 Alester Ave.") == ["Shell"]
    assert unknown("Directions to Shell are on your screen.") == ["Shell"]
    assert unknown("Pizza My Heart is the closest pizza place.") == ["Pizza My Heart"]
    assert unknown("There are two Chinese restaurants and some Coffee places nearby.") == []


def _unknown(engine, text, asked=""):
    """The NonexistentEntity flags on a reply to `asked` (the only earlier turn, if any)."""
    turns = [Turn(id="T1", speaker="user", text=asked)] if asked else []
    result = engine.postprocess(text, asked, turns, reference_time=REFERENCE)
    return [
        f.content
        for f in result.hallucination_flags
        if f.hallucination_type == HallucinationType.NonexistentEntity
    ]
