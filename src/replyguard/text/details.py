"""Request details named by a phrase rather than by the KB: "with my aunt" names who comes along,
"a reminder for dinner" what the event is, and in "Dinner with Ana is set" the sentence's subject
is the event. A request and the confirmation that restates it can then be compared on details no
KB column lists.

The phrases and the slot each introduces are word lists in metta/lexicon.metta
(`detail-phrase`, `event-confirming`, `generic-detail`, `judgement-word`, `discourse-opener`);
this module only reads the words after a phrase.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from replyguard.models import ValueType
from replyguard.text.claims import PREPOSITIONS
from replyguard.text.lexer import LexedText, Lexeme
from replyguard.text.lexicon import past_openers
from replyguard.text.temporal import NUMBER_WORDS
from replyguard.text.tokens import Token
from replyguard.text.words import STOPWORDS, content_stems

_MARKER = "detail-phrase:"
_SKIPPED = frozenset("a an the my your our his her their its this that some".split())
_BOUNDARIES = PREPOSITIONS | frozenset(
    "and or but so is are was were be been will would has have had who which that "
    "please if when then now as".split()
)
_MAX_WORDS = 4
Details = dict[str, list[Lexeme]]  # slot -> the lexemes a text gives for it
_BOUNDS = frozenset("within under below over above than to least most about around".split())
_BETWEEN_VALUES = frozenset("a an the at on in of , and".split())
# A person's name alone does not say what happens: in "Reminder set for Jon to take medicine"
# the phrase after "set for" is who the reminder is for, not the event.
_NOT_A_NAME = frozenset({"event", "agenda"})


def phrase_after(
    lexed: LexedText, i: int, kinds: Callable[[str], tuple[object, ...]]
) -> Lexeme | None:
    """The phrase from token i (past articles and possessives) to the next preposition,
    conjunction, verb of being, punctuation, KB value or date, as a DETAIL lexeme; None when it
    is empty or made only of generic words ("a reminder")."""
    tokens = lexed.tokens
    taken = {k for lx in lexed.lexemes if lx.cat == "VAL" for k in range(lx.start_tok, lx.end_tok)}
    while i < len(tokens) and tokens[i].lower in _SKIPPED:
        i += 1
    # "a reminder for the 8th at 5 pm for yoga": the detail follows the date and time
    k = i
    while k < len(tokens) and (k in taken or tokens[k].lower in _BETWEEN_VALUES):
        k += 1
    if k > i and k < len(tokens) and tokens[k].lower == "for":
        return phrase_after(lexed, k + 1, kinds)
    j = i
    while (
        j < len(tokens)
        and j - i < _MAX_WORDS
        and tokens[j].kind in ("word", "clitic")
        and j not in taken
        and tokens[j].lower not in _BOUNDARIES
    ):
        j += 1
    words = [t.lower for t in tokens[i:j] if t.kind == "word"]
    if not words or all("generic-detail" in kinds(w) for w in words):
        return None
    text = lexed.text[tokens[i].start : tokens[j - 1].end]
    return Lexeme("DETAIL", i, j, tokens[i].start, tokens[j - 1].end, text)


def request_details(
    lexed: LexedText,
    kinds: Callable[[str], tuple[object, ...]],
    is_person: Callable[[Lexeme], bool],
) -> Details:
    """Slot -> the detail phrases a text gives for it (`phrase_after` each detail phrase).

    `kinds` gives a word's word-list kinds and `is_person` whether a name lexeme names a
    person."""
    tokens = lexed.tokens
    names = {(lx.start_tok, lx.end_tok) for lx in lexed.lexemes if is_person(lx)}
    lowered = [t.lower for t in tokens]
    out: Details = {}
    for marker in lexed.markers:
        if marker.kind.startswith(_MARKER):
            i = next((k for k, t in enumerate(tokens) if t.start >= marker.end), len(tokens))
            slot = marker.kind[len(_MARKER) :]
        elif marker.kind == "event-confirming":
            sentence = next(s for s in lexed.sentences if s.start <= marker.start < s.end + 1)
            i = past_openers(lowered, kinds, sentence.start_token)
            slot = "event"
        else:
            continue
        found = phrase_after(lexed, i, kinds)
        if found is not None and not (
            slot in _NOT_A_NAME and (found.start_tok, found.end_tok) in names
        ):
            out.setdefault(slot, []).append(found)
    return out


def count_details(lexed: LexedText) -> Details:
    """How many of a thing a text asks for or restates: "4 tickets", "three tickets" give the
    slot "count of ticket" a COUNT lexeme (the number) whose value_key is its value. A number
    inside another value ("7 pm", "$40") or after a bound ("within 3 miles", "up to 4")
    counts nothing."""
    tokens = lexed.tokens
    taken = {
        k
        for lx in lexed.lexemes
        if lx.cat == "VAL" and lx.value_type != ValueType.number
        for k in range(lx.start_tok, lx.end_tok)
    }
    out: Details = {}
    for i in range(len(tokens) - 1):
        token, noun = tokens[i], tokens[i + 1]
        if i in taken or i + 1 in taken or noun.kind != "word":
            continue
        number = int(token.text) if token.kind == "num" and token.text.isdigit() else None
        number = NUMBER_WORDS.get(token.lower, number)
        if number is None or noun.lower in _BOUNDARIES or noun.lower in _SKIPPED:
            continue
        if i > 0 and tokens[i - 1].lower in _BOUNDS:
            continue  # "within 3 miles" bounds a measure, it counts nothing
        stems = content_stems([noun.text])
        if not stems:
            continue
        # the number is the detail said ("2" of "2 passes"): what a restatement must keep
        count = Lexeme("COUNT", i, i + 1, token.start, token.end, token.text, value_key=str(number))
        out.setdefault(f"count of {stems[0]}", []).append(count)
    return out


# A modifier stands after one of these ("a luxury ride", "2 pool seats", "on regular ride") or
# opens its sentence; "to" is left out, where the next word is a verb ("to book ride"), and so
# are "or" and "and", where the modifiers name options ("a pool or regular ride").
_BEFORE_MODIFIER = (_SKIPPED | PREPOSITIONS | frozenset({"for"})) - {"to"}


def modifier_details(
    lexed: LexedText, kinds: Callable[[str], tuple[object, ...]], *, questions: bool = True
) -> Details:
    """Which kind of a thing a text names: "a luxury ride" gives the slot "kind of ride" a
    MODIFIER lexeme ("luxury", value_key its stem). The modifier is a content word right before
    the noun that ends a noun phrase, after an article, a number or a preposition (a word that
    opens a sentence is too often a verb: "add meeting"). Generic words ("the same ride"), the
    state an event is in ("your booked ride") and a word the text also uses as a noun of its
    own ("the cab ... the cab ride") name no kind; a modifier that is a KB value holds its
    attributes. Without `questions`, sentences that ask are left out: "would you mind a shared
    ride?" offers a kind, it states none."""
    tokens = lexed.tokens
    taken = {
        k
        for lx in lexed.lexemes
        if lx.cat == "VAL" and (lx.temporal is not None or lx.value_type == ValueType.number)
        for k in range(lx.start_tok, lx.end_tok)
    }
    things = _things(tokens)
    values = {  # a modifier that is a KB value ("a Standard car") holds its attributes
        k: lx.attributes
        for lx in lexed.lexemes
        if lx.cat == "VAL" and lx.attributes
        for k in range(lx.start_tok, lx.end_tok)
    }
    # "contact number", "phone number": words a cue joins name a column, not a kind of a thing
    cued = {
        k
        for lx in lexed.lexemes
        if lx.cat == "CUE" and lx.end_tok - lx.start_tok > 1
        for k in range(lx.start_tok, lx.end_tok)
    }
    asking = {
        k
        for s in lexed.sentences
        if not questions and lexed.text[s.start : s.end].rstrip().endswith("?")
        for k in range(s.start_token, s.end_token)
    }
    out: Details = {}
    for i in range(len(tokens) - 1):
        modifier, noun = tokens[i], tokens[i + 1]
        if i in taken or i + 1 in taken or i in asking or {i, i + 1} <= cued:
            continue
        if not _is_kind(tokens, i, kinds):
            continue
        before = tokens[i - 1] if i > 0 else None
        if before is None or not (
            before.kind == "num"
            or before.lower in NUMBER_WORDS
            or before.lower in _BEFORE_MODIFIER
            or (i - 1 in taken)
        ):
            continue
        stems = content_stems([modifier.text, noun.text])
        if stems[0] in things:
            continue
        lexeme = Lexeme(
            "MODIFIER",
            i,
            i + 1,
            modifier.start,
            modifier.end,
            modifier.text,
            value_key=stems[0],
            attributes=values.get(i, ()),
        )
        out.setdefault(f"kind of {stems[1]}", []).append(lexeme)
    return out


