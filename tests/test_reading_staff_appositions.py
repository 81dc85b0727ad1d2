"""Issue 11, values inside appositions and names ending in numbers, on an opticians of my own
(verdicts written before the run):

- "Priya Shah, our lead optometrist, is in on ...": a noun phrase opened by "our" and set off by
  commas after a name describes that name, whether or not its words are a KB value, so the
  days said after it are hers, not the organisation's;
- "our shop manager" where the organisation is also "the shop": the role value running past the
  organisation's name is the value, "our" its owner;
- "Lens Package 2 costs £189": a number ending a name counts nothing (no total of two packages);
- "we're open late on Thursdays, until 7:30pm": a weekday given to the organisation, which has no
  column of weekdays, only says which day's hours are meant."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.kb import kb_from_csv
from replyguard.models import HallucinationType

REFERENCE = datetime(2026, 12, 3, 10, 0)

OPTICIANS = """id,name,type,aliases,address,phone,role,works_on,price,thursday_open,thursday_close,\
saturday_open,saturday_close
clearview,Clearview Eyecare,Organization,the shop|Clearview,3 Kirk Wynd,01334 470 112,,,,9:00 am,\
7:30 pm,9:00 am,1:00 pm
priya,Priya Shah,Person,,,,Senior Optometrist,Tuesday|Thursday,,,,,
tom,Tom Reed,Person,,,,Shop Manager,Friday|Saturday,,,,,
pack1,Lens Package 1,Object,,,,,,£99,,,,
pack2,Lens Package 2,Object,,,,,,£149,,,,
"""


@pytest.fixture(scope="module")
def shop() -> Engine:
    return Engine(kb_from_csv(OPTICIANS, origin="opticians.csv"))


def said(engine: Engine, reply: str) -> set[tuple[str, str, str, str]]:
    result = engine.postprocess(reply, "", [], reference_time=REFERENCE)
    fv = result.factual_validation
    return {
        (c.subject, c.predicate, c.object, v.status.kind)
        for c, v in zip(fv.claims, fv.claim_validations, strict=True)
    }


def flags(engine: Engine, reply: str) -> set[HallucinationType]:
    result = engine.postprocess(reply, "", [], reference_time=REFERENCE)
    return {f.hallucination_type for f in result.hallucination_flags}


def test_days_after_an_apposition_are_the_named_persons(shop):
    reply = "Priya Shah, our lead optometrist, is in on Tuesdays and Thursdays."
    assert said(shop, reply) == {
        ("Priya Shah", "works_on", "Tuesdays", "Verified"),
        ("Priya Shah", "works_on", "Thursdays", "Verified"),
    }
    wrong = "Priya Shah, our lead optometrist, is in on Mondays."
    assert ("Priya Shah", "works_on", "Mondays", "Contradicted") in said(shop, wrong)


def test_a_role_running_past_the_organisations_name_is_the_role(shop):
    assert said(shop, "Tom Reed, our shop manager, works Saturdays.") == {
        ("Tom Reed", "role", "shop manager", "Verified"),
        ("Tom Reed", "works_on", "Saturdays", "Verified"),
    }
    # the organisation's name alone is still the organisation
    assert ("Clearview Eyecare", "saturday_close", "1pm", "Verified") in said(
        shop, "Our shop closes at 1pm on Saturdays."
    )


@pytest.mark.parametrize(
    ("reply", "status"),
    [("Lens Package 2 costs £149.", "Verified"), ("Lens Package 2 costs £189.", "Contradicted")],
)
def test_a_number_ending_a_name_counts_nothing(shop, reply, status):
    assert said(shop, reply) == {("Lens Package 2", "price", reply.split()[-1][:-1], status)}


def test_a_weekday_said_of_the_organisation_picks_the_days_hours(shop):
    reply = "We're open late on Thursdays, until 7:30pm."
    assert said(shop, reply) == {("Clearview Eyecare", "thursday_close", "7:30pm", "Verified")}
    assert HallucinationType.FabricatedFact not in flags(shop, reply)


BAKERY = """id,name,type,address,phone,monday_hours,tuesday_hours,wednesday_hours,thursday_hours,\
friday_hours,saturday_hours,days,hours
bakery,Kilnworth Bakery,Organization,2 Oven Row,01334 470 555,7:00 am - 5:00 pm,7:00 am - 5:00 pm,\
7:00 am - 5:00 pm,7:00 am - 5:00 pm,7:00 am - 5:00 pm,8:00 am - 1:00 pm,,
cafe,Bakery Cafe,Event,,,,,,,,,Monday|Tuesday|Wednesday|Thursday|Friday,8:00 am - 4:00 pm
"""


@pytest.mark.parametrize(
    ("reply", "status"),
    [
        ("We open at 8am Monday to Friday.", "Contradicted"),
        ("We open at 7am Monday to Friday.", "Verified"),
    ],
)
def test_a_time_we_say_is_ours_not_another_things_that_holds_it(reply, status):
    # issue 11: "we open at 8am Monday to Friday" was read as the 8am of a class that starts then
    claims = said(Engine(kb_from_csv(BAKERY, origin="bakery.csv")), reply)
    days = ("monday", "tuesday", "wednesday", "thursday", "friday")
    value = reply.split()[3]
    hours = {c for c in claims if c[1].endswith("hours_start") or c[1] == "hours"}
    assert hours == {("Kilnworth Bakery", f"{d}_hours_start", value, status) for d in days}
