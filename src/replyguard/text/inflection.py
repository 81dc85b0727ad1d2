"""Verb inflection for cue phrases: a relation read off a column name ("directed", "starring",
"wrote") is named in every form of its verb ("did not direct", "stars", "has written").

Regular verbs are inflected by spelling rules; irregular ones come from `(verb-forms BASE PAST
PARTICIPLE)` facts in metta/lexicon.metta. Recovering a base form from "-ed" or "-ing" is
ambiguous in spelling alone ("directed" is "direct", "produced" "produce", "starred" "star",
"noted" "note" and not "not"), so a candidate must be an English word that inflects back to the
form it came from, and the commonest such word wins.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

_VOWELS = frozenset("aeiou")
# Words that end "e" but keep it before "-ing": "seeing", "agreeing".
_KEEP_E = ("ee", "ye", "oe")

# A word's log prior as an English word, or None when it is not one.
WordPrior = Callable[[str], float | None]
# Any form of an irregular verb -> (base, past, participle).
Irregulars = Mapping[str, tuple[str, str, str]]


def _cvc(word: str) -> bool:
    """Ends consonant-vowel-consonant, the shape that may double its last letter ("star")."""
    return (
        len(word) >= 3
        and word[-1] not in _VOWELS
        and word[-1] not in "wxy"
        and word[-2] in _VOWELS
        and word[-3] not in _VOWELS
    )


def _syllables(word: str) -> int:
    groups, previous = 0, False
    for ch in word:
        vowel = ch in _VOWELS or ch == "y"
        groups += vowel and not previous
        previous = vowel
    return max(groups, 1)


def _suffixed(base: str, suffix: str) -> set[str]:
    """The spellings of base + "ed" or "ing": e-dropping, y to i, and final-consonant doubling,
    which is certain for one syllable ("starred") and possible for more ("edited",
    "admitted")."""
    if base.endswith("e"):
        if suffix == "ed":
            return {base + "d"}
        return {base + suffix} if base.endswith(_KEEP_E) else {base[:-1] + suffix}
    if suffix == "ed" and len(base) > 1 and base[-1] == "y" and base[-2] not in _VOWELS:
        return {base[:-1] + "ied"}
    if _cvc(base):
        doubled = base + base[-1] + suffix
        return {doubled} if _syllables(base) == 1 else {doubled, base + suffix}
    return {base + suffix}


def _third_person(base: str) -> str:
    if base.endswith(("s", "x", "z", "ch", "sh")):
        return base + "es"
    if len(base) > 1 and base[-1] == "y" and base[-2] not in _VOWELS:
        return base[:-1] + "ies"
    return base + "s"


def verb_forms(base: str, irregular: Irregulars) -> list[str]:
    """Base, third person, past, participle and gerund spellings of a verb."""
    forms = [base, _third_person(base)]
    entry = irregular.get(base)
    if entry is not None and entry[0] == base:
        forms.extend(entry[1:])
    else:
        forms.extend(sorted(_suffixed(base, "ed")))
    forms.extend(sorted(_suffixed(base, "ing")))
    return list(dict.fromkeys(forms))


def base_form(word: str, irregular: Irregulars, prior: WordPrior) -> str | None:
    """The verb a past, participle or gerund form comes from; None when the word is not one."""
    entry = irregular.get(word)
    if entry is not None:
        return entry[0]
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            stem = word[: -len(suffix)]
            candidates = {stem, stem + "e", stem[:-1]}
            if suffix == "ed" and stem.endswith("i"):
                candidates.add(stem[:-1] + "y")
            fitting = [
                (p, c)
                for c in candidates
                if len(c) >= 3 and word in _suffixed(c, suffix) and (p := prior(c)) is not None
            ]
            return max(fitting)[1] if fitting else None
    return None


def cue_variants(cue: str, irregular: Irregulars, prior: WordPrior) -> list[str]:
    """Other forms of a verb cue ("starred in" -> "stars in", "star in", ...). A passive cue
    ("written by") keeps its one form: "wrote by" is no English, and "writes" names the other
    direction of the relation."""
    words = cue.split()
    if not words or (len(words) > 1 and words[1] == "by"):
        return []
    base = base_form(words[0].lower(), irregular, prior)
    if base is None:
        return []
    rest = " ".join(words[1:])
    return [f"{form} {rest}".strip() for form in verb_forms(base, irregular) if form != words[0]]