def _things(tokens: list[Token]) -> set[str]:
    """Stems of the words a text uses as nouns of their own, after an article or a possessive
    and before no other content word: "the cab" makes "cab" of "a cab ride" no kind."""
    out = set()
    for k in range(1, len(tokens)):
        after = tokens[k + 1] if k + 1 < len(tokens) else None
        if tokens[k - 1].lower in _SKIPPED and (
            after is None or after.kind != "word" or after.lower in STOPWORDS
        ):
            out.update(content_stems([tokens[k].text]))
    return out


def _is_kind(tokens: list[Token], i: int, kinds: Callable[[str], tuple[object, ...]]) -> bool:
    """Token i is a content word naming a kind of the noun after it, which ends its phrase."""
    modifier, noun = tokens[i], tokens[i + 1]
    after = tokens[i + 2] if i + 2 < len(tokens) else None
    if modifier.kind != "word" or noun.kind != "word":
        return False
    if after is not None and after.kind == "word" and after.lower not in STOPWORDS:
        return False  # "a cab pool ride": "pool" is no noun of its own
    if len(content_stems([modifier.text, noun.text])) != 2:
        return False
    if noun.text[:1].isupper() and not modifier.text[:1].isupper():
        return False  # "the album Infestissumam": a name, not a kind of it
    if {modifier.lower, noun.lower} & _BOUNDARIES:
        return False
    found = [k for t in (modifier, noun) for k in kinds(t.lower)]
    if "judgement-word" in kinds(modifier.lower):
        return False  # "2 suitable cars": a judgement, no kind
    return not any(k == "generic-detail" or str(k).startswith("state-verb:") for k in found)


