"""A thing's class said as what it is: "It's a punk song", "This is considered jazz", "The genre
is indietronica", "a track from the Middle Eastern genre".

A class the KB does not list is a word like any other, so it is read as a value only where the
reply answers for a class: the user's question asks for one ("What kind of music is it?", when
the KB has one attribute of classes; or one it names: "What genre ...") or the sentence names
the attribute itself ("The genre is ..."). There, the words after the copula, past an article
and the words that only describe (`descriptive-word` in metta/lexicon.metta: "a great song"),
are the class: all but the last when an article opens them ("a punk song": the last is the
thing's own noun), all of them when none does ("It's indie"). A class the KB holds is already a
value, and a phrase that runs into one ("a lovely Pop song") is left alone. The value read so
is checked against the entity the sentence speaks of, and corrected when it is not its class.
A name said as what a thing is ("Another event is Fidlar") is a thing, not a class, except as the
answer to a question that asked for the class, of a thing the reply points at ("It's Electronica",
"This is Africa").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from replyguard.models import ValueType
from replyguard.text.lexicon import KBIndex, WordLists
from replyguard.text.tokens import Token
from replyguard.text.words import stem
from replyguard.values import value_key

if TYPE_CHECKING:
    from replyguard.text.lexer import Lexeme

_TEXTUAL = (ValueType.text, ValueType.enum)
_ARTICLES = frozenset({"a", "an"})
_DEFINITE = frozenset("the this that these those my your his her its our their".split())
_MAX_WORDS = 3  # "performing arts venue"


def class_attributes(index: KBIndex, words: WordLists) -> frozenset[str]:
    """The KB's attributes of classes: textual, not yes/no, named by a class word ("genre",
    "event_type", "cuisine")."""
    return frozenset(
        a
        for a in index.schema
        if a not in index.polar
        and index.attribute_type(a) in _TEXTUAL
        and any("class-word" in words.markers.get(p) for p in a.lower().split("_"))
    )


def asked_classes(
    question_words: Iterable[str], classes: frozenset[str], words: WordLists
) -> frozenset[str]:
    """The attributes of classes a question asks for: those it names, else the KB's only one
    when it asks for a kind ("what kind of music", "which type")."""
    folded = [w.lower() for w in question_words]
    stems = {stem(w) for w in folded}
    # every word of its name: "what type of ride" names ride_type, "book a ride" does not
    named = frozenset(a for a in classes if all(stem(p) in stems for p in a.lower().split("_")))
    if named:
        return named
    asks_kind = any("class-word" in words.markers.get(w) for w in folded)
    return classes if asks_kind and len(classes) == 1 else frozenset()


def class_complement_spans(
    tokens: list[Token],
    folded: list[str],
    row: list[Lexeme],
    attribute: str,
    plain: Callable[[str], bool],
    descriptive: Callable[[str], bool],
    asked: bool,
) -> list[tuple[int, int]]:
    """Token spans of the classes a sentence says after its copula (see the module's text), and,
    where the question ASKED for the class, before the attribute's name ("from the Middle
    Eastern genre"; elsewhere "in the games category" may only paraphrase the class)."""
    if any(lx.cat == "VAL" and attribute in lx.attributes for lx in row):
        return []  # the sentence already says a value of it
    if row and row[-1].text.rstrip().endswith("?"):
        return []  # a question states no class
    spans = []
    for k, lexeme in enumerate(row):
        if lexeme.cat != "COP":
            continue
        run: list[int] = []
        proper: set[int] = set()  # tokens of names no dictionary knows ("Fidlar")
        j = k + 1
        while j < len(row) and row[j].cat in ("W", "NAME"):
            run.extend(range(row[j].start_tok, row[j].end_tok))
            if row[j].cat == "NAME" and not row[j].common_word:
                proper.update(range(row[j].start_tok, row[j].end_tok))
            j += 1
        ended_by_value = j < len(row) and row[j].cat == "VAL"
        if asked and k and row[k - 1].cat == "PRON":
            proper = set()  # "It's Electronica" to "What genre is it?": the class, as a name
        span = _complement(tokens, folded, run, plain, descriptive, ended_by_value, proper)
        if span is not None:
            spans.append(span)
    for k, lexeme in enumerate(row):
        if asked and k and lexeme.cat == "CUE" and attribute in lexeme.attributes:
            span = _before_cue(tokens, folded, row[k - 1], plain, descriptive)
            if span is not None:
                spans.append(span)
    return spans


def _complement(
    tokens: list[Token],
    folded: list[str],
    run: list[int],
    plain: Callable[[str], bool],
    descriptive: Callable[[str], bool],
    ended_by_value: bool,
    proper: set[int],
) -> tuple[int, int] | None:
    k = 0
    article = False
    while k < len(run) and (plain(folded[run[k]]) or descriptive(folded[run[k]])):
        if folded[run[k]] in _DEFINITE:
            return None  # "is the song", "is your track": a thing, not its class
        article = article or folded[run[k]] in _ARTICLES
        k += 1
    taken = []
    while k < len(run) and _word(tokens[run[k]]) and not plain(folded[run[k]]):
        taken.append(run[k])
        k += 1
    if k == len(run) and ended_by_value:
        return None  # "a lovely Pop song": the run goes on into a value
    if article:
        taken = taken[:-1]  # "a punk song": the last word is the thing's own noun
    elif proper.intersection(taken):
        return None  # "Another event is Fidlar": a name said as what a thing is, not a class
    while taken and descriptive(folded[taken[0]]):
        taken = taken[1:]
    if not taken or len(taken) > _MAX_WORDS or any(descriptive(folded[t]) for t in taken):
        return None
    return taken[0], taken[-1] + 1


def _before_cue(
    tokens: list[Token],
    folded: list[str],
    before: Lexeme,
    plain: Callable[[str], bool],
    descriptive: Callable[[str], bool],
) -> tuple[int, int] | None:
    """ "from the Middle Eastern genre": the words between a function word and the cue."""
    if before.cat not in ("W", "NAME"):
        return None
    taken: list[int] = []
    for t in range(before.end_tok - 1, before.start_tok - 1, -1):
        if plain(folded[t]) or not _word(tokens[t]):
            break
        taken.insert(0, t)
    taken = [t for t in taken if not descriptive(folded[t])]
    if not taken or len(taken) > _MAX_WORDS:
        return None
    return taken[0], taken[-1] + 1


def _word(token: Token) -> bool:
    return token.text.replace("-", "").isalpha()


def class_value(lexeme: Lexeme, attribute: str) -> Lexeme:
    """The span made a value of the attribute of classes."""
    lexeme.cat, lexeme.value_type, lexeme.attributes = "VAL", ValueType.text, (attribute,)
    lexeme.name_value = True
    lexeme.value_key = value_key(ValueType.text, lexeme.text)
    return lexeme
