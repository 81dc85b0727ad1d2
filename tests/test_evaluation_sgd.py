"""`replyguard eval sgd` on a tiny SGD-format fixture (tests/data/sgd_*.json, written for these
tests): the KB a system turn is checked against, the split, each perturbation, the scoring and
the report. Nothing here reads ../shared.
"""

from __future__ import annotations

import gzip
import io
import json
import shutil
from pathlib import Path

import pytest

from replyguard import cli
from replyguard.errors import InputError
from replyguard.evaluation import sgd, sgd_perturb, sgd_scoring
from replyguard.evaluation.cases import EvalCase
from replyguard.evaluation.sgd import SgdKind

DATA = Path(__file__).parent / "data"


def write_sgd(root: Path) -> Path:
    """The fixture laid out as the data root holds it: sgd/dialogues.json.gz and schema.json."""
    folder = root / "sgd"
    folder.mkdir(parents=True)
    with gzip.open(folder / "dialogues.json.gz", "wt", encoding="utf-8") as fh:
        fh.write((DATA / "sgd_dialogues.json").read_text(encoding="utf-8"))
    shutil.copy(DATA / "sgd_schema.json", folder / "schema.json")
    return root


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return write_sgd(tmp_path_factory.mktemp("sgd") / "data")


@pytest.fixture(scope="module")
def cases(root) -> dict[str, EvalCase]:
    return {c.case_id: c for c in sgd.iter_sgd_cases(root)}


@pytest.fixture(scope="module")
def schema(root):
    return sgd.load_sgd(root)[1]


def _scene(root, dialogue_id: str) -> sgd.SgdScene:
    dialogues, schema = sgd.load_sgd(root)
    return sgd.scene(next(d for d in dialogues if d["dialogue_id"] == dialogue_id), schema)


# --------------------------------------------------------------------------- KB and split


def test_the_name_column_is_the_slot_naming_what_the_call_looks_for():
    films = sgd.ServiceSchema("Cinema_9", ("theater_name", "movie_name", "price"), frozenset(), {})
    assert sgd.name_slot(films, "FindMovies", ["theater_name", "movie_name"]) == "movie_name"
    assert sgd.name_slot(films, "GetTimes", ["theater_name", "movie_name"]) == "theater_name"
    coach = sgd.ServiceSchema("Coach_9", ("origin_station_name", "fare"), frozenset(), {})
    assert sgd.name_slot(coach, "FindCoach", ["origin_station_name", "fare"]) is None
    pay = sgd.ServiceSchema("Pay_9", ("recipient_account_name", "amount"), frozenset(), {})
    assert sgd.name_slot(pay, "Transfer", ["recipient_account_name", "amount"]) is None
    books = sgd.ServiceSchema("Books_9", ("author", "title"), frozenset(), {})
    assert sgd.name_slot(books, "FindBooks", ["author", "title"]) == "title"


def test_a_dialogue_touching_a_validation_service_is_a_validation_dialogue(cases):
    assert sgd.split_of(["Travel_1"]) == "tune"
    assert sgd.split_of(["Travel_1", "Homes_1"]) == "validation"
    splits = {c.truth.dialogue_id: c.truth.split for c in cases.values()}
    assert splits == {
        "tune_porto": "tune",
        "tune_bruges": "tune",
        "val_oakland": "validation",
        "val_harbor": "validation",  # Homes_1 with Travel_1
        "tune_cab": "tune",
    }


def test_a_system_turn_is_checked_against_its_services_latest_rows(cases):
    offer = cases["sgd/tune_porto/T2"].case
    assert [e.name for e in offer.kb.entities] == [
        "Clerigos Tower",
        "Serralves Park",
        "Bolhao Market",
    ]
    tower = offer.kb.entities[0]
    assert tower.attributes["free_entry"] is False and tower.attributes["good_for_kids"] is True
    assert "attraction_name" not in tower.attributes
    assert [t.speaker for t in offer.dialogue.turns] == ["user"]
    assert offer.query == "Can you suggest somewhere to visit in Porto?"
    assert offer.reference_time.isoformat() == "2019-03-01T00:00:00"
    # a later turn still sees the rows of the call made two turns earlier
    assert cases["sgd/tune_porto/T4"].case.kb == offer.kb
    # before any call the KB is empty
    assert cases["sgd/tune_cab/T2"].case.kb.entities == []