_PLACE_CUE = "place-cue:"
_PLACE_CATS = frozenset({"ENT", "NAME", "VAL", "OF"})
_PLACE_SKIPPED = _SKIPPED | frozenset({"is", "will", "be"})


def place_details(lexed: LexedText) -> Details:
    """Where a text says one goes, comes from or is: the place right after a place cue ("a cab
    to 12 Harbour Road", "the destination is Pier 4", "from Elm Park", "in Leith"), under the
    slot "place to", "place from" or "place in" as a PLACE lexeme. The place is a run of names,
    KB values and numbers ("of" between them) holding at least one name or KB value; a time or
    a sum is no place. The KB entities and attributes of its parts are the PLACE's."""
    by_start = {lx.start_tok: lx for lx in lexed.lexemes}
    out: Details = {}
    for marker in lexed.markers:
        if not marker.kind.startswith(_PLACE_CUE):
            continue
        i = next((k for k, t in enumerate(lexed.tokens) if t.start >= marker.end), None)
        while i is not None and i < len(lexed.tokens) and lexed.tokens[i].lower in _PLACE_SKIPPED:
            i += 1
        run: list[Lexeme] = []
        while i is not None and (lx := by_start.get(i)) is not None and lx.cat in _PLACE_CATS:
            if (
                lx.cat == "VAL"
                and (lx.temporal is not None or lx.value_type not in (None, ValueType.number))
                and not lx.attributes
            ):
                break
            run.append(lx)
            i = lx.end_tok
            if i < len(lexed.tokens) and lexed.tokens[i].lower == "the" and run[-1].cat == "OF":
                i += 1
        while run and run[-1].cat in ("OF", "VAL") and not run[-1].attributes:
            run.pop()
        if not any(lx.cat in ("ENT", "NAME") or lx.attributes for lx in run):
            continue
        first, last = run[0], run[-1]
        text = lexed.text[first.start : last.end]
        place = Lexeme(
            "PLACE",
            first.start_tok,
            last.end_tok,
            first.start,
            last.end,
            text,
            entity_ids=tuple(i for lx in run for i in lx.entity_ids),
            # a name read as a column's value (text/name_values.py) is no value the KB knows
            attributes=tuple(a for lx in run if not lx.name_value for a in lx.attributes),
        )
        out.setdefault(f"place {marker.kind[len(_PLACE_CUE) :]}", []).append(place)
    return out


