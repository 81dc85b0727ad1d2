"""The evaluation harness's adapters, perturbations, scoring and metrics on tiny inline fixtures.

The fixtures copy the shape of the real records (KVRET dialogues with their KB table, HaluEval
JSON lines, BEGIN TSV rows) in miniature; nothing here reads ../shared, so the tests run on a
fresh checkout.
"""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from replyguard.errors import InputError
from replyguard.evaluation import begin, halueval, kvret, metrics, scoring, signals
from replyguard.evaluation.cases import EvalCase, GoldTurn, Perturbation, PerturbationKind
from replyguard.evaluation.perturb import (
    entity_swap,
    mentions_in_reply,
    perturbations,
    prior_contradiction,
    qud_swap,
    temporal_shift,
    value_swap,
)
from replyguard.models import (
    Case,
    Claim,
    ClaimValidation,
    CoherenceResult,
    Contradicted,
    CorrectedResponse,
    DiscourseCoherenceResult,
    EntityConsistencyResult,
    FactualValidationResult,
    HallucinationFlag,
    HallucinationType,
    HistoryConflict,
    PostprocessedResponse,
    QUDRelevanceResult,
    QuestionType,
    Recommendation,
    RecommendationKind,
    ReferenceConsistencyResult,
    Span,
    TopicConsistencyResult,
    Unverifiable,
)

# --------------------------------------------------------------------------- KVRET fixtures


def _turn(who: str, text: str, slots: dict | None = None) -> dict:
    data: dict = {"end_dialogue": False, "utterance": text}
    if who == "assistant":
        data |= {"requested": {}, "slots": slots or {}}
    return {"turn": who, "data": data}


def _dialogue(uuid: str, intent: str, title: str, columns: list, items: list | None, turns: list):
    return {
        "dialogue": turns,
        "scenario": {
            "kb": {"items": items, "column_names": columns, "kb_title": title},
            "task": {"intent": intent},
            "uuid": uuid,
        },
    }


_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_SKIES = ["snow", "overcast", "hail", "drizzle", "raining", "cloudy", "dew"]


def _forecast(location: str, shift: int, today: str) -> dict:
    row = {
        day: f"{_SKIES[(i + shift) % 7]}, low of {20 + 10 * ((i + shift) % 7)}F, "
        f"high of {40 + 10 * ((i + shift) % 7)}F"
        for i, day in enumerate(_DAYS)
    }
    return row | {"location": location, "today": today}


WEATHER = _dialogue(
    "w1",
    "weather",
    "weekly forecast",
    ["location", *_DAYS, "today"],
    [_forecast("boston", 0, "wednesday"), _forecast("fresno", 3, "wednesday")],
    [
        _turn("driver", "Will it rain in boston on friday?"),
        _turn(
            "assistant",
            "It will be raining in Boston on Friday, with a low of 60F.",
            {"location": "Boston", "date": "Friday"},
        ),
        _turn("driver", "Thanks."),
        _turn("assistant", "You're welcome!"),
    ],
)
WEATHER_2 = _dialogue(
    "w2",
    "weather",
    "weekly forecast",
    ["location", *_DAYS, "today"],
    [_forecast("seattle", 1, "monday")],
    [
        _turn("driver", "what is the forecast for seattle"),
        _turn("assistant", "Seattle will be overcast on Monday."),
    ],
)
NAV_COLUMNS = ["poi", "poi_type", "address", "distance", "traffic_info"]
NAVIGATE = _dialogue(
    "n1",
    "navigate",
    "location information",
    NAV_COLUMNS,
    [
        {
            "poi": "Valero",
            "poi_type": "gas station",
            "address": "200 Alester Ave",
            "distance": "2 miles",
            "traffic_info": "road block nearby",
        },
        {
            "poi": "Chevron",
            "poi_type": "gas station",
            "address": "783 Alma St",
            "distance": "5 miles",
            "traffic_info": "no traffic",
        },
        {
            "poi": "Teavana",
            "poi_type": "coffee or tea place",
            "address": "145 Amherst St",
            "distance": "1 miles",
            "traffic_info": "heavy traffic",
        },
    ],
    [
        _turn("driver", "Address to the gas station "),
        _turn("assistant", "Valero is located at 200 Alester Ave. ", {"poi_type": "gas station"}),
    ],
)
NAVIGATE_2 = _dialogue(
    "n2",
    "navigate",
    "location information",
    NAV_COLUMNS,
    [
        {
            "poi": "Shell",
            "poi_type": "gas station",
            "address": "53 University Av",
            "distance": "4 miles",
            "traffic_info": "moderate traffic",
        },
        {
            "poi": "5672 barringer street",
            "poi_type": "gas station",
            "address": "5672 barringer street",
            "distance": "3 miles",
            "traffic_info": "no traffic",
        },
    ],
    [_turn("driver", "where is shell"), _turn("assistant", "Shell is at 53 University Av.")],
)
CALENDAR = _dialogue(
    "s1",
    "schedule",
    "calendar",
    ["event", "time", "date", "room", "agenda", "party"],
    [
        {
            "event": "dentist",
            "time": "2 pm",
            "date": "tuesday",
            "room": "-",
            "agenda": "-",
            "party": "-",
        },
        {
            "event": "yoga activity",
            "time": "5pm",
            "date": "tuesday",
            "room": "-",
            "agenda": "-",
            "party": "-",
        },
        {
            "event": "meeting",
            "time": "11am",
            "date": "the 8th",
            "room": "conference room 100",
            "agenda": "go over budget",
            "party": "HR",
        },
    ],
    [
        _turn("driver", "When is my dentist appointment?"),
        _turn("assistant", "Your dentist is on Tuesday at 2 pm.", {"event": "dentist"}),
    ],
)
NEW_EVENT = _dialogue(
    "s2",
    "schedule",
    "calendar",
    ["event", "time", "date", "room", "agenda", "party"],
    None,
    [
        _turn("driver", "Schedule a meeting with HR on Monday at 11am."),
        _turn(
            "assistant",
            "Okay, I set a meeting with HR for Monday at 11am.",
            {"event": "meeting", "party": "HR", "date": "Monday", "time": "11am"},
        ),
    ],
)
DIALOGUES = [WEATHER, WEATHER_2, NAVIGATE, NAVIGATE_2, CALENDAR, NEW_EVENT]


