"""Issue 11, a ski hire shop of our own (a domain no suite or dataset has), handed in as CSV:
a thing named by the sentence after the one that gives its values in a demonstrative ("This
ski is ... the Salomon QST"), a value no row holds told between two columns a cue names alike
by the shape of their values, "children's" naming child_price, yes/no clauses that end at a
dash or a colon, a thing named in the plural taken up as "they", money in words with pence, a
year that is no weekday, a sum of the amounts before it, words of a thing's own name that name
none of its columns, a phrase said to be a KB thing, "we" in a clause of its own beside another
thing's name, the words since a value's clause began naming its column ("and the last skis go
out at 4pm"), a relation its subject lacks read from the other end ("Ana Ruiz runs it"), a
"no" after a yes/no attribute's words ("free swaps with no fee"), a qualified price meant where
the sentence says who pays it, "we have" beside another thing's name, a length after a count of
things as the rate it comes by, and a rate column counting its own unit ("weeks_per_season").

Every case but one fails on e1b4d88 (main before these changes); the verdicts were written before
the code was run. The "we have ... sizes" case passes there and guards a regression a change of
this work made on the way.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from conftest import flagged, verdicts

from replyguard.engine import Engine
from replyguard.kb import kb_from_csv
from replyguard.models import HallucinationType

TUESDAY = datetime(2026, 12, 1, 10, 0)
SKIS = """id,name,type,aliases,phone,pickup_desk,pickup_town,level,day_price,adult_price,\
child_price,family_ticket,included_in_hire,required_for_children,fit_guarantee,wax_time,price,\
days,cover_limit,daily_price,tuesday_open,tuesday_close,last_collection,role,run_by,\
free_swaps,member_price,sizes,hours_per_week,weeks_per_season
shop,Powder Hut,Organization,the Hut,01632 555 404,,,,,,,,,,,,,,,,8:00 am,6:00 pm,4:00 pm,,,,,,,
qst,Salomon QST,Object,QST,,Glacier Lodge,Verbier,Intermediate,£38,,,,,,,,,,,,,,,,,,,,,
redster,Atomic Redster,Object,Redster,,Summit Desk,Verbier,Expert,£45,,,,,,,,,,,,,,,,,,,,,
lessons,Snow School Lessons,Event,ski lessons,,,,,,£55,£30,£90,,,,,,Saturday|Sunday,,,,,,,,,,,,
helmets,Helmets,Object,helmet,,,,,,,,,yes,yes,,,,,,,,,,,,,,child|adult,,
boots,Comfort Boots,Object,boots,,,,,,,,,,,yes,,£20,,,,,,,,,yes,,,,
race,Race Skis,Object,race ski,,,,,,,,,,,,2 hours,£40,,,,,,,,,,,,,
pass,Lift Pass,Object,day pass,,,,,,,,,,,,,£32.50,,,,,,,,,,,,,
goggles,Goggles,Object,,,,,,,,,,,,,,£8,,,,,,,,,,£7,,,
gloves,Gloves,Object,,,,,,,,,,,,,,£6,,,,,,,,,,,,,
cover,Damage Cover,Abstract,damage insurance,,,,,,,,,,,,,,,£500,£4,,,,,,,,,,
ana,Ana Ruiz,Person,,,,,,,,,,,,,,,,,,,,,head instructor,,,,,,
ben,Ben Cole,Person,,,,,,,,,,,,,,,,,,,,,technician,,,,,,
clinic,Freestyle Clinic,Event,,,,,,,,,,,,,,,Sunday,,,,,,,Ana Ruiz,,,,,
coaching,Season Coaching,Event,coaching,,,,,,,,,,,,,,,,,,,,,,,,,6,10
"""


@pytest.fixture(scope="module")
def skis():
    return Engine(kb_from_csv(SKIS, origin="skis.csv"))


def check(engine, reply, query=""):  # noqa: ANN001, ANN201
    return engine.postprocess(reply, query, [], reference_time=TUESDAY)


def test_a_demonstrative_sentence_names_the_thing_the_one_before_described(skis):
    wrong = check(
        skis, "One is a great ski to collect at Summit Desk. This ski is the Salomon QST."
    )
    assert verdicts(wrong) == {"pickup_desk=Summit Desk": "Contradicted"}
    assert wrong.factual_validation.claims[0].subject == "Salomon QST"
    right = check(
        skis, "One is a great ski to collect at Glacier Lodge. This ski is the Salomon QST."
    )
    assert verdicts(right) == {"pickup_desk=Glacier Lodge": "Verified"}


def test_a_value_no_row_holds_goes_to_the_column_whose_values_share_its_shape(skis):
    result = check(skis, "The Atomic Redster is ready for pickup at Village Lodge.")
    assert verdicts(result) == {"pickup_desk=Village Lodge": "Contradicted"}
    town = check(skis, "The Atomic Redster is ready for pickup in Zermatt.")
    assert verdicts(town) == {"pickup_town=Zermatt": "Contradicted"}


def test_childrens_names_the_child_price_of_the_thing_that_holds_it(skis):
    result = check(
        skis,
        "Ski lessons are £55 for adults, and helmets are required for children. "
        "Children's tickets are £30.",
    )
    assert verdicts(result)["child_price=£30"] == "Verified"
    assert flagged(result, HallucinationType.ContradictsFact) == []


@pytest.mark.parametrize(
    ("reply", "claim"),
    [
        ("Not at all — helmets are included in the hire.", "included_in_hire=yes"),
        (
            "The comfort boots come with a fit guarantee: if you can't get on with them, "
            "we swap them.",
            "fit_guarantee=yes",
        ),
    ],
)
def test_a_negation_past_a_dash_or_colon_is_another_clause(skis, reply, claim):
    result = check(skis, reply)
    assert verdicts(result)[claim] == "Verified"
    assert result.recommendation.kind == "Accept"


def test_a_thing_named_in_the_plural_is_they(skis):
    result = check(skis, "The race skis are £40. They take 2 hours to wax.")
    assert verdicts(result) == {"price=£40": "Verified", "wax_time=2 hours": "Verified"}


def test_money_in_words_with_pence(skis):
    right = check(skis, "A lift pass is thirty-two pounds fifty.")
    assert verdicts(right) == {"price=thirty-two pounds fifty": "Verified"}
    wrong = check(skis, "A lift pass is thirty pounds fifty.")
    assert verdicts(wrong) == {"price=thirty pounds fifty": "Contradicted"}


def test_a_year_is_no_value_of_a_column_of_weekdays(skis):
    result = check(skis, "Ski lessons run on Saturdays and they're our best seller this year.")
    assert flagged(result, HallucinationType.ContradictsFact) == []
    assert "days=this year" not in verdicts(result)


def test_an_amount_that_sums_the_ones_before_it_is_a_total(skis):
    result = check(skis, "Goggles are £8 and gloves are £6, so £14 if you'd like both.")
    assert verdicts(result) == {"price=£8": "Verified", "price=£6": "Verified"}
    assert result.recommendation.kind == "Accept"


def test_a_word_of_the_things_own_name_names_none_of_its_columns(skis):
    result = check(skis, "Damage Cover is £4 a day.")
    assert verdicts(result) == {"daily_price=£4": "Verified"}


def test_we_in_a_clause_of_its_own_is_the_shop_though_the_sentence_names_another_thing(skis):
    result = check(
        skis, "Yes, we wax race skis for £40, so drop them in before we close at 6pm today."
    )
    assert verdicts(result) == {"price=£40": "Verified", "tuesday_close=6pm": "Verified"}


def test_the_words_since_the_clause_began_name_the_column_first(skis):
    result = check(skis, "We're open until 6pm today, and the last skis go out at 4pm.")
    assert verdicts(result)["last_collection=4pm"] == "Verified"
    assert flagged(result, HallucinationType.ContradictsFact) == []


def test_a_relation_its_subject_lacks_is_read_from_the_other_end(skis):
    right = check(
        skis, "The freestyle clinic is on Sunday. Ana Ruiz, our head instructor, runs it."
    )
    assert verdicts(right)["run_by=Ana Ruiz"] == "Verified"
    assert flagged(right, HallucinationType.FabricatedFact) == []
    wrong = check(skis, "The freestyle clinic is on Sunday. Ben Cole runs it.")
    assert verdicts(wrong)["run_by=Ben Cole"] == "Contradicted"


def test_a_no_after_the_attributes_words_denies_another_thing(skis):
    result = check(skis, "The comfort boots come with free swaps with no fee at all.")
    assert verdicts(result) == {"free_swaps=yes": "Verified"}


def test_a_qualified_price_is_meant_when_the_sentence_says_who_pays_it(skis):
    member = check(skis, "With a season card, goggles are £7.")
    assert verdicts(member) == {"member_price=£7": "Verified"}
    plain = check(skis, "Goggles are £7.")
    assert verdicts(plain) == {"price=£7": "Contradicted"}


def test_we_have_beside_another_things_name_is_not_the_shops_column(skis):
    result = check(skis, "Helmets are included in the hire, and we have child and adult sizes.")
    assert flagged(result, HallucinationType.FabricatedFact) == []
    assert result.recommendation.kind == "Accept"


def test_a_length_after_a_count_of_things_is_its_rate_and_a_rate_column_counts_its_unit(skis):
    right = check(skis, "Season coaching gives you 6 hours a week, over 10 weeks of the season.")
    assert verdicts(right) == {
        "hours_per_week=6 hours": "Verified",
        "weeks_per_season=10 weeks": "Verified",
    }
    wrong = check(skis, "Season coaching gives you 6 hours a week, over 12 weeks of the season.")
    assert verdicts(wrong)["weeks_per_season=12 weeks"] == "Contradicted"


def test_a_phrase_said_to_be_a_kb_thing_is_not_invented(skis):
    result = check(skis, "Our cheapest option is Damage Cover at £4 a day.")
    assert flagged(result, HallucinationType.NonexistentEntity) == []
    assert result.recommendation.kind == "Accept"
