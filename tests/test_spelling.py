"""The spelling and grammar corrector (stage 4, step 1): tiers, protection, spans, user rules.

Every fixture is inline; nothing here reads shared/ data (the benchmark does).
"""

from __future__ import annotations

import pytest
from hyperon import MeTTa, SExprParser, Tokenizer

from replyguard.errors import RuleError
from replyguard.spelling import Rejection, SpellingCorrector, TextEdit, apply_edits
from replyguard.spelling.corrector import shipped_atoms
from replyguard.spelling.gleu import corpus_gleu
from replyguard.spelling.tokens import tokenize

KB_TERMS = [
    "John Smith",
    "Engineering",
    "Marketing",
    "Stanford Express Care",
    "Thrusday",
    "dinner",
    "Smithe",
]


@pytest.fixture(scope="module")
def corrector() -> SpellingCorrector:
    return SpellingCorrector(extra_words=KB_TERMS)


def corrected(corrector: SpellingCorrector, text: str) -> str:
    return apply_edits(text, corrector.correct(text))


def parse(text: str) -> list:
    parser, tokenizer, atoms = SExprParser(text), Tokenizer(), []
    while (atom := parser.parse(tokenizer)) is not None:
        atoms.append(atom)
    return atoms


# --- tier 1: lexical ----------------------------------------------------------------------------
def test_unknown_word_is_replaced_by_its_likeliest_intended_word(corrector):
    edits = corrector.correct("Please recieve the package.")
    assert len(edits) == 1
    edit = edits[0]
    assert (edit.tier, edit.original, edit.replacement) == ("lexical", "recieve", "receive")
    assert (edit.start, edit.end) == (7, 14)
    assert 0.5 <= edit.confidence <= 1.0
    assert edit.rule is None and "recieve" in edit.reason


def test_transposition_doubling_apostrophe_and_missing_space(corrector):
    assert corrected(corrector, "I havent seen teh results untill today.") == (
        "I haven't seen the results until today."
    )
    assert corrected(corrector, "We had alot of rain.") == "We had a lot of rain."


def test_isolated_suggestions_rank_the_intended_word_first(corrector):
    assert corrector.suggest("speling")[0] == "spelling"
    assert corrector.suggest("accomodation")[0] == "accommodation"
    assert corrector.suggest("juse", limit=3) and len(corrector.suggest("juse", limit=3)) <= 3
    assert corrector.suggest("house") == ["house"]


def test_misspelt_kb_name_is_corrected_to_the_kb_spelling(corrector):
    edits = corrector.correct("Jonh Smith works in enginering.")
    assert [(e.original, e.replacement) for e in edits] == [
        ("Jonh", "John"),
        ("enginering", "Engineering"),
    ]


def test_capitalised_unknown_words_are_left_as_names(corrector):
    assert corrector.correct("Ask Marta about the Zorblax project.") == []
    assert corrector.correct("Valero is near.") == []  # a name, though "Valera" is one edit off
    assert corrected(corrector, "Becuase of that, we left.") == "Because of that, we left."


def test_real_word_error_is_corrected_only_when_context_is_clear(corrector):
    edits = corrector.correct("We have a meting at noon.")
    assert [(e.tier, e.replacement) for e in edits] == [("semantic", "meeting")]
    assert corrector.correct("The metal was meting in the sun.") == []  # no clear context


# --- tier 2: syntactic rules ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected", "rule"),
    [
        ("We ate a apple.", "We ate an apple.", "a-before-vowel-sound"),
        ("It was an useful tool.", "It was a useful tool.", "an-before-consonant-sound"),
        ("She is an FBI agent.", "She is an FBI agent.", None),
        ("It took an hour.", "It took an hour.", None),
        ("This is is fine.", "This is fine.", "doubled-word"),
        ("It had had no effect.", "It had had no effect.", None),
        ("the meeting is at noon.", "The meeting is at noon.", "sentence-capital"),
        ("Yes, i know it.", "Yes, I know it.", "pronoun-i"),
        ("Their is a problem.", "There is a problem.", "their-is"),
        ("The team has there own room.", "The team has their own room.", "there-own"),
        ("I think its a good idea.", "I think it's a good idea.", "its-contraction"),
        ("The company and it's own staff.", "The company and its own staff.", "it-is-own"),
        ("Your welcome.", "You're welcome.", "your-welcome"),
        ("He are late.", "He is late.", "agreement-singular"),
        ("They was late.", "They were late.", "agreement-plural"),
        ("I is late.", "I am late.", "agreement-first-person"),
        ("The meeting starts at noon", "The meeting starts at noon.", "final-full-stop"),
        ("Can you send me the file", "Can you send me the file?", "final-question-mark"),
        ("It is bigger then the other one.", "It is bigger than the other one.", "then-than"),
    ],
)
def test_each_syntactic_rule(corrector, text, expected, rule):
    edits = corrector.correct(text)
    assert apply_edits(text, edits) == expected
    assert [e.rule for e in edits if e.tier == "syntactic"] == ([rule] if rule else [])


