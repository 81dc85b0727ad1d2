"""Tokens and sentences with character spans into the original text.

Every later span (claims, flags, corrections) is built from these offsets, so tokenisation never
rewrites the text: it only finds boundaries. Typed strings that contain punctuation (emails, URLs,
phone numbers, money, percentages) are single tokens so that sentence splitting cannot cut them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from replyguard.values import EMAIL_RE, MONEY_RE, PERCENT_RE, PHONE_RE, URL_RE

_TOKEN_RE = re.compile(
    "|".join(
        [
            f"(?P<url>{URL_RE.pattern})",
            f"(?P<email>{EMAIL_RE.pattern})",
            f"(?P<money>{MONEY_RE.pattern})",
            f"(?P<percent>{PERCENT_RE.pattern})",
            f"(?P<phone>{PHONE_RE.pattern})",
            r"(?P<ident>\b[A-Z]{1,4}-?\d{2,}[A-Z0-9]*\b)",
            r"(?P<num>\d+(?:[.,:/]\d+)*(?:st|nd|rd|th)?)",
            r"(?P<word>[^\W\d_](?:[^\W_]|['’.-](?=[^\W\d_]))*)",
            r"(?P<punct>[^\w\s])",
        ]
    ),
    re.IGNORECASE | re.UNICODE,
)
_CLITIC_RE = re.compile(
    r"(?i)(?P<stem>.+?)(?P<clitic>['’]s|n['’]t|['’]re|['’]ll|['’]ve|['’]d|['’]m)$"
)
_ABBREVIATIONS = {
    "mr",
    "mrs",
    "ms",
    "dr",
    "prof",
    "st",
    "ave",
    "rd",
    "blvd",
    "vs",
    "etc",
    "e.g",
    "i.e",
    "approx",
    "no",
    "jr",
    "sr",
    "inc",
    "ltd",
    "co",
    "dept",
    "mt",
}
# Titles are followed by a name, so the dot after them never ends a sentence ("Mr. Smith").
_TITLES = {"mr", "mrs", "ms", "dr", "prof", "mt"}
_INITIALISM_RE = re.compile(r"(?:[^\W\d_]{1,2}\.)+[^\W\d_]{1,2}")
_SENTENCE_END = {".", "!", "?"}
# A full stop typed without the space after it, between a word and the capitalised word that
# opens the next sentence ("at Alcatraz Island.You should", "High On Life.I'm"); initialisms
# ("D.C", "J.K") and domains ("example.com") have parts of one or two letters, or no capital
# after the dot.
_RUN_ON = re.compile(r"(?<=[^\W\d_][a-z]{2})(\.)(?=[A-Z](?:[a-z]|['’]|$))")


@dataclass(frozen=True, slots=True)
class Token:
    text: str
    start: int
    end: int
    kind: str  # word | num | email | url | phone | money | percent | ident | punct | clitic
    # the text lower-cased, one apostrophe: read for every token many times over, so made once
    lower: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "lower", self.text.lower().replace("’", "'"))

    @property
    def is_capitalised(self) -> bool:
        return self.kind == "word" and self.text[:1].isupper()


@dataclass(frozen=True, slots=True)
class Sentence:
    start_token: int
    end_token: int  # exclusive
    start: int
    end: int


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    for m in _TOKEN_RE.finditer(text):
        kind = m.lastgroup or "punct"
        if kind in ("money",) and not any(c.isdigit() for c in m.group()):
            kind = "word"
        if kind == "word":
            start = m.start()
            for part in _RUN_ON.split(m.group()):  # "Brooklyn.Is it": a stop with no space
                if part == ".":
                    tokens.append(Token(part, start, start + 1, "punct"))
                elif part:
                    tokens.extend(_split_clitic(part, start))
                start += len(part)
            continue
        tokens.append(Token(m.group(), m.start(), m.end(), kind))
    return tokens


def _split_clitic(word: str, start: int) -> list[Token]:
    m = _CLITIC_RE.match(word)
    if not m or not m["stem"]:
        return [Token(word, start, start + len(word), "word")]
    stem, clitic = m["stem"], m["clitic"]
    cut = start + len(stem)
    return [Token(stem, start, cut, "word"), Token(clitic, cut, cut + len(clitic), "clitic")]


def split_sentences(text: str, tokens: list[Token]) -> list[Sentence]:
    sentences: list[Sentence] = []
    begin = 0
    for i, tok in enumerate(tokens):
        if _run_on_question(tokens, i):
            sentences.append(Sentence(begin, i + 1, tokens[begin].start, tok.end))
            begin = i + 1
            continue
        if tok.text not in _SENTENCE_END and "\n\n" not in text[tok.end : _next_start(tokens, i)]:
            continue
        if tok.text == "." and i > 0 and abbreviation_dot(tokens, i):
            continue
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if nxt is not None and nxt.text in _SENTENCE_END:
            continue
        sentences.append(Sentence(begin, i + 1, tokens[begin].start, tok.end))
        begin = i + 1
    if begin < len(tokens):
        sentences.append(Sentence(begin, len(tokens), tokens[begin].start, tokens[-1].end))
    return sentences


# auxiliaries that open a question; after a comma, with their capital, they start a new one
_QUESTION_OPENERS = frozenset(
    "Is Are Was Were Do Does Did Can Could Would Will Shall Should May".split()
)


def _run_on_question(tokens: list[Token], i: int) -> bool:
    """ "It will be 26 %, Is that convenient to you?": a comma, then a capitalised auxiliary,
    ends a statement run on into the question after it."""
    return (
        tokens[i].text == ","
        and i > 0
        and i + 2 < len(tokens)
        and tokens[i + 1].text in _QUESTION_OPENERS
        and tokens[i + 2].kind == "word"
    )


def may_end_sentence(text: str) -> bool:
    """Whether `text` holds anything split_sentences ends a sentence at (a mark or a blank
    line): a text without one is a single unfinished sentence."""
    return "\n\n" in text or any(mark in text for mark in _SENTENCE_END)


def is_initial(tokens: list[Token], k: int) -> bool:
    """Whether token k is an initial a dot may close inside a name: an initialism ("J.K",
    "P.F"), or a capital letter next to another ("J. K. Rowling", "George R. R. Martin"); a
    lone one ("plan A. Then") ends a sentence."""
    if _INITIALISM_RE.fullmatch(tokens[k].lower):
        return True

    def letter(n: int) -> bool:
        return 0 <= n < len(tokens) and len(tokens[n].text) == 1 and tokens[n].text.isupper()

    def dot(n: int) -> bool:
        return 0 <= n < len(tokens) and tokens[n].text == "."

    return letter(k) and ((dot(k - 1) and letter(k - 2)) or (dot(k + 1) and letter(k + 2)))


def abbreviation_dot(tokens: list[Token], i: int) -> bool:
    """A dot that closes an abbreviation rather than a sentence: after a title ("Dr. Lee"), an
    initialism before a name ("P.F. Changs", "J.R. Smith"), or any listed abbreviation followed
    by a lower-case word ("approx. two miles")."""
    before, rest = tokens[i - 1], tokens[i + 1 :]
    word = before.lower
    if before.kind != "word" or not rest:
        return False
    if word in _TITLES or is_initial(tokens, i - 1):
        return rest[0].kind == "word"
    if word == "st" and rest[0].is_capitalised and not (i > 1 and tokens[i - 2].is_capitalised):
        return True  # "the Cathedral of St. Matthew": a saint; "Quay St. Matthew ..." a street
    return word in _ABBREVIATIONS and not rest[0].text[:1].isupper()


def _next_start(tokens: list[Token], i: int) -> int:
    return tokens[i + 1].start if i + 1 < len(tokens) else tokens[i].end
