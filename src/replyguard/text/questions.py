"""Question classification: grammars/question.lark over the words' classes.

The query's form (yes/no, wh-word, how, alternative, statement) and its head word ("what *time*",
"how *far*") are what the QUD analyser needs; the expected answer type is read off them by the
rules (metta/coherence.metta), so this module only parses.
"""

from __future__ import annotations

import importlib.resources
from dataclasses import dataclass
from functools import lru_cache

from lark import Lark, Token
from lark.lexer import Lexer

from replyguard.models import QuestionType
from replyguard.text.tokens import abbreviation_dot, tokenize

_AUX = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "am",
        "do",
        "does",
        "did",
        "can",
        "could",
        "will",
        "would",
        "should",
        "shall",
        "may",
        "might",
        "must",
        "has",
        "have",
        "had",
        "isn't",
        "aren't",
        "wasn't",
        "don't",
        "doesn't",
        "didn't",
        "can't",
        "won't",
    ]
)
WH_WORDS = frozenset(["what", "which", "who", "whom", "whose", "where", "when", "why"])
# a wh-word and "is" typed without the apostrophe: "whats the price?", "wheres it?"
_WH_IS = {"whats": "what", "wheres": "where", "whos": "who", "whens": "when", "hows": "how"}
# Verbs under which a wh-clause is a question ("tell me when it opens", "I wonder who sings it");
# elsewhere, in a sentence without "?", it is a free relative ("That is what I wanted").
_ASKING = frozenset(
    ["tell", "know", "ask", "wonder", "check", "show", "find", "see", "explain", "confirm"]
    + ["remind", "say", "guess", "learn", "figure", "understand", "sure", "idea", "curious"]
)
# Verbs by which "can you ... me X?" asks what X is ("Could you give me their number?")
_TELLING = frozenset(["tell", "give", "show", "send", "text", "email", "share"])
_DETERMINERS = frozenset(
    ["the", "a", "an", "its", "their", "his", "her", "your", "my", "our", "this", "that"]
)
# What an auxiliary that opens a question is inverted with: a subject ("do *you* ...", "is *the*
# hall ..."). Without "?", an opening auxiliary followed by none of these is a verb of a command
# ("Do Tuesday.", "Will do.").
_SUBJECTS = _DETERMINERS | frozenset(
    ["you", "i", "we", "they", "it", "he", "she", "there", "these", "those", "any", "anyone"]
)


@dataclass(frozen=True)
class QuestionForm:
    question_type: QuestionType
    wh_word: str | None = None
    head: str | None = None  # the word after the wh-word or "how": "time", "far", "many"


class _WordClasses(Lexer):
    """Feeds the grammar the word classes of a question, one terminal each."""

    def __init__(self, lexer_conf: object) -> None:
        del lexer_conf

    def lex(self, data: tuple[str, ...]):  # noqa: ANN201 - Lark's Lexer interface
        for i, cls in enumerate(data):
            yield Token(cls, cls, start_pos=i)


@lru_cache(maxsize=1)
def question_parser() -> Lark:
    source = (importlib.resources.files("replyguard.grammars") / "question.lark").read_text()
    return Lark(source, parser="earley", lexer=_WordClasses)


@lru_cache(maxsize=2048)
def _form_of(classes: tuple[str, ...]) -> str:
    """The kind of question (the grammar's rule) a sequence of word classes reads as. The parse
    depends on nothing but the classes, and few sequences occur, so each is parsed once (an
    Earley parse of a long question costs milliseconds)."""
    return str(question_parser().parse(classes).children[0].data)