@pytest.mark.parametrize(
    "text",
    [
        "Did he have a dog?",  # bare verb after "did"
        "Keith and I are going.",  # compound subject
        "If it were up to me, I would go.",  # subjunctive
        "It was toys toys toys all day.",  # deliberate repetition
        "Use a unicorn, e.g. this one.",  # "e.g." ends no sentence; "i" pronoun rule spares "i.e."
        "- buy milk\n- buy bread",  # list items need no full stop
    ],
)
def test_rules_leave_correct_text_alone(corrector, text):
    assert corrector.correct(text) == []


# --- tier 3: protection --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "Write to jon.smiht@exmple.com today.",
        "See https://www.exmaple.com/pagez for more.",
        "Call 555-123-4567 or +1 (555) 987-6543 now.",
        "The order AB-123 and the flag useAsyncMode are set.",
        "It costs 1,250 dollars on 2024-05-01 at 10:30.",
        'He wrote "recieve the pakage" in the note.',
        "Run `pip instal replyguard` first.",
    ],
)
def test_typed_values_codes_and_quotes_are_never_changed(corrector, text):
    edits, rejections = corrector.correct_with_log(text)
    assert edits == []
    assert all(isinstance(r, Rejection) and r.reason.startswith("would change") for r in rejections)


def test_rejections_are_logged_with_their_reason(corrector):
    edits, rejections = corrector.correct_with_log('He said "recieve" twice.')
    assert [(r.original, r.replacement, r.reason) for r in rejections] == [
        ("recieve", "receive", "would change a protected quoted text")
    ]
    assert all(e.original != "recieve" for e in edits)


def test_kb_words_are_never_corrected_away(corrector):
    edits, rejections = corrector.correct_with_log("dinner is on Thrusday with Smithe.")
    assert [e.original for e in edits] == []  # "dinner" keeps its KB case, Thrusday its spelling
    assert [(r.rule, r.original) for r in rejections] == [("sentence-capital", "dinner")]
    assert "KB" in rejections[0].reason


def test_multiword_kb_name_is_protected_as_a_phrase(corrector):
    text = "stanford express care is 5 miles away."
    edits, rejections = corrector.correct_with_log(text)
    assert edits == [] and [r.original for r in rejections] == ["stanford"]


def test_caller_protected_spans_are_respected():
    plain = SpellingCorrector()
    text = "Teh value is enginering."
    assert corrected(plain, text) == "The value is engineering."
    start = text.index("enginering")
    edits, rejections = plain.correct_with_log(text, protected=[(start, start + 10)])
    assert apply_edits(text, edits) == "The value is enginering."
    assert rejections[0].reason == "would change a protected span protected by the caller"


# --- spans ---------------------------------------------------------------------------------------
def test_spans_stay_valid_after_several_corrections_in_one_reply(corrector):
    text = (
        "i think their is a apple on the the table. teh meeting with Jonh is on Thrusday, "
        "email john@company.com"
    )
    edits = corrector.correct(text)
    assert len(edits) == 6
    ordered = sorted(edits, key=lambda e: e.start)
    for before, after in zip(ordered, ordered[1:], strict=False):
        assert before.end <= after.start
    for edit in edits:
        assert text[edit.start : edit.end] == edit.original
    assert apply_edits(text, edits) == (
        "I think there is an apple on the table. The meeting with John is on Thrusday, "
        "email john@company.com"
    )


