"""Every verdict carries the rule that produced it and the atoms it rests on."""

from __future__ import annotations

from importlib.resources import files

from conftest import check

WRONG = (
    "John Smith's email is john.s@company.org. He joined the company in 2019 and works "
    "in the Marketing department."
)


def _clause_text(location: str) -> str:
    path, line = location.rsplit(":", 1)
    assert path.startswith("metta/")
    text = (files("replyguard.metta") / path.removeprefix("metta/")).read_text()
    return text.splitlines()[int(line) - 1]


def test_validation_names_rule_clause_and_atoms(engine, seed_history):
    result = check(engine, WRONG, "", seed_history)
    explanation = result.factual_validation.claim_validations[2].explanation
    assert explanation.rule == "(claim-status (KbGrade (Fuzzy 0.6364) 1.0) HistoryDisagrees False)"
    assert explanation.result == "(Contradicted 1.0)"
    [clause] = explanation.clauses
    assert _clause_text(clause).startswith("(= (claim-status (KbGrade $grade $conf)")
    assert '(attr E42 department "Engineering")' in explanation.atoms
    assert any(a.startswith("(turn-claim T3 E42 department") for a in explanation.atoms)
    assert explanation.atoms[0].startswith("(claim C3 E42 department")


def test_flag_and_issue_explanations(engine, seed_history):
    result = check(engine, WRONG, "", seed_history)
    wrong = next(
        f for f in result.hallucination_flags if f.hallucination_type.value == "WrongAttribute"
    )
    assert wrong.explanation.rule.startswith("(flag-verdict WrongAttribute (ValueOfAnotherEntity")
    assert "(held-by department v:marketing E43)" in wrong.explanation.atoms
    assert _clause_text(wrong.explanation.clauses[0]).startswith("(= (flag-verdict")
    issue = result.coherence.issues[0]
    assert issue.explanation.rule == "(entity-issue Mismatch)"


def test_recommendation_explains_its_score(engine, seed_history):
    rec = check(engine, WRONG, "", seed_history).recommendation
    # three wrong values in three checked claims: the seed's band for the confidence is
    # HumanReview, and the findings (more wrong values than are corrected in place) regenerate
    assert rec.explanation.rule.startswith("(recommendation HumanReview (Findings ")
    assert rec.explanation.result == "Regenerate"
    band, policy = rec.explanation.because
    assert band.rule == "(confidence-band 0.0)" and band.result == "HumanReview"
    assert policy.rule.startswith("(policy-band $band (Findings ")
    assert policy.result == "Regenerate"
    [clause] = policy.clauses
    assert _clause_text(clause).startswith("(= (policy-band $band $findings)")
    [score] = band.because
    assert score.rule.startswith("(confidence-score ")
    assert score.because[0].rule.startswith("(severity-penalty ")
    assert score.because[0].result == "0.5"


def test_a_user_override_is_the_clause_cited(seed_kb, tmp_path):
    from conftest import REFERENCE

    from replyguard.engine import Engine

    (tmp_path / "bands.metta").write_text(
        "; stricter\n(= (config accept-threshold) 0.99)\n"
        "(= (recommendation $band $findings) (if (== $band Accept) Accept "
        "AcceptWithFlags))\n"
    )
    engine = Engine(seed_kb, rules_dir=tmp_path)
    result = engine.postprocess(
        "John works in Engineering.", "Where does John work?", reference_time=REFERENCE
    )
    assert result.recommendation.explanation.clauses == [f"{tmp_path / 'bands.metta'}:3"]