def test_money_dates_and_times_are_declared_as_a_user_would(cases):
    booked = cases["sgd/val_oakland/T8"].case.kb
    assert booked.attribute_schema["rent"].value_type == "money"
    assert booked.attribute_schema["visit_date"].value_type == "date"
    assert booked.entities[0].name == "Lakeview Terrace"


def test_rows_without_a_name_are_entities_without_a_name(cases):
    ride = cases["sgd/tune_cab/T4"].case.kb.entities
    assert [(e.id, e.name) for e in ride] == [("R1", None)]
    assert ride[0].attributes["ride_fare"] == "17.40" and ride[0].attributes["shared_ride"] is False


def test_a_table_the_kb_loader_rejects_is_a_one_line_input_error(root, tmp_path):
    dialogues, _ = sgd.load_sgd(root)
    bad = json.loads(json.dumps(dialogues[-1]))
    bad["turns"][3]["frames"][0]["service_results"][0]["ride fare"] = "12"  # not a symbol
    folder = tmp_path / "sgd"
    folder.mkdir()
    with gzip.open(folder / "dialogues.json.gz", "wt", encoding="utf-8") as fh:
        json.dump([bad], fh)
    shutil.copy(DATA / "sgd_schema.json", folder / "schema.json")
    with pytest.raises(InputError, match=r"sgd dialogue tune_cab: RideSharing_1 call at turn T4"):
        list(sgd.iter_sgd_cases(tmp_path))


# --------------------------------------------------------------------------- perturbations


def _edited(made: EvalCase, gold: str) -> sgd.SgdTruth:
    assert isinstance(made, EvalCase)
    t = made.truth
    reply = made.case.response
    assert reply[t.start : t.end] == t.replacement
    assert gold[t.source_start : t.source_end] == t.original
    assert reply[: t.start] == gold[: t.source_start] and reply[t.end :] == gold[t.source_end :]
    return t


def test_a_value_swap_takes_another_rows_value_that_no_row_holds_with_the_rest(cases):
    gold = cases["sgd/tune_porto/T4"].case.response
    t = _edited(cases["sgd/tune_porto/T4/value_swap"], gold)
    # Serralves Park's number: but Serralves is free to enter, and the reply says it is not
    assert (t.slot, t.original, t.replacement) == ("phone_number", "22 200 1729", "22 615 6500")
    assert t.correct_to == ("22 200 1729", "22 200 1729")


def test_a_value_swap_keeps_the_replys_way_of_writing_the_value(cases):
    gold = cases["sgd/val_oakland/T2"].case.response
    t = _edited(cases["sgd/val_oakland/T2/value_swap"], gold)
    assert (t.original, t.replacement) == ("$2,300", "$2,750")
    assert t.correct_to == ("$2,300", "2300")
    assert sgd_perturb.shape("6 pm") == sgd_perturb.shape("11 am") != sgd_perturb.shape("6:30 pm")


def test_an_invented_name_is_a_name_of_the_same_service_these_rows_lack(cases):
    gold = cases["sgd/tune_porto/T2"].case.response
    t = _edited(cases["sgd/tune_porto/T2/invented_name"], gold)
    assert t.original == "Clerigos Tower"
    assert t.replacement in {"Groeninge Museum", "Belfry of Bruges"}
    # every flat of the fixture is in the Oakland KB: no name is left to invent from
    assert "sgd/val_oakland/T2/invented_name" not in cases


def test_a_yes_no_flip_turns_the_words_that_say_the_value(cases):
    t = _edited(cases["sgd/tune_porto/T4/yes_no_flip"], cases["sgd/tune_porto/T4"].case.response)
    assert (t.original, t.replacement) == ("Entry is not free", "Entry is free")
    # "is it furnished?" is answered about the flat offered before
    t = _edited(cases["sgd/val_oakland/T4/yes_no_flip"], cases["sgd/val_oakland/T4"].case.response)
    assert (t.original, t.replacement) == ("unfurnished", "furnished")


