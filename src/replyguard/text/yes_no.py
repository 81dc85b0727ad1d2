"""Yes/no attributes read from their names' words: "pets are not allowed" is pets_allowed False.

A yes/no value is never written as "True" in a reply; the sentence says the attribute's own words
("pets", "allowed"; "live music"; "wifi") and negates them or not. So a clause whose content
stems include every stem of a yes/no attribute's name states that attribute, with the polarity
its negations give ("no", "not", "without": `negation` and `absence-marker` in
metta/lexicon.metta). Which entity it is about is the reader's business (text/analysis.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from replyguard.text.attachment import AttachedClaim
from replyguard.text.claims import ClaimDraft, Subject
from replyguard.text.lexer import LexedText, Lexeme
from replyguard.text.lexicon import KBIndex
from replyguard.text.words import stem

# A word with one of these before an attribute's own word denies it: "non-refundable",
# "unfurnished" (only when the rest is a yes/no attribute's word: "unisex" stays itself).
_NEGATIVE_PREFIXES = ("non", "un")


@dataclass(frozen=True)
class PolarMention:
    attribute: str
    start_tok: int
    end_tok: int
    start: int  # character span of the words naming the attribute
    end: int
    positive: bool
    clause_start: int  # where its clause starts: an entity named in the clause is its subject
    clause_end: int

    def in_clause(self, position: int) -> bool:
        return self.clause_start <= position < self.clause_end


# Punctuation that ends a clause as a separator does: "Not at all — life jackets are included",
# "it comes with a guarantee: if you can't get on with them ..."
_CLAUSE_BREAKS = frozenset({":", ";", "—", "–", "-"})


def _clauses(lexed: LexedText, row: list[Lexeme]) -> list[tuple[int, int, list[Lexeme]]]:
    """The row's clauses as (start, end, lexemes), split at its separators and at
    clause-ending punctuation (a run of words holding a dash is in the clauses on both sides)."""
    text = lexed.text
    first, last = row[0].start, row[-1].end
    cuts = {(lx.start, lx.end) for lx in row if lx.cat == "SEP"} | {
        (t.start, t.end)
        for t in lexed.tokens
        if first <= t.start < last
        and t.text in _CLAUSE_BREAKS
        and (t.text != "-" or text[t.start - 1 : t.start] == " ")
    }
    bounds = [first, *(p for cut in sorted(cuts) for p in cut), last]
    out = []
    for start, end in zip(bounds[::2], bounds[1::2], strict=True):
        lexemes = [lx for lx in row if lx.cat != "SEP" and lx.start < end and lx.end > start]
        if lexemes and start < end:
            out.append((start, end, lexemes))
    return out


def _negations(lexed: LexedText, clause: list[Lexeme], start: int, end: int, said_end: int) -> int:
    """How many negations a clause holds of the attribute said up to SAID_END; a "No," that
    answers a question does not count, nor a "no" or "without" after the attribute's words,
    which denies another thing ("unlimited data with no cap")."""
    count = 0
    for k, lexeme in enumerate(clause):
        if lexeme.cat != "NEG" or not start <= lexeme.start < end:
            continue
        if lexeme.start >= said_end and lexeme.text.lower() == "no":
            continue
        answer = k == 0 and lexed.text[lexeme.end : lexeme.end + 1] in (",", "!", ".")
        count += not answer
    return count + sum(
        start <= m.start < min(end, said_end) for m in lexed.markers_of("absence-marker")
    )


def polar_mentions(
    lexed: LexedText, row: list[Lexeme], polar: Mapping[str, frozenset[str]]
) -> list[PolarMention]:
    """The yes/no attributes a sentence states, most specific first where two overlap
    ("free_wifi" over "wifi"). A question states none."""
    if not row or not polar or lexed.text[row[0].start : row[-1].end].rstrip().endswith("?"):
        return []
    found: list[PolarMention] = []
    known = frozenset().union(*polar.values())
    for start, end, clause in _clauses(lexed, row):
        tokens = [
            (k, t)
            for k, t in enumerate(lexed.tokens)
            if start <= t.start < end and t.kind == "word"
        ]
        first: dict[str, int] = {}
        denied: set[str] = set()  # stems said with a negative prefix: "non-refundable"
        for position, (_, token) in enumerate(tokens):
            word = token.lower.replace("-", "")  # "red-eye" is "redeye"
            first.setdefault(stem(word), position)
            for part in token.lower.split("-") if "-" in token.lower else ():
                first.setdefault(stem(part), position)  # "nurse-led" also says "nurse", "led"
            for prefix in _NEGATIVE_PREFIXES:
                rest = stem(word.removeprefix(prefix))
                if word.startswith(prefix) and rest in known:
                    first.setdefault(rest, position)
                    denied.add(rest)
        for attribute, stems in polar.items():
            if not stems <= first.keys():
                continue
            at = sorted(first[s] for s in stems)
            (i, a), (j, b) = tokens[at[0]], tokens[at[-1]]
            negations = _negations(lexed, clause, start, end, b.end)
            positive = (negations + len(stems & denied)) % 2 == 0
            if any(
                lx.cat == "CUE"
                and attribute not in lx.attributes
                and lx.start <= a.start
                and b.end <= lx.end
                for lx in clause
            ):
                continue  # "back in stock on 8 December" names back_in_stock, not in_stock
            found.append(PolarMention(attribute, i, j + 1, a.start, b.end, positive, start, end))
    found.sort(key=lambda m: (-len(polar[m.attribute]), m.start))
    kept: list[PolarMention] = []
    for mention in found:
        if not any(k.start < mention.end and mention.start < k.end for k in kept):
            kept.append(mention)
    return sorted(kept, key=lambda m: m.start)


@dataclass(frozen=True)
class Candidate:
    """An entity a yes/no clause may be about, with how the text names it."""

    subject: Subject | None
    entity_id: str
    resolution: str  # Direct | Fuzzy | Pronoun | Implicit


def polar_claim(
    mention: PolarMention, index: KBIndex, candidates: list[Candidate]
) -> AttachedClaim | None:
    """The claim a mention makes about the first candidate holding its attribute, its value
    written as the KB writes that polarity."""
    for candidate in candidates:
        entity = index.entities.get(candidate.entity_id)
        if entity is None or mention.attribute not in entity.attributes:
            continue
        value = Lexeme(
            "VAL",
            mention.start_tok,
            mention.end_tok,
            mention.start,
            mention.end,
            index.polar_label(mention.attribute, mention.positive),
            attributes=(mention.attribute,),
            value_type=index.attribute_type(mention.attribute),
        )
        draft = ClaimDraft(candidate.subject, value, (mention.attribute,), False, "Cue")
        return AttachedClaim(
            draft,
            entity.label,
            entity.id,
            candidate.resolution,
            mention.attribute,
            "Cue",
            value,
            polar=True,
        )
    return None