def test_apply_edits_refuses_overlaps_and_stale_spans():
    text = "abc def"
    first = TextEdit(
        tier="lexical", original="abc", replacement="x", start=0, end=3, confidence=1.0
    )
    overlapping = TextEdit(
        tier="lexical", original="c d", replacement="y", start=2, end=5, confidence=1.0
    )
    stale = TextEdit(
        tier="lexical", original="zzz", replacement="y", start=4, end=7, confidence=1.0
    )
    insert = TextEdit(
        tier="syntactic", original="", replacement=".", start=7, end=7, confidence=1.0
    )
    assert apply_edits(text, [insert, first]) == "x def."
    with pytest.raises(ValueError, match="overlapping"):
        apply_edits(text, [first, overlapping])
    with pytest.raises(ValueError, match="expects"):
        apply_edits(text, [stale])


# --- rules are data ------------------------------------------------------------------------------
USER_RULES = """
; a user's rules file: a new rule and a new class, and the shipped capital rule switched off
(word-class team-slang "gonna" "wanna")
(syntax-rule no-slang 0.1 (pattern (class team-slang)) (replace 0 "going to") "write it out")
(syntax-rule sentence-capital 99 (pattern start (class lowercase-word)) (capitalise 1) "off")
(spelling-config min-confidence 0.5)
"""


@pytest.mark.parametrize("parser", ["sexpr", "metta"])
def test_a_user_rule_file_adds_and_overrides_rules_without_python(parser):
    extra = parse(USER_RULES) if parser == "sexpr" else MeTTa().parse_all(USER_RULES)
    shipped = shipped_atoms() if parser == "sexpr" else MeTTa().parse_all(_shipped_text())
    user = SpellingCorrector(rule_atoms=[*shipped, *extra])
    text = "we are gonna win."
    assert apply_edits(text, user.correct(text)) == "we are going to win."
    assert [e.rule for e in user.correct(text)] == ["no-slang"]


def _shipped_text() -> str:
    from importlib import resources

    return (resources.files("replyguard.metta") / "spelling.metta").read_text(encoding="utf-8")


def test_an_edit_cost_is_data_too():
    cheap = SpellingCorrector(rule_atoms=[*shipped_atoms(), *parse("(edit-cost vowel 0.1)")])
    assert cheap.rules.costs.vowel == 0.1


@pytest.mark.parametrize(
    ("atom", "message"),
    [
        (
            '(syntax-rule broken 0.2 (pattern (word "a")) (replace 5 "an") "x")',
            "syntax-rule broken: action target 5",
        ),
        (
            '(syntax-rule broken 0.2 (pattern (class nonesuch)) (delete 0) "x")',
            "unknown word-class nonesuch",
        ),
        ('(syntax-rule broken 0.2 (wrong) (delete 0) "x")', "expected (pattern"),
        ("(edit-cost nonesuch 0.2)", "unknown edit-cost nonesuch"),
    ],
)
def test_a_malformed_rule_is_a_rule_error_naming_it(atom, message):
    with pytest.raises(RuleError, match=message.replace("(", r"\(")):
        SpellingCorrector(rule_atoms=[*shipped_atoms(), *parse(atom)])


# --- mechanisms ----------------------------------------------------------------------------------
def test_typed_strings_are_single_tokens():
    kinds = {
        t.text: t.kind
        for t in tokenize(
            "Mail a.b@c.org, see www.x.com at 3pm on 1/2/2024, call 555-123-4567, "
            "code AB-12, iPhone"
        )
    }
    assert kinds["a.b@c.org"] == "email" and kinds["www.x.com"] == "url"
    assert kinds["3pm"] == "time" and kinds["1/2/2024"] == "date"
    assert kinds["555-123-4567"] == "phone"
    assert kinds["AB-12"] == "code" and kinds["iPhone"] == "code"


def test_gleu_rewards_the_reference_and_penalises_kept_errors():
    sources = ["a b c d"]
    references = [["a b c e"], ["a b c e"]]
    assert corpus_gleu(sources, ["a b c e"], references, iterations=5) == pytest.approx(100.0)
    assert corpus_gleu(sources, ["a b c d"], references, iterations=5) == 0.0
    with pytest.raises(ValueError):
        corpus_gleu(sources, ["a", "b"], references)
