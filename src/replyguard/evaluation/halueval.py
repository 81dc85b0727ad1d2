"""HaluEval dialogue: the knowledge text as a triples KB, the history as turns, two cases a record.

HaluEval's knowledge is a walk over a knowledge graph (OpenDialKG) rendered as sentences and
concatenated, often with no separator at all::

    Iron Man is starring Robert Downey Jr.Robert Downey Jr. starred in Zodiac (Crime Fiction Film)

Every sentence is "subject relation object" with a relation from a small closed set (plain verbs
such as "is starring", "wrote", "has genre", or a graph label in backquotes, "`Award Won`", where a
leading "~" marks the inverse edge). So the parser finds the relations first and then splits the
text between two relations into the first one's object and the second one's subject; the walk
usually starts the next sentence with the entity that ended the last one, which is the strongest
clue to where the boundary lies.

Each fact is stored in both directions ("Iron Man" starring "Robert Downey Jr." and "Robert Downey
Jr." starred_in "Iron Man"), so every name in the knowledge is a KB entity the engine can find,
whichever side of the fact a reply puts it on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from replyguard.errors import InputError
from replyguard.evaluation.cases import EvalCase, HaluEvalResponse, locate_data_file
from replyguard.kb import kb_from_triples, symbol_name
from replyguard.models import Case, DialogueState, KnowledgeBase, Turn

HALUEVAL_FILE = "halueval/dialogue_dev.jsonl"

# Plain relation phrase -> (attribute, attribute of the inverse fact, or None for a literal object).
PLAIN_RELATIONS: dict[str, tuple[str, str | None]] = {
    "is starring": ("starring", "starred_in"),
    "starred in": ("starred_in", "starring"),
    "wrote": ("wrote", "written_by"),
    "is written by": ("written_by", "wrote"),
    "was written by": ("written_by", "wrote"),
    "directed": ("directed", "directed_by"),
    "is directed by": ("directed_by", "directed"),
    "produced": ("produced", "produced_by"),
    "is produced by": ("produced_by", "produced"),
    "is edited by": ("edited_by", "edited"),
    "composed for": ("composed_for", "music_by"),
    "has music by": ("music_by", "composed_for"),
    "has genre": ("genre", "examples"),
    "has examples:": ("examples", "example_of"),
    "has example:": ("examples", "example_of"),
    "is a/an": ("category", "examples"),
    "is in language": ("language", "language_of"),
    "is a celebrity friend to": ("celebrity_friend", "celebrity_friend"),
    "has a celebrity friend": ("celebrity_friend", "celebrity_friend"),
    "was released": ("release_year", None),
}
# How replies name the relations besides the knowledge's own phrasing (the engine reads every
# form of a relation's verb by itself): agent nouns ("the author of Scarlet is ...", "the
# Eagles' owner") and the verbs of a film's cast.
# "The author of Scarlet is X" and "X is the author of Scarlet" both say Scarlet's written_by.
RELATION_CUES: dict[str, list[str]] = {
    "written_by": ["author", "writer"],
    "directed_by": ["director"],
    "produced_by": ["producer"],
    "music_by": ["composer"],
    "starred_in": ["appeared in", "acted in", "played in"],
    "team_owned_of": ["owner", "owned by"],
}
# "2013 was the year that released Fueled" states Fueled's release year: subject and object swap.
SWAPPED_RELATIONS: dict[str, str] = {"was the year that released": "release_year"}
# Graph labels that are one relation read from either end.
SYMMETRIC_LABELS = {
    "sibling",
    "spouse_or_domestic_partner",
    "romantic_relationship_with_celebrities",
    "romantically_involved_with",
    "peer",
}
_GENDERS = {"male": "Masculine", "female": "Feminine"}
_RESERVED = {"name", "alias", "type", "number"}  # kb_from_triples fills fields from these
_ABBREVIATIONS = {"jr", "sr", "dr", "mr", "mrs", "ms", "st", "vs", "inc", "co", "ltd"}

_PHRASES = sorted([*PLAIN_RELATIONS, *SWAPPED_RELATIONS], key=len, reverse=True)
_RELATION = re.compile(
    r" : `(?P<label>[^`]+)`: ?|(?<=\S) (?P<phrase>"
    + "|".join(re.escape(p) for p in _PHRASES)
    + r") (?=\S)"
)
_HISTORY_TAG = re.compile(r"\[(Human|Assistant)\]:\s*")
_SPEAKERS = {"Human": "user", "Assistant": "assistant"}


@dataclass(frozen=True)
class Sentence:
    """One parsed knowledge sentence, before it is stored in both directions."""

    subject: str
    relation: str
    object: str


def parse_knowledge(text: str) -> list[Sentence]:
    """The sentences of a knowledge string, in order; a boundary that cannot be placed loses the
    two sentences on either side of it rather than inventing a name."""
    matches = list(_RELATION.finditer(text))
    if not matches:
        return []
    subjects: list[str | None] = [_clean(text[: matches[0].start()])]
    objects: list[str | None] = []
    for left, right in zip(matches, matches[1:], strict=False):
        known = {n for n in (*subjects, *objects) if n}
        split = split_boundary(text[left.end() : right.start()], known)
        objects.append(split[0] if split else None)
        subjects.append(split[1] if split else None)
    objects.append(_clean(text[matches[-1].end() :]))
    sentences = [
        Sentence(subject, match["label"] or match["phrase"], obj)
        for match, subject, obj in zip(matches, subjects, objects, strict=True)
        if subject and obj
    ]
    return list(dict.fromkeys(sentences))


def split_boundary(middle: str, known: set[str]) -> tuple[str, str] | None:
    """Split "<object of one sentence><subject of the next>" where the two names meet.

    The walk nearly always restates the entity it just reached ("Jake GyllenhaalJake Gyllenhaal",
    "1982. 1982"); failing that, the next subject is a name met earlier in the walk ("Jane
    AdamsThe Wackness", after "The Wackness" was a subject), and then the object might be. On the
    HaluEval dev file these two clues place all but two of 7,761 boundaries; a case change or a
    ". " would be guesses ("McDonagh", "Arthur C. Clarke"), so no further clue is tried.
    """
    cuts = [i for i in range(1, len(middle)) if not middle[i].isspace()]
    for i in cuts:
        left, right = middle[:i].strip(), middle[i:].strip()
        if left in (right, right + "."):
            return right, right
    starts = [i for i in cuts if middle[i].isupper() or middle[i].isdigit()]
    for side in (1, 0):
        for i in starts:
            halves = _clean(middle[:i]), _clean(middle[i:])
            if all(halves) and halves[side] in known:
                return halves
    return None


def knowledge_triples(sentences: list[Sentence]) -> list[tuple[str, str, str]]:
    """Each sentence as a fact, plus its inverse where the object is an entity too."""
    triples: list[tuple[str, str, str]] = []
    for s in sentences:
        if s.relation in PLAIN_RELATIONS:
            attribute, inverse = PLAIN_RELATIONS[s.relation]
            triples.append((s.subject, attribute, s.object))
            if inverse:
                triples.append((s.object, inverse, s.subject))
        elif s.relation in SWAPPED_RELATIONS:
            triples.append((s.object, SWAPPED_RELATIONS[s.relation], s.subject))
        else:
            triples.extend(_labelled(s))
    return list(dict.fromkeys(triples))


def _labelled(s: Sentence) -> list[tuple[str, str, str]]:
    """A backquoted graph label: "A : `~Lyricist`: B" means B's lyricist is A."""
    inverse = s.relation.startswith("~")
    label = re.sub(r"[^0-9a-z]+", "_", s.relation.lstrip("~").lower()).strip("_")
    subject, obj = (s.object, s.subject) if inverse else (s.subject, s.object)
    if label == "gender":
        gender = _GENDERS.get(obj.lower())
        return [(subject, "gender", gender)] if gender else []
    if label in _RESERVED:
        label = f"kg_{label}"
    back = label if label in SYMMETRIC_LABELS else f"{label}_of"
    return [(subject, label, obj), (obj, back, subject)]


def knowledge_kb(text: str, origin: str = "<halueval>") -> tuple[KnowledgeBase, int]:
    """The KB of a knowledge string and how many sentences it was built from.

    Entities are keyed by an explicit id with a "name" triple: the triples loader derives an id
    from the subject's text, and two names in a script it does not keep ("سمفونی مردگان",
    "عباس معروفی") would otherwise get the same id.

    Every relation but the release year is declared many-valued: the knowledge is a walk that
    names one or two of a film's actors, genres or writers, not all of them, so a reply naming
    another actor says something the KB does not know, which is not the same as contradicting it.
    """
    sentences = parse_knowledge(text)
    triples = knowledge_triples(sentences)
    ids: dict[str, str] = {}
    for subject, _, _ in triples:
        if subject not in ids:
            base = symbol_name(subject).strip("._") or "entity"
            ids[subject] = next(
                candidate
                for candidate in (base, *(f"{base}.{n}" for n in range(2, len(triples) + 2)))
                if candidate not in ids.values()
            )
    named = [[ids[s], "name", s] for s in ids]
    facts = [[ids[s], p, o] for s, p, o in triples]
    schema = {
        p: {"value_type": "year", "cardinality": "one"}
        if p == "release_year"
        else {"value_type": "entity", "cardinality": "many", "cues": RELATION_CUES.get(p, [])}
        for _, p, _ in triples
        if p != "gender"
    }
    # A closed world: the knowledge is what the response is meant to rest on, so a film or
    # person it does not name is unsupported. (As an open world, where absence is weak
    # evidence, the first 600 records scored accuracy 0.548 against 0.617 closed.)
    return kb_from_triples(named + facts, origin=origin, schema=schema), len(sentences)


def history_turns(history: str) -> list[Turn]:
    """ "[Human]: … [Assistant]: …" as turns T1..Tn with speakers user/assistant."""
    parts = _HISTORY_TAG.split(history)
    turns = []
    for tag, text in zip(parts[1::2], parts[2::2], strict=True):
        if text.strip():
            turns.append(Turn(id=f"T{len(turns) + 1}", speaker=_SPEAKERS[tag], text=text.strip()))
    return turns


def record_cases(record: dict, record_id: str) -> list[EvalCase]:
    """The right and the hallucinated response, each checked as the reply to the last question."""
    kb, sentences = knowledge_kb(record["knowledge"], origin=record_id)
    turns = history_turns(record["dialogue_history"])
    query = next((t.text for t in reversed(turns) if t.role == "user"), "")
    cases = []
    for field, hallucinated in (("right_response", False), ("hallucinated_response", True)):
        case = Case(
            kb=kb,
            dialogue=DialogueState(turns=turns),
            query=query,
            response=record[field].strip(),
            session_id=record_id,
            turn_id=f"T{len(turns) + 1}",
        )
        truth = HaluEvalResponse(record_id=record_id, hallucinated=hallucinated, triples=sentences)
        label = "hallucinated" if hallucinated else "right"
        cases.append(EvalCase(case_id=f"{record_id}/{label}", case=case, truth=truth))
    return cases


def iter_halueval_cases(data: str | Path, limit: int | None = None) -> Iterator[EvalCase]:
    """Two cases per record (right, then hallucinated) for the first ``limit`` records."""
    path = locate_data_file(data, HALUEVAL_FILE)
    with path.open(encoding="utf-8") as lines:
        done = 0
        for line_no, line in enumerate(lines, start=1):
            if limit is not None and done >= limit:
                return
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                cases = record_cases(record, f"halueval/{line_no}")
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise InputError(f"{path}: line {line_no}: bad HaluEval record ({exc})") from None
            done += 1
            yield from cases


def _clean(name: str) -> str:
    """A name without surrounding space or a sentence-final period ("Rim." but not "Jr." or
    "C.")."""
    name = name.strip()
    if name.endswith("."):
        word = name[:-1].rsplit(" ", 1)[-1]
        initial = len(word) == 1 and word.isalpha()
        if not initial and "." not in word and word.lower() not in _ABBREVIATIONS:
            name = name[:-1].rstrip()
    return name
