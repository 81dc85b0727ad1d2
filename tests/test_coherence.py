"""The seed's coherence examples: each analyser's score moves the right way with the right issue."""

from __future__ import annotations

from conftest import check

from replyguard.models import CoherenceIssueType, Turn

QUD = "What time is the meeting with John?"
SCHEDULING = [
    Turn(speaker="user", text="I need to set up a meeting with John about the budget."),
    Turn(speaker="assistant", text="Sure, which day works for the meeting?"),
    Turn(speaker="user", text="Monday afternoon, and please send the invites."),
]


def _issue_types(result):
    return {i.issue_type for i in result.coherence.issues}


def test_qud_answered_versus_ignored(engine):
    good = check(engine, "The meeting with John is at 2pm on Monday.", QUD)
    bad = check(engine, "John is a great colleague who works in Engineering.", QUD)
    assert good.coherence.qud_relevance.addresses_qud
    assert good.coherence.qud_relevance.expected_answer == "Time"
    assert good.coherence.qud_relevance.score > bad.coherence.qud_relevance.score
    assert CoherenceIssueType.QUDNotAddressed in _issue_types(bad)
    assert not {
        CoherenceIssueType.QUDNotAddressed,
        CoherenceIssueType.QUDPartiallyAddressed,
    } & _issue_types(good)


def test_yes_no_question_answered_directly(engine):
    yes = check(engine, "Yes, John works in Engineering.", "Does John work in Engineering?")
    vague = check(engine, "The weather is lovely today.", "Does John work in Engineering?")
    assert yes.coherence.qud_relevance.answer_coverage == 1.0
    assert vague.coherence.qud_relevance.answer_coverage < 0.5


def test_topic_drift(engine):
    good = check(
        engine,
        "I've scheduled the meeting for 2pm. Should I send calendar invites to the attendees?",
        "Can you schedule it?",
        SCHEDULING,
    )
    bad = check(
        engine,
        "By the way, have you tried the new restaurant downtown? The food is amazing.",
        "Can you schedule it?",
        SCHEDULING,
    )
    assert good.coherence.topic_consistency.score > bad.coherence.topic_consistency.score
    assert bad.coherence.topic_consistency.drift_detected
    assert CoherenceIssueType.TopicUnrelated in _issue_types(bad)
    assert not {CoherenceIssueType.TopicUnrelated, CoherenceIssueType.TopicDrift} & _issue_types(
        good
    )


def test_entity_mismatch(engine):
    good = check(engine, "John Smith from Engineering confirmed his attendance.")
    bad = check(engine, "John Smith from Marketing will present the budget.")
    assert good.coherence.entity_consistency.score == 1.0
    assert bad.coherence.entity_consistency.score < good.coherence.entity_consistency.score
    assert bad.coherence.entity_consistency.mismatches == 1
    assert CoherenceIssueType.EntityMismatch in _issue_types(bad)


def test_discourse_break_after_scheduling(engine):
    query = "Please schedule a meeting with John on Monday."
    good = check(engine, "I've scheduled the meeting. Is there anything else?", query)
    bad = check(engine, "Why did you cancel the meeting?", query)
    assert good.coherence.discourse_coherence.reply_act == "Confirmation"
    assert good.coherence.discourse_coherence.score > bad.coherence.discourse_coherence.score
    assert CoherenceIssueType.DiscourseBreak in _issue_types(bad)
    assert "Confirmation" in good.coherence.discourse_coherence.expected_acts


def test_unexpected_speech_act(engine):
    result = check(engine, "Hello there!", "What is John's email?")
    assert CoherenceIssueType.UnexpectedSpeechAct in _issue_types(result)


def test_ambiguous_pronoun(engine):
    turns = [Turn(speaker="user", text="Sarah and Emily are preparing the budget slides.")]
    ambiguous = check(engine, "She will present the budget.", "Who presents?", turns)
    clear = check(
        engine,
        "He will present first, then she will take questions.",
        "Who presents?",
        [Turn(speaker="user", text="John and Sarah are presenting.")],
    )
    assert CoherenceIssueType.AmbiguousReference in _issue_types(ambiguous)
    pronoun = ambiguous.coherence.reference_consistency.pronouns[0]
    assert set(pronoun.candidates) == {"Sarah Johnson", "Emily Chen"}
    assert clear.coherence.reference_consistency.score == 1.0
    assert ambiguous.coherence.reference_consistency.score < 1.0


def test_pronoun_without_referent(engine):
    result = check(engine, "She will send the slides.", "Who sends the slides?")
    assert CoherenceIssueType.InconsistentPronoun in _issue_types(result)


def test_salience_decays_out_of_focus(engine):
    """A person mentioned 12 turns ago (0.8^12 < 0.1) is no longer a candidate for "she"."""
    turns = [Turn(speaker="user", text="Sarah Johnson sent the report.")]
    turns += [Turn(speaker="assistant" if i % 2 else "user", text="Okay.") for i in range(12)]
    result = check(engine, "She will present it.", "Who presents?", turns)
    assert result.coherence.reference_consistency.pronouns[0].candidates == []


def test_named_entity_brings_what_the_kb_says_it_is(engine):
    # Acme's industry is "Software": naming Acme speaks of the software company asked about.
    result = check(engine, "That would be Acme.", "Which is the software company we use?")
    assert result.coherence.qud_relevance.semantic_relevance >= 0.6
    unknown = check(engine, "That would be Initech.", "Which is the software company we use?")
    assert unknown.coherence.qud_relevance.semantic_relevance == 0.0
