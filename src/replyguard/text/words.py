"""Content words and crude stems, for lexical relevance and topic overlap.

Lexical overlap is the default measure of relevance (DESIGN §5.1); stems let "scheduled" meet
"schedule" without a morphological analyser.
"""

from __future__ import annotations

from functools import lru_cache

STOPWORDS = frozenset(
    "a an the this that these those there here it its i you he she we they me him her us them my "
    "your our their his hers mine yours ours theirs is are was were be been being am will would "
    "could should can may might must shall do does did done have has had having if then so and or "
    "but nor yet for because although though while when where what which who whom whose why how "
    "yes no not n't please thanks thank ok okay hello hi hey by with from to in on at as of about "
    "after before during since until also however let all any each every some many most few both "
    "either neither one just only very really too more less than s 's re ll ve d m get got go "
    "going know like want need tell give make sure well now up out off over into onto there's "
    "what's it's that's i'm i'll you're don't doesn't didn't isn't aren't wasn't weren't".split()
)
# English plurals no suffix rule undoes, as the stem of their singular: "children's tickets" name
# child_price. Not "people": "for 4 people" counts a party and names no per_person column.
_IRREGULAR_PLURALS = {
    "children": "child",
    "men": "man",
    "women": "woman",
    "feet": "foot",
    "teeth": "tooth",
    "mice": "mouse",
    "geese": "goose",
}
_SUFFIXES = ("ations", "ation", "ings", "ing", "edly", "ed", "ies", "es", "est", "ly", "s", "e")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    w = word.lower().strip("'’")
    if w.endswith(("'s", "’s")):
        w = w[:-2]  # a possessive is its noun: "children's", "Friday's"
    if w in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[w]
    for suffix in _SUFFIXES:
        if len(w) - len(suffix) >= 3 and w.endswith(suffix):
            w = w[: -len(suffix)]
            if suffix == "ies":
                w += "y"
            break
    return w


def joined(first: str, second: str) -> str:
    """Two words said apart as the one word a name writes them as: "picked up" is "pickup",
    "dropped off" "dropoff", "checked in" "checkin" (the first word's stem, a doubled last
    letter undone, then the second word)."""
    head = stem(first)
    if len(head) > 3 and head[-1] == head[-2]:
        head = head[:-1]
    return stem(head + second.lower())


def content_stems(words: list[str]) -> list[str]:
    """Stems of the words that carry content, in order, without repeats."""
    out: list[str] = []
    for word in words:
        low = word.lower()
        if low in STOPWORDS or not any(c.isalnum() for c in low):
            continue
        s = stem(low)
        if s not in out:
            out.append(s)
    return out
