"""A pure rule call's decoded value is remembered by its Python arguments (metta_host.py): the
memo must tell apart arguments that encode as different atoms, and forget everything when the
rules are loaded again."""

from __future__ import annotations

from replyguard.metta_host import MettaHost, Sym

RULES = """
(= (kind-of $x) (if (== $x shelf) IsSymbol (if (== $x "shelf") IsString Other)))
(= (truth-or-number True) IsTrue)
(= (truth-or-number 1.0) IsOne)
(= (kiln-limit) (config kiln-limit))
(= (config kiln-limit) 1200)
"""


def _host(tmp_path, **kw) -> MettaHost:
    (tmp_path / "memo.metta").write_text(RULES, encoding="utf-8")
    return MettaHost(rules_dir=tmp_path, **kw)


def test_a_symbol_and_a_string_of_the_same_name_are_two_calls(tmp_path):
    host = _host(tmp_path)
    assert host.value("kind-of", Sym("shelf")) == "IsSymbol"
    assert host.value("kind-of", "shelf") == "IsString"
    assert host.value("kind-of", Sym("shelf")) == "IsSymbol"


def test_true_and_one_are_two_calls_but_one_and_one_point_oh_are_one(tmp_path):
    host = _host(tmp_path)
    assert host.value("truth-or-number", True) == "IsTrue"
    assert host.value("truth-or-number", 1) == "IsOne"
    assert host.value("truth-or-number", 1.0) == "IsOne"
    assert host.value("truth-or-number", True) == "IsTrue"


def test_reloading_the_rules_forgets_remembered_values(tmp_path):
    host = _host(tmp_path)
    assert host.value("kiln-limit") == 1200
    host.overrides = {"kiln-limit": 900}
    host.load_rules()
    assert host.value("kiln-limit") == 900
