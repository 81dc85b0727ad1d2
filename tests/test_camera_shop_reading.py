"""Issue 11, a camera shop of our own: a number joined to a unit the KB writes its numbers in
("64GB" of a card's "128GB") is one measure, not a number and an invented "GB of storage"; a fee
"of twenty pounds" is money (only "a couple of hundred pounds" is vague); a price the KB writes
"from £49" is corrected to its amount where the reply says "from" itself; "Prime 85" beside the
KB's "Prime 35" and "Prime 50" is a lens of their kind the KB lacks.

Every case fails on b383040 (main before these changes); verdicts written before the run.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from conftest import flagged, verdicts

from replyguard.engine import Engine
from replyguard.kb import kb_from_csv
from replyguard.models import HallucinationType

TUESDAY = datetime(2026, 12, 1, 10, 0)
SHOP = """id,name,type,aliases,phone,repair_fee,storage,sensor,price
lens,Lens & Light,Organization,the shop,01632 555 400,£20,,,
card,Kestrel Memory Card,Object,the memory card,,,128GB,,£35
body,Kestrel X2 Camera,Object,the X2,,,,24MP,£649
clean,Sensor Cleaning,Object,sensor clean,,,,,from £49
prime35,Prime 35,Object,the 35,,,,,£249
prime50,Prime 50,Object,the 50,,,,,£299
"""


@pytest.fixture(scope="module")
def shop():
    return Engine(kb_from_csv(SHOP, origin="shop.csv"))


def check(engine, reply, query=""):  # noqa: ANN001, ANN201
    return engine.postprocess(reply, query, [], reference_time=TUESDAY)


def test_a_number_joined_to_the_kbs_unit_is_one_measure(shop):
    right = check(shop, "The memory card holds 128GB of photos and costs £35.", "How big is it?")
    assert verdicts(right) == {"storage=128GB": "Verified", "price=£35": "Verified"}
    assert flagged(right, HallucinationType.NonexistentEntity) == []
    wrong = check(shop, "The memory card holds 64GB of photos and costs £35.", "How big is it?")
    assert verdicts(wrong) == {"storage=64GB": "Contradicted", "price=£35": "Verified"}
    assert wrong.corrected.corrected == "The memory card holds 128GB of photos and costs £35."


def test_a_fee_of_an_amount_in_words_is_money(shop):
    right = check(shop, "There's a repair fee of twenty pounds before we start.", "Do you charge?")
    assert verdicts(right) == {"repair_fee=twenty pounds": "Verified"}
    vague = check(shop, "A repair can cost a couple of hundred pounds.", "Is it expensive?")
    assert verdicts(vague) == {}


def test_a_price_from_an_amount_is_corrected_to_the_amount_after_the_replys_from(shop):
    result = check(shop, "A sensor clean starts from £59.", "How much is a sensor clean?")
    assert verdicts(result) == {"price=£59": "Contradicted"}
    assert result.corrected.corrected == "A sensor clean starts from £49."


def test_another_number_after_the_words_the_kbs_names_share_is_an_unknown_name(shop):
    invented = check(shop, "Our Prime 85 lens is £449.", "Do you have a portrait lens?")
    assert flagged(invented, HallucinationType.NonexistentEntity) == ["Prime 85"]
    assert invented.recommendation.kind == "Regenerate"
    known = check(shop, "Our Prime 50 lens is £299.", "Do you have a portrait lens?")
    assert verdicts(known) == {"price=£299": "Verified"}