def test_yes_no_wording_is_read_only_where_it_is_certain():
    text = "Sadly it is not kid friendly."
    said, start, end, opposite = sgd_perturb.yes_no_wording("good_for_kids", text)
    assert (said, text[start:end], opposite) == (False, "not kid friendly", "kid friendly")
    assert sgd_perturb.yes_no_wording("free_entry", "It is free to enter.")[3] == (
        "not free to enter"
    )
    both = "It is kid friendly, though not kid friendly at night."
    assert sgd_perturb.yes_no_wording("good_for_kids", both) is None
    assert sgd_perturb.yes_no_wording("free_entry", "A lovely free garden.") is None


def test_a_user_contradiction_confirms_a_value_the_user_never_asked_for(cases):
    gold = cases["sgd/val_oakland/T6"].case.response
    t = _edited(cases["sgd/val_oakland/T6/user_contradiction"], gold)
    assert (t.slot, t.original, t.replacement) == ("visit_date", "March 5th", "March 8th")
    user = [x.text for x in cases["sgd/val_oakland/T6"].case.dialogue.turns if x.speaker == "user"]
    assert any("March 5th" in text for text in user) and not any("March 8th" in x for x in user)


def test_an_offer_without_rows_is_the_calling_turn_against_an_empty_kb(cases):
    made = cases["sgd/tune_porto/T2/offer_without_rows"]
    gold = cases["sgd/tune_porto/T2"]
    assert made.case.response == gold.case.response
    assert made.case.kb.entities == [] and gold.case.kb.entities
    # only the turn that called the service: a later turn's rows were not just returned
    assert "sgd/tune_porto/T4/offer_without_rows" not in cases


def test_cases_do_not_change_with_limit_and_follow_the_seed(root, cases):
    first = list(sgd.iter_sgd_cases(root, limit=1))
    assert first and all(cases[c.case_id].truth == c.truth for c in first)
    assert {c.truth.dialogue_id for c in first} == {"tune_porto"}
    again = {c.case_id: c.truth for c in sgd.iter_sgd_cases(root)}
    assert again == {k: c.truth for k, c in cases.items()}


def test_a_broken_sgd_folder_is_a_one_line_input_error(tmp_path):
    folder = tmp_path / "sgd"
    folder.mkdir()
    with gzip.open(folder / "dialogues.json.gz", "wt") as fh:
        fh.write("[]")
    with pytest.raises(InputError, match="schema.json"):
        sgd.load_sgd(tmp_path)
    (folder / "schema.json").write_text('[{"slots": []}]')
    with pytest.raises(InputError, match="not an SGD schema"):
        sgd.load_sgd(tmp_path)


# --------------------------------------------------------------------------- scoring


def _outcome(kind: SgdKind, **kw) -> sgd_scoring.SgdOutcome:
    base = {"case_id": "x", "service": "Travel_1", "split": "tune", "recommendation": "Accept"}
    return sgd_scoring.SgdOutcome(**(base | {"kind": kind} | kw))


def test_figures_count_detections_corrections_and_routing_per_kind():
    swaps = [
        _outcome(
            SgdKind.value_swap,
            detected=True,
            source_fired=False,
            corrected=True,
            recommendation="CorrectAndDeliver",
        ),
        _outcome(
            SgdKind.value_swap,
            detected=True,
            source_fired=True,
            corrected=False,
            recommendation="HumanReview",
        ),
        _outcome(
            SgdKind.value_swap,
            detected=False,
            source_fired=False,
            corrected=False,
            recommendation="Regenerate",
        ),
    ]
    gold = [_outcome(SgdKind.gold, alarms=("ContradictsFact",)), _outcome(SgdKind.gold)]
    offers = [_outcome(SgdKind.offer_without_rows, detected=True)]
    f = sgd_scoring.figures([*swaps, *gold, *offers])
    assert f["gold"]["false_alarm_rate"] == 0.5
    swap = f["value_swap"]
    assert (swap["recall"], swap["precision"]) == (2 / 3, 2 / 3)
    assert swap["correction_accuracy_of_detected"] == 0.5
    assert swap["routed_rate"] == 2 / 3  # CorrectAndDeliver and Regenerate, not HumanReview
    assert f["offer_without_rows"]["recall"] == 1.0 and "precision" not in f["offer_without_rows"]
    assert f["invented_name"]["recall"] is None