# The word right before a date or time that says which end of a span it is ("from", "until").
_SPAN_ENDS = {"from": "from", "since": "from", "until": "until", "till": "until", "to": "until"}
_CLAUSE_ENDS = frozenset({"and", "or", "but", "then"})
_NOT_CUES = PREPOSITIONS | frozenset({"around", "approximately", "roughly"})


def value_cues(lexed: LexedText, value: Lexeme) -> frozenset[str]:
    """What a date or time is said with: the content words of its clause before it, outside
    names and values ("pick up the car on March 5th" -> pick, car), and the end of a span it
    opens or closes ("from", "until"). The clause starts after punctuation, a conjunction or
    another date or time."""
    tokens = lexed.tokens
    inside = {
        k
        for lx in lexed.lexemes
        if lx is not value and lx.cat in ("ENT", "NAME", "VAL")
        for k in range(lx.start_tok, lx.end_tok)
    }
    temporal = {
        k
        for lx in lexed.lexemes
        if lx is not value and lx.temporal is not None
        for k in range(lx.start_tok, lx.end_tok)
    }
    cues: set[str] = set()
    k = value.start_tok - 1
    while k >= 0 and tokens[k].lower in _SKIPPED:  # "from the 7th"
        k -= 1
    if k >= 0 and tokens[k].lower in _SPAN_ENDS:
        cues.add(_SPAN_ENDS[tokens[k].lower])
    while k >= 0:
        token = tokens[k]
        if token.kind == "punct" or token.lower in _CLAUSE_ENDS or k in temporal:
            break
        if k not in inside and token.kind == "word" and token.lower not in _NOT_CUES:
            cues.update(content_stems([token.text]))
        k -= 1
    return frozenset(cues)


_GROUP_WORDS = frozenset({"us", "you"})
_POSSESSIVES = frozenset("my our his her their your".split())
_BEFORE_PARTY = frozenset({"for", "are", "'re", "of"})
_ALONE = frozenset({"just", "only"})  # "for just yourself": a party of one
_YOU_ALONE = frozenset({"you", "yourself"})


# a price for one of a thing, not how many come: "one place (on the course) is £35", "2 tickets
# at $9 each", "£35 for one person"
_UNIT_PRICE_AFTER = re.compile(
    r"(?:[\s\w']{0,30}?\b(?:is|are|costs?|at|for))?\s*[£$€]\s?\d", re.IGNORECASE
)
_UNIT_PRICE_BEFORE = re.compile(r"[£$€]\s?\d[\d,.]*\s*$")