@pytest.fixture(scope="module")
def vocab():
    return kvret.vocabulary(DIALOGUES)


def _rng(seed: int = 0):
    import random

    return random.Random(seed)


# --------------------------------------------------------------------------- KVRET adapter


def test_weather_cells_split_into_sky_low_and_high_and_today_sets_the_reference_day():
    s = kvret.scene(WEATHER)
    boston = next(e for e in s.kb.entities if e.name == "boston")
    assert boston.type == "Location"
    assert boston.attributes["friday"] == "raining"
    assert boston.attributes["friday_low"] == "60F"
    assert boston.attributes["friday_high"] == "80F"
    assert "today" not in boston.attributes
    assert s.reference_time == datetime(2017, 5, 3)  # the anchor week's Wednesday
    assert s.kb.attribute_schema["friday_low"].value_type == "number"


def test_each_assistant_turn_is_a_case_answering_the_driver_turn_before_it():
    cases = list(kvret.dialogue_cases(WEATHER, None))
    assert [c.case_id for c in cases] == ["kvret/w1/T2", "kvret/w1/T4"]
    first = cases[0].case
    assert first.query == "Will it rain in boston on friday?"
    assert [t.speaker for t in first.dialogue.turns] == ["user"]
    assert first.dialogue.turns[-1].text == first.query
    assert first.response.startswith("It will be raining")
    assert first.turn_id == "T2" and first.session_id == "w1"
    assert [t.speaker for t in cases[1].case.dialogue.turns] == ["user", "assistant", "user"]
    assert Case.model_validate(first.model_dump(by_alias=True)) == first
    assert cases[0].truth == GoldTurn(dialogue_id="w1", intent="weather", turn_id="T2")


def test_calendar_dashes_are_absent_and_a_table_without_items_is_an_empty_kb():
    dentist = kvret.scene(CALENDAR).kb.entities[0]
    assert (dentist.name, dentist.type) == ("dentist", "Event")
    assert dentist.attributes == {"time": "2 pm", "date": "tuesday"}
    new_event = kvret.scene(NEW_EVENT)
    assert new_event.kb.entities == []
    assert new_event.reference_time == datetime(2017, 5, 1)


def test_navigation_rows_are_named_by_their_poi(tmp_path):
    path = tmp_path / "kvret_dev_public.json"
    path.write_text(json.dumps(DIALOGUES))
    cases = list(kvret.iter_kvret_cases(tmp_path, perturb=False))
    nav = next(c for c in cases if c.case_id == "kvret/n1/T2").case
    assert [e.name for e in nav.kb.entities] == ["Valero", "Chevron", "Teavana"]
    assert nav.response == "Valero is located at 200 Alester Ave."
    assert len(cases) == 7  # one per assistant turn


