"""Speech acts and presuppositions, for the discourse analyser (DESIGN §5.1.4).

Acts are read off the word lists in metta/lexicon.metta (request, greeting and thanks markers, act
markers) and the question grammar; which reply act fits which turn act is a rule
(`act-fits` in metta/coherence.metta).
"""

from __future__ import annotations

from dataclasses import dataclass

from replyguard.models import QuestionType
from replyguard.stages.context import CallContext
from replyguard.text.analysis import ReadText
from replyguard.text.lexicon import WordLists, past_openers
from replyguard.text.questions import classify_question
from replyguard.text.tokens import tokenize
from replyguard.text.words import content_stems

_CLARIFYING_WH = {"what", "which", "when", "where", "who", "whom", "how"}


def _markers_at_start(text: str, words: WordLists, prefix: str) -> list[str]:
    """Markers among the first three words, after any opening particles ("Okay, I am ...")."""
    tokens = [t.lower for t in tokenize(text)[:12]]
    skip = past_openers(tokens, words.markers.get)
    tokens = tokens[skip : skip + 6]
    kinds: list[str] = []
    for i in range(min(3, len(tokens))):
        kinds.extend(_kinds_at(tokens, i, words, prefix))
    return kinds


_PERSONS = frozenset({"self-reference", "addressee"})
# a phrase after one of these is a word of a noun phrase: "the anytime pass" acknowledges nothing
_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "each", "every"})


def _kinds_at(tokens: list[str], i: int, words: WordLists, prefix: str) -> list[str]:
    """The word-list kinds with `prefix` of the longest phrase at word i that has any: "remind
    me about" is a detail phrase, and "remind me" within it still marks a request. A phrase
    right after a first- or second-person word names a thing of theirs, not an act: "our
    booking office", "your booking reference"; so does one after a determiner ("the anytime
    pass")."""
    if i > 0 and (
        _PERSONS & set(words.markers.get(tokens[i - 1])) or tokens[i - 1] in _DETERMINERS
    ):
        return []
    for _, payloads in words.markers.starting_at(tokens, i):
        kinds = [k for k in payloads if isinstance(k, str) and k.startswith(prefix)]
        if kinds:
            return kinds
    return []


def _markers_in(text: str, words: WordLists, prefix: str) -> list[str]:
    tokens = [t.lower for t in tokenize(text)]
    kinds: list[str] = []
    for i in range(len(tokens)):
        kinds.extend(_kinds_at(tokens, i, words, prefix))
    return kinds


def classify_turn_act(text: str, given: str | None, words: WordLists) -> str:
    """Question, Request, Greeting, Thanks or Statement (a given `act` wins). A turn is read
    once per word lists."""
    if given:
        return given
    return words.remember("act", text, lambda t: _turn_act(t, words))


def _turn_act(text: str, words: WordLists) -> str:
    if _markers_at_start(text, words, "request-marker") or _markers_in(
        text, words, "late-request-marker"
    ):
        return "Request"
    if _markers_at_start(text, words, "thanks-marker"):
        return "Thanks"
    if classify_question(text).question_type != QuestionType.Statement:
        return "Question"
    if _markers_at_start(text, words, "greeting-marker"):
        return "Greeting"
    return "Statement"


def classify_reply_act(reply: ReadText, words: WordLists) -> str:
    """The reply's main act: a marked act, a (clarifying) question, else an answer."""
    text = reply.text
    first = text[: reply.lexed.sentences[0].end] if reply.lexed.sentences else text
    acts = [k.split(":", 1)[1] for k in _markers_at_start(first, words, "act-marker:")]
    acts = acts or [k.split(":", 1)[1] for k in _markers_in(first, words, "late-act-marker:")]
    if acts:
        return acts[0]
    sentences = reply.lexed.sentences
    questions = [s for s in sentences if _asks(text[s.start : s.end])]
    if sentences and len(questions) == len(sentences):
        form = classify_question(text[questions[0].start : questions[0].end])
        if form.question_type in (QuestionType.YesNo, QuestionType.Alternative) or (
            form.wh_word in _CLARIFYING_WH
        ):
            return "ClarifyingQuestion"
        return "Question"
    return "Answer"


def _asks(sentence: str) -> bool:
    """A sentence ending in "?", or one opening with a wh-word typed without it ("which day
    suits you"); "What a view!" exclaims."""
    words = [t.lower for t in tokenize(sentence)]
    return sentence.rstrip().endswith("?") or (
        len(words) > 1
        and words[0] in _CLARIFYING_WH
        and words[1] not in ("a", "an")
        and not sentence.rstrip().endswith("!")
    )


@dataclass(frozen=True)
class PresuppositionConflict:
    noun: str
    presupposed: str
    known: str
    turn_id: str
    turn_text: str


def _states(text: str, words: WordLists) -> list[tuple[str, str, str]]:
    """(state, object stem, object word): "cancel the meeting" -> (Cancelled, meet, meeting)."""
    return words.remember("states", text, lambda t: _read_states(t, words))


def _read_states(text: str, words: WordLists) -> list[tuple[str, str, str]]:
    tokens = tokenize(text)
    lowered = [t.lower for t in tokens]
    found = []
    for i in range(len(tokens)):
        hit = words.markers.longest(lowered, i)
        if hit is None:
            continue
        n, kinds = hit
        states = [
            k.split(":", 1)[1] for k in kinds if isinstance(k, str) and k.startswith("state-verb:")
        ]
        if not states:
            continue
        objects = [
            (stems[0], t.text.lower())
            for t in tokens[i + n : i + n + 3]
            if (stems := content_stems([t.text]))
        ]
        if objects:
            found.append((states[0], *objects[0]))
    return found


def presupposition(ctx: CallContext, words: WordLists) -> PresuppositionConflict | None:
    """The reply treats an event as in a state the dialogue's latest word on it contradicts."""
    known: dict[str, tuple[str, str, str]] = {}
    for reading in ctx.dialogue.readings:
        for state, noun, _ in _states(reading.turn.text, words):
            known[noun] = (state, reading.turn.id or "", reading.turn.text)
    for state, noun, word in _states(ctx.response, words):
        if noun in known:
            prior, turn_id, turn_text = known[noun]
            if (state, prior) in words.opposite_states:
                return PresuppositionConflict(word, state, prior, turn_id, turn_text)
    return None