def _collapsed(words: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Runs of other words collapse to one W (its first word)."""
    return [w for i, w in enumerate(words) if not (w[0] == "W" and i and words[i - 1][0] == "W")]


def _form(kind: str, words: list[tuple[str, str]]) -> QuestionForm:
    if kind == "polar_question":
        return QuestionForm(QuestionType.YesNo)
    if kind == "alternative_question":
        return QuestionForm(QuestionType.Alternative)
    if kind == "wh_question":
        return QuestionForm(QuestionType.Wh, *_word_and_head(words, "WH"))
    if kind == "how_question":
        return QuestionForm(QuestionType.How, *_word_and_head(words, "HOW"))
    return QuestionForm(QuestionType.Statement)


def _word_and_head(words: list[tuple[str, str]], kind: str) -> tuple[str, str | None]:
    k = next(i for i, (cls, _) in enumerate(words) if cls == kind)
    head = words[k + 1][1] if k + 1 < len(words) and words[k + 1][0] == "W" else None
    return words[k][1].lower(), (head.split()[0].lower() if head else None)


# words after "how much" that still ask a price: "how much for two?", "how much a night?"
_RATE = frozenset(["for", "per", "a", "an", "each", "to", "in", "extra", "more"])


def _amount_of(form: QuestionForm, words: list[tuple[str, str]]) -> QuestionForm:
    """ "How much clay ...?" asks an amount of a thing: head "much of"; "how much" before the
    verb ("how much is it?") asks a price, head "much" (the rules read both:
    metta/coherence.metta)."""
    if form.question_type != QuestionType.How or form.head != "much":
        return form
    k = next(i for i, (cls, _) in enumerate(words) if cls == "HOW")
    if k + 2 < len(words) and words[k + 2][0] == "W" and words[k + 2][1].lower() not in _RATE:
        return QuestionForm(form.question_type, form.wh_word, "much of")
    return form


@lru_cache(maxsize=4096)
def classify_question(text: str) -> QuestionForm:
    """The form of the first sentence of text (a statement when there is nothing to parse)."""
    words: list[tuple[str, str]] = []
    tokens = tokenize(text)
    for i, tok in enumerate(tokens):
        low = tok.lower
        if tok.text in ("?",):
            words.append(("END", "?"))
            break
        if tok.text == "." and words and abbreviation_dot(tokens, i):
            continue  # "Didn't P.D. Eastman write it?" goes on past the initials' dot
        if tok.text in (".", "!") and words:
            break
        if tok.kind == "clitic":
            cls = "AUX" if low in ("'s", "'re") and words and words[-1][0] == "WH" else "W"
        elif low in _WH_IS:
            words.append(("HOW" if _WH_IS[low] == "how" else "WH", _WH_IS[low]))
            cls, low = "AUX", "is"
        elif low in _AUX:
            cls = "AUX"
        elif low in WH_WORDS:
            cls = "WH"
        elif low == "how":
            cls = "HOW"
        elif low == "or":
            cls = "OR"
        else:
            cls = "W"
        words.append((cls, tok.text))
    if not words or _commands(words):
        return QuestionForm(QuestionType.Statement)
    asked = _asks_what(words)
    if asked is not None:
        return asked
    collapsed = _collapsed(words)
    form = _form(_form_of(tuple(cls for cls, _ in collapsed)), collapsed)
    if form.question_type in (QuestionType.Wh, QuestionType.How) and _free_relative(words):
        return QuestionForm(QuestionType.Statement)
    if form.question_type == QuestionType.Wh and _subordinate_wh(words):
        return QuestionForm(QuestionType.YesNo)
    return _amount_of(form, words)


# words after which a wh-word opens the question asked ("can you tell me when it opens?",
# "do you know what time ..."); after any other, in a question opened by an auxiliary, it opens
# a clause of time or place ("Can I park when I drop off?")
_EMBEDDING = frozenset(
    "me us know tell ask say show check see find out confirm remind explain wonder remember"
    " whether".split()
)


def _subordinate_wh(words: list[tuple[str, str]]) -> bool:
    """ "Can I park when I drop off?": an auxiliary opens a yes/no question, and a wh-word
    after a verb that embeds no question starts a clause of it, not the question."""
    if words[0][0] != "AUX":
        return False
    k = next(i for i, (cls, _) in enumerate(words) if cls == "WH")
    before = words[k - 1][1].lower().split() if k else []
    return bool(before) and words[k - 1][0] == "W" and before[-1] not in _EMBEDDING


def _commands(words: list[tuple[str, str]]) -> bool:
    """ "Do Tuesday then." or "Do 5 pm.": an opening auxiliary with no "?" and no subject
    after it is the verb of a command, not an inverted question ("Do you deliver." still asks)."""
    return (
        words[0][0] == "AUX"
        and words[-1][0] != "END"
        and (len(words) < 2 or words[1][1].lower() not in _SUBJECTS)
    )


def _asks_what(words: list[tuple[str, str]]) -> QuestionForm | None:
    """ "Can you tell me the cost?", "Could you let me know their address?": a request to be told
    something asks what it is, its head the first word after the determiners. (With a wh-word
    after the verb, "can you tell me when it opens?", the grammar reads the embedded question.)"""
    low = [w.lower() for _, w in words]
    if len(low) < 3 or words[0][0] != "AUX" or low[1] != "you":
        return None
    i = 3 if low[2] == "please" else 2
    if low[i : i + 3] in (["let", "me", "know"], ["let", "us", "know"]):
        i += 3
    elif i < len(low) and low[i] in _TELLING:
        i += 2 if i + 1 < len(low) and low[i + 1] in ("me", "us") else 1
    else:
        return None
    if any(cls in ("WH", "HOW") for cls, _ in words[i:]):
        return None
    while i < len(low) and low[i] in _DETERMINERS:
        i += 1
    if i >= len(low) or words[i][0] != "W":
        return None
    return QuestionForm(QuestionType.Wh, "what", low[i])


def _free_relative(words: list[tuple[str, str]]) -> bool:
    """ "This is exactly what I want.": a wh-word inside a sentence that asks nothing (no "?",
    no verb of asking or knowing before it) opens a relative clause, not a question."""
    if words[-1][0] == "END" or words[0][0] in ("WH", "HOW"):
        return False
    lead = next(i for i, (cls, _) in enumerate(words) if cls in ("WH", "HOW"))
    return not any(w.lower() in _ASKING for _, w in words[:lead])