def party_details(lexed: LexedText, kinds: Callable[[str], tuple[object, ...]]) -> Details:
    """How many people a text says come: "the two of us", "for 3 guests", "a team of six",
    "just yourself", "one place" (one of what is had one per person, `Seat`: more of them are
    counted as things, "count of ticket"), or
    the speaker and those they come with ("I'm travelling with my partner and our two kids": 4),
    under the slot "party size" as a COUNT lexeme. Who counts as a person, as one or several,
    or as a group counted after "of", is the word list `party-noun`; a plural or a group said
    without a number ("with friends", "with my team") counts no one."""
    tokens = lexed.tokens
    lowered = [t.lower for t in tokens]
    out: Details = {}

    def number_at(k: int) -> int | None:
        if not 0 <= k < len(tokens):
            return None
        if tokens[k].kind == "num" and tokens[k].text.isdigit():
            return int(tokens[k].text)
        return NUMBER_WORDS.get(lowered[k])

    def add(k: int, size: int, end: int | None = None) -> None:
        end = k + 1 if end is None else end
        start, stop = tokens[k].start, tokens[end - 1].end
        text = lexed.text[start:stop]
        count = Lexeme("COUNT", k, end, start, stop, text, value_key=str(size))
        out.setdefault("party size", []).append(count)

    def _more_people(k: int, size: int) -> tuple[int, int]:
        """The size and end of a party counted on past "and" or a comma: "2 adults and 3
        children" is 5."""
        while k + 2 < len(tokens) and lowered[k] in ("and", ","):
            more = number_at(k + 1)
            if more is None or _party_noun(kinds, lowered[k + 2]) is None:
                break
            size, k = size + more, k + 3
        return size, k

    for k in range(len(tokens)):
        size = number_at(k)
        nxt = lowered[k + 1 : k + 3]
        if lowered[k] in _ALONE and nxt[:1] and nxt[0] in _YOU_ALONE and nxt[1:2] != ["and"]:
            add(k, 1, k + 2)  # "just yourself", "only you"
        elif size is not None and nxt[:1] == ["of"] and nxt[1:] and nxt[1] in _GROUP_WORDS:
            add(k, size)  # "the two of you"
        elif size is not None and k > 1 and lowered[k - 1] == "of":
            if _party_noun(kinds, lowered[k - 2]) == "Group":
                add(k, size)  # "a team of six"
        elif (
            size is not None
            and k > 0
            and lowered[k - 1] in _BEFORE_PARTY
            and nxt[:1]
            and _party_noun(kinds, nxt[0]) in ("Many", "One" if size == 1 else "Many")
        ):
            if not (size == 1 and _UNIT_PRICE_BEFORE.search(lexed.text[: tokens[k - 1].start])):
                add(k, *_more_people(k + 2, size))  # "for 3 guests", "for one person"
        elif (
            size == 1
            and nxt[:1]
            and _party_noun(kinds, nxt[0]) == "Seat"
            and not _UNIT_PRICE_AFTER.match(lexed.text[tokens[k + 1].end :])
        ):
            add(k, size, k + 2)  # "one place", "one ticket": a party of one
    for sentence in lexed.sentences:
        words = lowered[sentence.start_token : sentence.end_token]
        if "with" not in words or not {"i", "i'm", "we"} & set(words[: words.index("with")]):
            continue
        k = sentence.start_token + words.index("with") + 1
        size, first = 1, k
        while k < sentence.end_token:
            while k < sentence.end_token and lowered[k] in _POSSESSIVES:
                k += 1
            many = number_at(k)
            k += many is not None
            kind = _party_noun(kinds, lowered[k]) if k < sentence.end_token else None
            if kind in (None, "Group") or (kind == "Many" and many is None):
                break
            size += many if many is not None else 1
            k += 1
            if k < sentence.end_token and lowered[k] in ("and", ","):
                k += 1
                continue
            add(first, size, k)
            break
    return out


def _party_noun(kinds: Callable[[str], tuple[object, ...]], word: str) -> str | None:
    """One or Many for a word that names people ("partner", "kids"), else None."""
    found = [str(k) for k in kinds(word) if str(k).startswith("party-noun:")]
    return found[0].split(":", 1)[1] if found else None