def test_a_missing_or_malformed_data_file_is_a_one_line_input_error(tmp_path):
    with pytest.raises(InputError, match="kvret_dev_public.json"):
        list(kvret.iter_kvret_cases(tmp_path))
    (tmp_path / "kvret_dev_public.json").write_text(json.dumps([{"dialogue": []}]))
    with pytest.raises(InputError, match="not a KVRET dialogue list"):
        list(kvret.iter_kvret_cases(tmp_path))


# --------------------------------------------------------------------------- perturbations


def _check_edit(made: EvalCase, gold: str) -> Perturbation:
    truth = made.truth
    assert isinstance(truth, Perturbation)
    perturbed = made.case.response
    assert gold[truth.source_start : truth.source_end] == truth.original
    assert perturbed[truth.start : truth.end] == truth.replacement
    assert perturbed[: truth.start] == gold[: truth.source_start]
    assert perturbed[truth.end :] == gold[truth.source_end :]
    assert truth.evidence_spans[0] == (truth.start, truth.end)
    return truth


def test_value_swap_puts_another_rows_value_of_the_same_column_in_place(vocab):
    s = kvret.scene(NAVIGATE)
    made = value_swap(s, 1, vocab, _rng())
    truth = _check_edit(made, s.turns[1].text)
    assert truth.kind is PerturbationKind.value_swap and truth.correctable
    assert truth.attribute == "address" and truth.original == "200 Alester Ave"
    assert truth.replacement in {"783 Alma St", "145 Amherst St"}
    assert made.case_id == "kvret/n1/T2/value_swap" and truth.source_id == "kvret/n1/T2"


def test_a_value_shared_by_two_entities_in_focus_is_not_perturbed(vocab):
    both = _dialogue(
        "s3",
        "schedule",
        "calendar",
        ["event", "time", "date"],
        CALENDAR["scenario"]["kb"]["items"],
        [
            _turn("driver", "what is on tuesday?"),
            _turn("assistant", "The dentist and the yoga activity are both on Tuesday."),
        ],
    )
    s = kvret.scene(both)
    assert mentions_in_reply(s, 1) == []
    assert value_swap(s, 1, vocab, _rng()) is None


def test_weather_facts_count_only_for_the_day_the_reply_names(vocab):
    s = kvret.scene(WEATHER)
    stated = {(m.attribute, m.value) for m in mentions_in_reply(s, 1)}
    assert stated == {("friday", "raining"), ("friday_low", "60F")}


def test_a_reply_that_names_no_entity_is_about_the_one_named_last_in_the_dialogue():
    later = _dialogue(
        "w3",
        "weather",
        "weekly forecast",
        ["location", *_DAYS, "today"],
        WEATHER["scenario"]["kb"]["items"],
        [
            _turn("driver", "What is the weather in fresno and boston?"),
            _turn("assistant", "Which one first?"),
            _turn("driver", "Boston, for friday."),
            _turn("assistant", "It will be raining on Friday."),
        ],
    )
    [mention] = mentions_in_reply(kvret.scene(later), 3)
    assert (mention.entity.name, mention.attribute) == ("boston", "friday")


def test_a_value_inside_a_question_is_not_a_stated_fact():
    asked = _dialogue(
        "n3",
        "navigate",
        "location information",
        NAV_COLUMNS,
        NAVIGATE["scenario"]["kb"]["items"],
        [
            _turn("driver", "find a gas station"),
            _turn("assistant", "Valero is 2 miles away. Shall I go to 200 Alester Ave?"),
        ],
    )
    stated = [m.value for m in mentions_in_reply(kvret.scene(asked), 1)]
    assert stated == ["2 miles"]


def test_entity_swap_uses_a_name_of_the_same_kind_that_the_kb_lacks(vocab):
    s = kvret.scene(NAVIGATE)
    made = entity_swap(s, 1, vocab, _rng())
    truth = _check_edit(made, s.turns[1].text)
    # Chevron is in this KB, Teavana is a coffee place, "5672 barringer street" is an address.
    assert (truth.original, truth.replacement) == ("Valero", "Shell")
    assert not truth.correctable


def test_temporal_shift_of_a_weather_day_picks_a_day_on_which_every_stated_value_differs(vocab):
    s = kvret.scene(WEATHER)
    made = temporal_shift(s, 1, vocab, _rng())
    truth = _check_edit(made, s.turns[1].text)
    assert truth.original == "Friday" and truth.attribute == "friday"
    new_day = truth.replacement.lower()
    boston = next(e for e in s.kb.entities if e.name == "boston")
    assert boston.attributes[new_day] != "raining" and boston.attributes[f"{new_day}_low"] != "60F"
    perturbed = made.case.response
    assert sorted(perturbed[a:b] for a, b in truth.evidence_spans[1:]) == ["60F", "raining"]
    assert not truth.correctable


