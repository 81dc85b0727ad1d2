"""Values said of the entity in focus (issue 11, classes 1 and 4): a reply that names no entity
("It goes up at 9 pm", "You can ring them on ...") speaks of the entity the dialogue last
offered; rows sharing a name are told apart by what the dialogue said of them ("tomorrow"); a
lexicon cue finds the KB's own column for it; a question's "today" dates nothing."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase, Turn

REFERENCE = datetime(2026, 12, 1, 10, 0)  # a Tuesday

KB = {
    "entities": [
        {
            "id": "ferry_wed",
            "name": "Night Ferry",
            "attributes": {
                "date": "2026-12-02",
                "curtain": "19:30",
                "seat_price": "$24",
                "venue": "Corn Exchange",
            },
        },
        {
            "id": "ferry_sat",
            "name": "Night Ferry",
            "attributes": {
                "date": "2026-12-05",
                "curtain": "14:00",
                "seat_price": "$18",
                "venue": "Corn Exchange",
            },
        },
        {
            "id": "orchard",
            "name": "Glass Orchard",
            "attributes": {
                "date": "2026-12-03",
                "curtain": "20:00",
                "seat_price": "$30",
                "venue": "Old Kiln",
                "box_office": "22 Malt Street",
                "first_staged": "2019",
            },
        },
        {
            "id": "joinery",
            "name": "Brackenfield Joinery",
            "attributes": {"phone": "0161 555 0142", "workshop_address": "14 Weir Street"},
        },
        {
            "id": "desk",
            "name": "Kiln Box Office",
            "type": "Organization",
            "attributes": {"online_booking_surcharge": "$2"},
        },
        {
            "id": "holt",
            "name": "Holt Cabinets",
            "attributes": {"phone": "0161 555 0871", "workshop_address": "3 Tanner Row"},
        },
    ],
    "schema": {
        "date": {"value_type": "date"},
        "curtain": {"value_type": "time"},
        "seat_price": {"value_type": "money"},
        "phone": {"value_type": "phone"},
        "first_staged": {"value_type": "year"},
        "workshop_address": {"value_type": "text", "cues": ["workshop address"]},
    },
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(KnowledgeBase.model_validate(KB))


def _turns(*texts: str) -> list[Turn]:
    roles = ("user", "assistant")
    return [Turn(id=f"T{k + 1}", speaker=roles[k % 2], text=text) for k, text in enumerate(texts)]


def _verdicts(engine: Engine, reply: str, turns: list[Turn]) -> dict:
    result = engine.postprocess(reply, turns[-1].text, turns, reference_time=REFERENCE)
    fv = result.factual_validation
    status = {v.claim_id: v.status for v in fv.claim_validations}
    return {(c.subject_id, c.predicate, c.object): status[c.id] for c in fv.claims}


def _contradicted(verdicts: dict, key: tuple[str, str, str], kb_value: str) -> None:
    status = verdicts[key]
    assert status.kind == "Contradicted" and status.kb_value == kb_value


OFFERED = _turns(
    "Is there a play on this week?",
    "Glass Orchard is on at the Old Kiln.",
    "When does it start?",
)


def test_a_time_with_no_subject_is_the_offered_entitys(engine: Engine) -> None:
    wrong = _verdicts(engine, "It goes up at 9 pm.", OFFERED)
    _contradicted(wrong, ("orchard", "curtain", "9 pm"), "20:00")
    right = _verdicts(engine, "It goes up at 8 pm.", OFFERED)
    assert right[("orchard", "curtain", "8 pm")].kind == "Verified"


def test_a_clause_opened_by_a_noun_phrase_states_the_focus_entitys_time(engine: Engine) -> None:
    verdicts = _verdicts(engine, "The show begins at 9 pm.", OFFERED)
    assert verdicts[("orchard", "curtain", "9 pm")].kind == "Contradicted"


def test_a_bare_year_is_the_focus_entitys_one_year(engine: Engine) -> None:
    turns = [*OFFERED[:2], Turn(id="T3", speaker="user", text="Is it new?")]
    verdicts = _verdicts(engine, "No, it first ran 2016.", turns)
    _contradicted(verdicts, ("orchard", "first_staged", "2016"), "2019")


def test_a_street_address_is_the_focus_entitys_one_street(engine: Engine) -> None:
    turns = [*OFFERED[:2], Turn(id="T3", speaker="user", text="Where do I collect tickets?")]
    verdicts = _verdicts(engine, "It's 40 Barley Road.", turns)
    _contradicted(verdicts, ("orchard", "box_office", "40 Barley Road"), "22 Malt Street")
    # a number of people is no address, and names no attribute of the play
    assert not _verdicts(engine, "It's 4 people.", turns)


def test_a_noun_phrase_clause_states_the_one_attribute_of_its_type(engine: Engine) -> None:
    verdicts = _verdicts(engine, "The evening will come to $35 a head.", OFFERED)
    _contradicted(verdicts, ("orchard", "seat_price", "$35"), "$30")


def test_a_relative_day_said_earlier_tells_apart_rows_sharing_a_name(engine: Engine) -> None:
    turns = _turns(
        "Anything at the Corn Exchange?",
        "Night Ferry plays tomorrow at the Corn Exchange.",
        "What time?",
    )
    wrong = _verdicts(engine, "It starts at 2 pm.", turns)
    # the Saturday row holds 2 pm; the one played tomorrow (Wednesday) starts at 19:30
    _contradicted(wrong, ("ferry_wed", "curtain", "2 pm"), "19:30")


def test_they_of_an_entity_of_unknown_kind_is_that_entity(engine: Engine) -> None:
    turns = _turns("Who could fit new shelves?", "Brackenfield Joinery does that.", "Number?")
    verdicts = _verdicts(engine, "You can ring them on 0161 555 0199.", turns)
    _contradicted(verdicts, ("joinery", "phone", "0161 555 0199"), "0161 555 0142")


def test_a_lexicon_cue_finds_the_column_the_kb_names_for_it(engine: Engine) -> None:
    turns = _turns("Who could fit new shelves?", "Brackenfield Joinery does that.", "Where?")
    verdicts = _verdicts(engine, "The address is 9 Foundry Lane.", turns)
    _contradicted(verdicts, ("joinery", "workshop_address", "9 Foundry Lane"), "14 Weir Street")


def test_today_in_a_question_dates_nothing(engine: Engine) -> None:
    turns = [*OFFERED[:2], Turn(id="T3", speaker="user", text="Lovely, thanks.")]
    verdicts = _verdicts(engine, "Can I help with anything else today?", turns)
    assert not [key for key in verdicts if key[1] == "date"]
    # stated, not asked, "today" is a claim on the date of the entity in focus
    stated = _verdicts(engine, "It plays today.", turns)
    assert any(key[1] == "date" and s.kind == "Contradicted" for key, s in stated.items())


def test_a_row_holding_the_value_wins_over_the_row_in_focus(engine: Engine) -> None:
    turns = _turns(
        "Anything at the Corn Exchange?",
        "Night Ferry plays tomorrow at the Corn Exchange.",
        "Any other days?",
    )
    verdicts = _verdicts(
        engine, "There is another Night Ferry on Saturday at the Corn Exchange.", turns
    )
    dated = {key[0]: s.kind for key, s in verdicts.items() if key[1] == "date"}
    assert dated == {"ferry_sat": "Verified"}


SLOTS = {
    "entities": [
        {
            "id": "slot",
            "attributes": {"day": "2026-12-04", "window_start": "09:30", "window_end": "12:30"},
        }
    ],
    "schema": {
        "day": {"value_type": "date"},
        "window_start": {"value_type": "time"},
        "window_end": {"value_type": "time"},
    },
}


def test_each_end_of_a_range_is_the_bound_its_own_words_say() -> None:
    slots = Engine(KnowledgeBase.model_validate(SLOTS))
    turns = _turns("When can I collect the sander?")
    right = _verdicts(
        slots, "On Friday the desk has a slot that begins at 9:30 am and ends at 12:30 pm.", turns
    )
    assert right[("slot", "window_start", "9:30 am")].kind == "Verified"
    assert right[("slot", "window_end", "12:30 pm")].kind == "Verified"
    wrong = _verdicts(
        slots, "On Friday the desk has a slot that begins at 10:30 am and ends at 12:30 pm.", turns
    )
    _contradicted(wrong, ("slot", "window_start", "10:30 am"), "09:30")


def test_an_attribute_the_sentence_names_of_another_entity_wins_over_focus(engine: Engine) -> None:
    verdicts = _verdicts(engine, "Booking online adds a $3 surcharge.", OFFERED)
    assert verdicts[("desk", "online_booking_surcharge", "$3")].kind == "Contradicted"
    assert not [key for key in verdicts if key[0] == "orchard"]