def test_splits_are_scored_apart_with_services_and_domains():
    report = sgd_scoring.score_sgd(
        [
            _outcome(SgdKind.gold, alarms=("Regenerate",)),
            _outcome(SgdKind.gold, split="validation", service="Homes_1"),
        ]
    )
    tune, validation = report["splits"]["tune"], report["splits"]["validation"]
    assert tune["gold"]["false_alarm_rate"] == 1.0 and validation["gold"]["false_alarm_rate"] == 0
    assert list(validation["by_service"]) == ["Homes_1"] and list(tune["by_domain"]) == ["Travel"]


# --------------------------------------------------------------------------- the command


@pytest.fixture(scope="module")
def run(root, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("out")
    out, errors = tmp / "report.json", tmp / "errors.jsonl"
    stdout = io.StringIO()
    argv = ["eval", "sgd", "--data", str(root), "--json", str(out), "--errors", str(errors)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("sys.stdout", stdout)
        assert cli.main(argv) == 0
    records = [json.loads(line) for line in errors.read_text().splitlines()]
    return json.loads(out.read_text()), records, stdout.getvalue()


def test_the_report_shows_tune_and_validation_side_by_side_per_service(run, cases):
    report, _, stdout = run
    section = report["datasets"]["sgd"]
    built = sum(isinstance(c, EvalCase) for c in cases.values())
    assert section["size"]["cases"] == built == section["per_case_seconds"]["n"]
    assert section["engine_errors"] == 0
    splits = section["metrics"]["splits"]
    assert splits["tune"]["gold"]["n"] + splits["validation"]["gold"]["n"] == sum(
        isinstance(c, EvalCase) and c.truth.kind is SgdKind.gold for c in cases.values()
    )
    assert set(splits["validation"]["by_service"]) == {"Homes_1"}
    assert "Travel_1" in splits["tune"]["by_service"]
    header = next(line for line in stdout.splitlines() if "validation" in line and "target" in line)
    assert header.split()[:3] == ["metric", "tune", "n"]
    assert "gold false alarms" in stdout and "≤ 0.03" in stdout
    metrics = {row["metric"] for row in section["table"]}
    assert {"tune: value_swap recall", "validation: offer_without_rows recall"} <= metrics


def test_failures_are_listed_for_the_tune_split_only(root, cases, tmp_path):
    """Every case is made a failure (each gold reply alarmed, each perturbation missed), so both
    splits fail everywhere: the list holds every tune case and no validation case."""
    from dataclasses import replace

    scored = sgd_scoring.outcome

    def failing(case, result, source):
        o = scored(case, result, source)
        return (
            replace(o, alarms=("Regenerate",))
            if o.kind is SgdKind.gold
            else replace(o, detected=False)
        )

    out, errors = tmp_path / "report.json", tmp_path / "errors.jsonl"
    argv = ["eval", "sgd", "--data", str(root), "--json", str(out), "--errors", str(errors)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sgd_scoring, "outcome", failing)
        assert cli.main(argv) == 0
    records = [json.loads(line) for line in errors.read_text().splitlines()]
    splits = json.loads(out.read_text())["datasets"]["sgd"]["metrics"]["splits"]
    assert splits["validation"]["gold"]["false_alarm_rate"] == 1.0
    tune = {i for i, c in cases.items() if isinstance(c, EvalCase) and c.truth.split == "tune"}
    assert {r["case_id"] for r in records} == tune
    assert all(r["service"] in {"Travel_1", "RideSharing_1"} for r in records)


def test_split_keeps_one_split_and_only_sgd_has_splits(root, tmp_path, capsys):
    out = tmp_path / "v.json"
    assert (
        cli.main(["eval", "sgd", "--data", str(root), "--split", "validation", "--json", str(out)])
        == 0
    )
    section = json.loads(out.read_text())["datasets"]["sgd"]
    assert section["metrics"]["splits"]["tune"]["gold"]["n"] == 0
    assert section["metrics"]["splits"]["validation"]["gold"]["n"] > 0
    assert "--split validation" in json.loads(out.read_text())["command"]
    assert cli.main(["eval", "kvret", "--data", str(root), "--split", "tune"]) == 2
    assert "only SGD" in capsys.readouterr().err
