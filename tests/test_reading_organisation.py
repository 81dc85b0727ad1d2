"""Class 5 of issue 11: "we", "our" and "us" are the organisation the reply speaks for, declared
in the KB (`organization`) or inferred when one Organization entity holds the address and the
opening hours."""

from __future__ import annotations

from datetime import datetime

import pytest

from replyguard.engine import Engine
from replyguard.models import KnowledgeBase

REFERENCE = datetime(2026, 9, 7, 9, 0)

CLINIC = {
    "id": "clinic",
    "name": "Brookvale Animal Clinic",
    "type": "Organization",
    "attributes": {
        "address": "41 Tanner Lane",
        "opening_hours": "8am-7pm",
        "phone": "0117 555 0123",
        "email": "desk@brookvale.example",
    },
}
VET = {
    "id": "vet",
    "name": "Tomasz Wierzbicki",
    "type": "Person",
    "attributes": {"phone": "0117 555 0150"},
}
SUPPLIER = {
    "id": "supplier",
    "name": "Pawsome Supplies",
    "type": "Organization",
    "attributes": {"address": "9 Dock Road", "opening_hours": "9am-5pm"},
}


def _claims(kb: dict, reply: str) -> dict:
    engine = Engine(KnowledgeBase.model_validate(kb))
    result = engine.postprocess(reply, "", [], reference_time=REFERENCE)
    fv = result.factual_validation
    status = {v.claim_id: v.status for v in fv.claim_validations}
    return {(c.subject_id, c.predicate, c.object): status[c.id] for c in fv.claims}


@pytest.fixture(scope="module")
def inferred() -> dict:
    return {"entities": [CLINIC, VET]}


def test_our_phone_number_is_the_inferred_organisations(inferred: dict) -> None:
    claims = _claims(inferred, "Our phone number is 0117 555 0150.")
    status = claims[("clinic", "phone", "0117 555 0150")]
    assert status.kind == "Contradicted" and status.kb_value == "0117 555 0123"


def test_we_open_at_the_hours_the_organisation_holds(inferred: dict) -> None:
    assert _claims(inferred, "We are open 8am-7pm.")[
        ("clinic", "opening_hours", "8am-7pm")
    ].kind == ("Verified")


def test_email_us_is_the_organisations_address(inferred: dict) -> None:
    claims = _claims(inferred, "You can email us at desk@brookvale.example.")
    assert claims[("clinic", "email", "desk@brookvale.example")].kind == "Verified"


def test_i_is_the_assistant_not_the_organisation(inferred: dict) -> None:
    assert not any(k[0] == "clinic" for k in _claims(inferred, "My number is 0117 555 0150."))


def test_a_value_said_of_a_named_entity_after_it_is_that_entitys(inferred: dict) -> None:
    claims = _claims(inferred, "We can put you through on 0117 555 0150 to Tomasz Wierzbicki.")
    assert ("clinic", "phone", "0117 555 0150") not in claims


def test_two_organisations_alike_and_none_declared_means_no_we() -> None:
    supplier = {**SUPPLIER, "attributes": {**SUPPLIER["attributes"], "phone": "0117 555 0177"}}
    kb = {"entities": [CLINIC, supplier]}
    assert not any(
        k[0] in ("clinic", "supplier") for k in _claims(kb, "Our phone is 0117 555 0150.")
    )


def test_the_declared_organisation_speaks_among_several() -> None:
    kb = {"entities": [CLINIC, SUPPLIER], "organization": "clinic"}
    claims = _claims(kb, "We're at 9 Dock Road.")
    status = claims[("clinic", "address", "9 Dock Road")]
    assert status.kind == "Contradicted" and status.kb_value == "41 Tanner Lane"


def test_of_two_organisations_the_one_with_contact_details_and_hours_speaks() -> None:
    cafe = {
        "id": "cafe",
        "name": "Tanner Cafe",
        "type": "Organization",
        "attributes": {"opening_hours": "7am-3pm", "menu": "sandwiches"},
    }
    claims = _claims({"entities": [CLINIC, cafe]}, "Our phone number is 0117 555 0123.")
    assert claims[("clinic", "phone", "0117 555 0123")].kind == "Verified"


def test_an_organisation_without_hours_is_not_inferred_to_speak() -> None:
    shop = {**CLINIC, "attributes": {"address": "41 Tanner Lane", "phone": "0117 555 0123"}}
    assert _claims({"entities": [shop, VET]}, "Our phone number is 0117 555 0199.") == {}


def test_a_declared_organisation_must_exist() -> None:
    with pytest.raises(ValueError, match="organization: no entity with id 'nobody'"):
        KnowledgeBase.model_validate({"entities": [CLINIC], "organization": "nobody"})


def test_a_person_named_beside_our_is_who_the_value_is_of(inferred: dict) -> None:
    reply = "Please write to Ines Carvalho, our practice manager, at ines@brookvale.example."
    assert not any(k[0] == "clinic" for k in _claims(inferred, reply))