def test_temporal_shift_of_a_calendar_time_keeps_the_replys_format(vocab):
    s = kvret.scene(CALENDAR)
    shifted = set()
    for seed in range(20):
        made = temporal_shift(s, 1, vocab, _rng(seed))
        truth = _check_edit(made, s.turns[1].text)
        assert truth.correctable and truth.original in {"Tuesday", "2 pm"}
        shifted.add(truth.replacement)
    times = {t for t in shifted if t[0].isdigit()}
    assert times and times <= {"5 pm", "11 am"}  # the other clock times of the file, spaced
    assert shifted - times <= {"Monday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}


def test_prior_contradiction_changes_a_value_the_driver_stated(vocab):
    s = kvret.scene(NEW_EVENT)
    made = prior_contradiction(s, 1, vocab, _rng())
    truth = _check_edit(made, s.turns[1].text)
    assert truth.original in {"meeting", "HR", "Monday", "11am"}
    assert truth.original.lower() in s.turns[0].text.lower()
    assert truth.replacement.lower() not in s.turns[0].text.lower()


def test_prior_contradiction_needs_a_stating_dialogue_without_kb_evidence(vocab):
    assert prior_contradiction(kvret.scene(CALENDAR), 1, vocab, _rng()) is None  # KB names it
    assert prior_contradiction(kvret.scene(WEATHER), 1, vocab, _rng()) is None  # a question


def test_qud_swap_asks_another_intents_opening_question_and_skips_thanks(vocab):
    s = kvret.scene(WEATHER)
    made = qud_swap(s, 1, vocab, _rng())
    assert made.case.response == s.turns[1].text
    assert made.case.query in {
        "Address to the gas station",
        "where is shell",
        "When is my dentist appointment?",
        "Schedule a meeting with HR on Monday at 11am.",
    }
    assert made.case.dialogue.turns[-1].text == made.case.query
    assert made.truth.original == "Will it rain in boston on friday?"
    assert qud_swap(s, 3, vocab, _rng()) is None  # answering "Thanks."


def test_perturbations_are_deterministic_and_do_not_depend_on_limit(tmp_path, vocab):
    path = tmp_path / "kvret_dev_public.json"
    path.write_text(json.dumps(DIALOGUES))
    full = [c for c in kvret.iter_kvret_cases(path, seed=7) if c.case_id.startswith("kvret/w1/")]
    limited = list(kvret.iter_kvret_cases(path, limit=1, seed=7))
    assert [(c.case_id, c.case.response, c.truth) for c in full] == [
        (c.case_id, c.case.response, c.truth) for c in limited
    ]
    kinds = {c.truth.kind for c in full if isinstance(c.truth, Perturbation)}
    assert kinds == {
        PerturbationKind.value_swap,
        PerturbationKind.entity_swap,
        PerturbationKind.temporal_shift,
        PerturbationKind.qud_swap,
    }
    s = kvret.scene(WEATHER)
    by_seed = {
        tuple(c.case.response for c in perturbations(s, 1, vocab, seed=seed)) for seed in range(8)
    }
    assert len(by_seed) > 1


# --------------------------------------------------------------------------- HaluEval

IRON_MAN = {
    "knowledge": "Iron Man is starring Robert Downey Jr.Robert Downey Jr. starred in Zodiac "
    "(Crime Fiction Film)Zodiac (Crime Fiction Film) is starring Jake Gyllenhaal",
    "dialogue_history": "[Human]: Do you like Iron Man [Assistant]: Sure do! Robert Downey Jr. "
    "is a favorite. [Human]: Yes i like him too did you know he also was in Zodiac a crime "
    "fiction film. ",
    "right_response": "I like crime fiction! Didn't know RDJ was in there. Jake Gyllenhaal "
    "starred as well.",
    "hallucinated_response": "I'm not a fan of crime movies, but I did know that RDJ starred "
    "in Zodiac with Tom Hanks.",
}


def test_concatenated_knowledge_sentences_split_where_the_walk_repeats_a_name():
    sentences = halueval.parse_knowledge(IRON_MAN["knowledge"])
    assert [(s.subject, s.relation, s.object) for s in sentences] == [
        ("Iron Man", "is starring", "Robert Downey Jr."),
        ("Robert Downey Jr.", "starred in", "Zodiac (Crime Fiction Film)"),
        ("Zodiac (Crime Fiction Film)", "is starring", "Jake Gyllenhaal"),
    ]


def test_a_boundary_without_a_repeat_splits_before_a_name_seen_earlier():
    text = (
        "Jonathan Levine wrote The Wackness. The Wackness is starring Jane AdamsThe Wackness "
        "has genre Romantic comedy"
    )
    assert [s.object for s in halueval.parse_knowledge(text)] == [
        "The Wackness",
        "Jane Adams",
        "Romantic comedy",
    ]


def test_every_fact_is_stored_from_both_ends_and_labels_read_their_inverse_marker():
    kb, count = halueval.knowledge_kb(
        "Michael Jackson : `~Lyricist`: Heal the WorldHeal the World : `Lyricist`: Michael "
        "Jackson. Michael Jackson : `Gender`: Male"
    )
    by_name = {e.name: e for e in kb.entities}
    assert count == 3
    assert by_name["Heal the World"].attributes["lyricist"] == "Michael Jackson"  # said twice
    assert by_name["Michael Jackson"].attributes["lyricist_of"] == "Heal the World"
    assert by_name["Michael Jackson"].gender == "Masculine"
    assert "Male" not in by_name

    kb, _ = halueval.knowledge_kb(
        "Thriller was released 19821982 was the year that released War Horse"
    )
    by_name = {e.name: e for e in kb.entities}
    assert by_name["Thriller"].attributes["release_year"] == "1982"
    assert kb.attribute_schema["release_year"].cardinality == "one"
    assert by_name["War Horse"].attributes["release_year"] == "1982"
    assert "1982" not in by_name  # a year is a value, not an entity

    kb, _ = halueval.knowledge_kb("سمفونی مردگان is written by عباس معروفی")
    assert len({e.id for e in kb.entities}) == 2  # no shared id for names in another script

    kb, _ = halueval.knowledge_kb(IRON_MAN["knowledge"])
    rdj = next(e for e in kb.entities if e.name == "Robert Downey Jr.")
    assert rdj.attributes["starred_in"] == ["Iron Man", "Zodiac (Crime Fiction Film)"]

    kb, _ = halueval.knowledge_kb("Moon is starring Kevin Spacey")
    assert kb.entities[0].attributes == {"starring": "Kevin Spacey"}
    # the one actor the walk names is not the whole cast
    assert kb.attribute_schema["starring"].cardinality == "many"
    assert kb.attribute_schema["starring"].value_type == "entity"


def test_relations_are_named_by_agent_nouns_too():
    from replyguard.engine import Engine

    kb, _ = halueval.knowledge_kb("Scarlet is written by Marissa Meyer")
    engine = Engine(kb)
    result = engine.postprocess("The author of Scarlet is J.K. Rowling.", "", [])
    statuses = [v.status.kind for v in result.factual_validation.claim_validations]
    assert statuses == ["Contradicted"]


def test_a_record_gives_a_right_and_a_hallucinated_case_over_the_same_history(tmp_path):
    (tmp_path / "dialogue_dev.jsonl").write_text(json.dumps(IRON_MAN) + "\n\n")
    right, wrong = halueval.iter_halueval_cases(tmp_path)
    assert (right.case_id, wrong.case_id) == ("halueval/1/right", "halueval/1/hallucinated")
    assert [t.speaker for t in right.case.dialogue.turns] == ["user", "assistant", "user"]
    assert right.case.query.startswith("Yes i like him too")
    assert right.case.dialogue == wrong.case.dialogue and right.case.turn_id == "T4"
    assert wrong.case.response.endswith("with Tom Hanks.")
    assert (right.truth.hallucinated, wrong.truth.hallucinated, right.truth.triples) == (
        False,
        True,
        3,
    )


def test_a_broken_halueval_line_names_its_line(tmp_path):
    (tmp_path / "dialogue_dev.jsonl").write_text(json.dumps(IRON_MAN) + '\n{"knowledge": 1}\n')
    with pytest.raises(InputError, match="line 2"):
        list(halueval.iter_halueval_cases(tmp_path))


# --------------------------------------------------------------------------- BEGIN

BEGIN_TSV = (
    "model_name\tdata_source\tknowledge\tmessage\tresponse\tbegin_label\n"
    "t5\twow\tcheerleading is an activity wherein the participants (referred to as "
    '"cheerleaders") cheer for their team.\ti love cheerleading!\tcheerleading is an activity '
    "where participants cheer for their team\tFully attributable\n"
    "gpt2\twow\tThe garment is mostly associated with the college culture of the Roaring "
    "Twenties.\tOh, Its have more shades\tI think there is a very large thread going into "
    "university .\tNot fully attributable\n"
)


def test_begin_rows_become_cases_with_the_knowledge_as_the_passage(tmp_path):
    (tmp_path / "begin_dev_wow.tsv").write_text(BEGIN_TSV)
    first, second = begin.iter_begin_cases(tmp_path)
    assert first.case_id == "begin/2"
    assert [t.speaker for t in first.case.dialogue.turns] == ["user"]
    [passage] = first.case.passages
    assert '"cheerleaders"' in passage
    assert first.case.query == "i love cheerleading!" and first.case.kb.entities == []
    assert first.case.kb.world == "open"
    assert first.truth.attributable and not second.truth.attributable
    assert [c.case_id for c in begin.iter_begin_cases(tmp_path, limit=1)] == ["begin/2"]


def test_an_unknown_begin_label_is_an_input_error(tmp_path):
    (tmp_path / "begin_dev_wow.tsv").write_text(BEGIN_TSV.replace("Fully attributable", "Yes"))
    with pytest.raises(InputError, match="line 2"):
        list(begin.iter_begin_cases(tmp_path))


# --------------------------------------------------------------------------- metrics


def test_auroc_is_the_mann_whitney_statistic_with_ties_counted_half():
    assert metrics.auroc([0.1, 0.4, 0.35, 0.8], [False, False, True, True]) == 0.75
    assert metrics.auroc([0.5, 0.5, 0.9], [True, False, True]) == 0.75
    assert metrics.auroc([1, 1, 1, 1], [True, False, False, False]) == 0.5
    assert metrics.auroc([0.9, 0.1], [False, True]) == 0.0
    assert metrics.auroc([0.2, 0.3], [True, True]) is None


def test_balanced_accuracy_averages_the_two_class_recalls():
    predicted = [True, True, True, False]
    actual = [True, False, False, False]
    assert metrics.balanced_accuracy(predicted, actual) == pytest.approx((1 + 1 / 3) / 2)
    assert metrics.accuracy(predicted, actual) == 0.5
    assert metrics.balanced_accuracy([True], [True]) is None
    with pytest.raises(ValueError):
        metrics.accuracy([True], [True, False])


def test_precision_recall_f1_and_their_undefined_cases():
    prf = metrics.precision_recall_f1(tp=3, fp=1, fn=3)
    assert (prf.precision, prf.recall) == (0.75, 0.5)
    assert prf.f1 == pytest.approx(0.6)
    assert metrics.precision_recall_f1(0, 0, 2).precision is None
    assert metrics.precision_recall_f1(0, 0, 2).f1 is None
    assert metrics.precision_recall_f1(0, 2, 2).f1 == 0.0


def test_pairwise_accuracy_gives_ties_half_credit():
    assert metrics.pairwise_accuracy([(0.9, 0.1), (0.5, 0.5), (0.2, 0.4)]) == 0.5
    assert metrics.pairwise_accuracy([]) is None


# --------------------------------------------------------------------------- scoring


def _result(
    text: str,
    *,
    contradicted: list[tuple[int, int, float]] = (),
    conflicts: list[tuple[int, int]] = (),
    flags: list[tuple[HallucinationType, int, int, float]] = (),
    kind: RecommendationKind = RecommendationKind.Accept,
    confidence: float = 0.95,
    qud: float = 0.9,
    corrected: str | None = None,
) -> PostprocessedResponse:
    claims, validations = [], []
    spans = [(s, e, Contradicted(kb_value="x", confidence=c)) for s, e, c in contradicted]
    spans += [(s, e, HistoryConflict(conflicting_turn="T1")) for s, e in conflicts]
    spans.append((0, 1, Unverifiable()))
    for i, (s, e, status) in enumerate(spans):
        claims.append(
            Claim(
                id=f"C{i}",
                subject="s",
                predicate="p",
                object=text[s:e],
                span=Span(start=s, end=e),
                confidence=0.7,
            )
        )
        validations.append(ClaimValidation(claim_id=f"C{i}", status=status))
    zero = {"issues": []}
    return PostprocessedResponse(
        original=text,
        query="q",
        corrected=CorrectedResponse(original=text, corrected=corrected, annotated=corrected)
        if corrected is not None
        else None,
        coherence=CoherenceResult(
            score=qud,
            qud_relevance=QUDRelevanceResult(
                score=qud,
                question_type=QuestionType.Wh,
                answer_coverage=qud,
                semantic_relevance=qud,
                addresses_qud=qud >= 0.5,
            ),
            topic_consistency=TopicConsistencyResult(score=1.0, drift_detected=False, **zero),
            entity_consistency=EntityConsistencyResult(
                score=1.0, references_checked=0, mismatches=0
            ),
            discourse_coherence=DiscourseCoherenceResult(score=1.0, reply_act="Answer"),
            reference_consistency=ReferenceConsistencyResult(score=1.0),
        ),
        factual_validation=FactualValidationResult(
            score=1.0, claims=claims, claim_validations=validations
        ),
        hallucination_flags=[
            HallucinationFlag(
                hallucination_type=t, span=Span(start=s, end=e), content=text[s:e], confidence=c
            )
            for t, s, e, c in flags
        ],
        confidence=confidence,
        recommendation=Recommendation(kind=kind),
    )


def test_a_gold_turn_is_a_false_alarm_only_for_contradictions_alarm_flags_or_a_low_verdict():
    text = "Valero is located at 200 Alester Ave."
    gold = EvalCase(
        "kvret/n1/T2",
        Case(kb="kb.json", query="q", response=text),
        GoldTurn("n1", "navigate", "T2"),
    )
    quiet = _result(text, flags=[(HallucinationType.UnsupportedClaim, 0, 6, 0.9)])
    assert not scoring.gold_outcome(gold, quiet).false_alarm
    loud = _result(
        text,
        contradicted=[(21, 36, 0.95)],
        flags=[(HallucinationType.NonexistentEntity, 0, 6, 0.6)],
        kind=RecommendationKind.Regenerate,
    )
    assert scoring.gold_outcome(gold, loud).alarms == (
        "Contradicted",
        "NonexistentEntity",
        "Regenerate",
    )


def _swap_case(vocab) -> EvalCase:
    return value_swap(kvret.scene(NAVIGATE), 1, vocab, _rng())


def test_a_value_swap_counts_as_detected_only_with_a_contradiction_over_the_changed_span(vocab):
    made = _swap_case(vocab)
    t = made.truth
    text = made.case.response
    gold_text = kvret.scene(NAVIGATE).turns[1].text
    clean_gold = _result(gold_text)
    elsewhere = _result(text, contradicted=[(0, 6, 0.95)])
    on_span = _result(text, contradicted=[(t.start, t.end, 0.95)])
    flagged = _result(text, flags=[(HallucinationType.ContradictsFact, t.start + 2, t.end, 0.9)])
    assert not scoring.perturbation_outcome(made, elsewhere, clean_gold).detected
    assert scoring.perturbation_outcome(made, on_span, clean_gold).detected
    assert scoring.perturbation_outcome(made, flagged, clean_gold).detected
    noisy_gold = _result(gold_text, contradicted=[(t.source_start, t.source_end, 0.95)])
    assert scoring.perturbation_outcome(made, on_span, noisy_gold).source_fired


def test_a_correction_counts_only_when_the_original_value_is_back_in_place(vocab):
    made = _swap_case(vocab)
    t = made.truth
    text = made.case.response
    restored = text[: t.start] + t.original + text[t.end :]
    gold = _result(kvret.scene(NAVIGATE).turns[1].text)

    def corrected(new_text: str) -> bool | None:
        return scoring.perturbation_outcome(made, _result(text, corrected=new_text), gold).corrected

    assert corrected(restored)
    assert corrected(restored.replace("located", "situated"))  # an edit elsewhere
    assert corrected(restored.lower())
    assert not corrected(text)
    assert not corrected(text + " Not " + t.original)  # the original, but not in place
    assert scoring.perturbation_outcome(made, _result(text), gold).corrected is False


def test_score_kvret_pairs_each_perturbation_with_its_gold_reply():
    outcomes = [
        scoring.GoldOutcome("g1", "navigate", ()),
        scoring.GoldOutcome("g2", "weather", ("TemporalError",)),
        scoring.PerturbationOutcome(
            "p1", PerturbationKind.value_swap, "navigate", True, False, corrected=True
        ),
        scoring.PerturbationOutcome(
            "p2", PerturbationKind.value_swap, "weather", True, True, corrected=False
        ),
        scoring.PerturbationOutcome(
            "p3", PerturbationKind.value_swap, "weather", False, False, corrected=False
        ),
        scoring.PerturbationOutcome(
            "p4", PerturbationKind.qud_swap, "weather", True, False, qud_drop=True
        ),
    ]
    report = scoring.score_kvret(outcomes, unscored=2)
    assert report["unscored"] == 2
    assert report["gold"]["false_alarm_rate"] == 0.5
    assert report["gold"]["by_intent"]["weather"]["reasons"] == {"TemporalError": 1}
    swap = report["perturbations"]["value_swap"]
    assert (swap["tp"], swap["fp"], swap["fn"], swap["tn"]) == (2, 1, 1, 2)
    assert swap["precision"] == pytest.approx(2 / 3) and swap["recall"] == pytest.approx(2 / 3)
    assert swap["correction_accuracy"] == pytest.approx(1 / 3)
    assert report["perturbations"]["qud_swap"]["qud_drop_rate"] == 1.0
    assert report["perturbations"]["entity_swap"]["precision"] is None


def test_kvret_outcomes_leave_out_cases_without_a_result_for_them_or_their_source(vocab):
    s = kvret.scene(NAVIGATE)
    cases = list(kvret.dialogue_cases(NAVIGATE, vocab))
    gold_only = {cases[0].case_id: _result(s.turns[1].text)}
    outcomes, unscored = scoring.kvret_outcomes(cases, gold_only)
    assert len(outcomes) == 1 and unscored == len(cases) - 1
    everything = {c.case_id: _result(c.case.response) for c in cases}
    outcomes, unscored = scoring.kvret_outcomes(cases, everything)
    assert len(outcomes) == len(cases) and unscored == 0


def test_halueval_judges_contradictions_apart_from_unsupported_content(tmp_path):
    (tmp_path / "dialogue_dev.jsonl").write_text(json.dumps(IRON_MAN))
    right, wrong = halueval.iter_halueval_cases(tmp_path)
    results = {
        right.case_id: _result(
            right.case.response,
            confidence=0.7,
            flags=[(HallucinationType.UnsupportedClaim, 0, 5, 0.85)],
        ),
        wrong.case_id: _result(
            wrong.case.response,
            confidence=0.7,
            contradicted=[(80, 89, 0.9)],
            kind=RecommendationKind.CorrectAndDeliver,
        ),
    }
    outcomes, unscored = scoring.halueval_outcomes([right, wrong], results)
    assert unscored == 0
    report = scoring.score_halueval(outcomes)
    contra, every = report["all_records"]["contradiction"], report["all_records"]["all"]
    assert (contra["accuracy"], contra["detection_rate"], contra["false_alarm_rate"]) == (1, 1, 0)
    assert (every["accuracy"], every["detection_rate"], every["false_alarm_rate"]) == (0.5, 1, 1)
    assert contra["pairwise_accuracy"] == 1.0  # 1.0 against 1 - 0.9
    assert (every["pairwise_accuracy"], every["pairwise_ties"]) == (0.5, 1.0)  # equal confidence
    assert report["records_with_triples"]["all"]["n_pairs"] == 1


def test_begin_scores_confidence_against_full_attribution(tmp_path):
    (tmp_path / "begin_dev_wow.tsv").write_text(BEGIN_TSV)
    first, second = begin.iter_begin_cases(tmp_path)
    results = {
        first.case_id: _result(
            first.case.response, confidence=0.8, kind=RecommendationKind.AcceptWithFlags
        ),
        second.case_id: _result(
            second.case.response, confidence=0.4, kind=RecommendationKind.Regenerate
        ),
    }
    outcomes, _ = scoring.begin_outcomes([first, second], results)
    report = scoring.score_begin(outcomes)
    assert report["labels"] == {"Fully attributable": 1, "Not fully attributable": 1}
    assert (report["auroc"], report["balanced_accuracy"]) == (1.0, 1.0)
    assert report["mean_confidence"]["Not fully attributable"] == 0.4


def test_scoring_a_case_with_another_datasets_truth_is_a_type_error(tmp_path):
    (tmp_path / "begin_dev_wow.tsv").write_text(BEGIN_TSV)
    case = next(begin.iter_begin_cases(tmp_path))
    with pytest.raises(TypeError, match="GoldTurn"):
        scoring.gold_outcome(case, _result(case.case.response))


def test_high_confidence_is_where_accepting_with_flags_ends():
    text = "RDJ starred in Zodiac with Tom Hanks."
    just_below = _result(text, flags=[(HallucinationType.FabricatedFact, 0, 3, 0.79)])
    at = _result(text, flags=[(HallucinationType.FabricatedFact, 0, 3, signals.HIGH_CONFIDENCE)])
    assert not signals.judged_hallucinated(just_below, "all")
    assert signals.judged_hallucinated(at, "all")
    assert not signals.judged_hallucinated(at, "contradiction")
