"""Names found by where they stand: a work's title before its maker ("How about Hold Me Close
by Wren Avery?"), a thing's name after its class ("a Compact Ridgeline car").

Titles are written in words of every kind ("Let It Be", "Curious", "With You", "Thursday"), so
letter case alone does not find them: a capitalised common word inside a sentence reads as
emphasis, a capitalised "Me" ends a name. Where they stand does: right before "by" (or "is by")
and a value of the KB's attribute whose values are people or bands (names of individuals, see
text/name_values.py), the words are the name of the thing that maker made. A KB name there is
read as the KB's already; anything else there is a name the KB lacks, to be judged like any
unknown name (a misspelling of a KB name stays that name).

- Written in title case ("Hold Me Close by Wren Avery"): the run of capitalised words before
  "by", lower-case connectors allowed between them ("Queen of Spades"). A sentence's opening
  imperative or discourse word is no part of it ("Try Daybreak by ..."), and a lone common word
  opening a sentence is that word ("Songs by Wren Avery").
- Written in lower case, as the maker is ("how about daybreak by wren avery"): the run of
  lower-case words that are no function words, when it follows no count or determiner ("2 songs
  by wren avery", "a track by ...").

A class value of the KB (the `type` of a car, the `kind` of a boat: text/name_values.py) is said
before the thing's name, as the KB's names are: "a Compact Ridgeline car", "a standard car, a
Ridgeline", "a compact car like an Ridgeline". The word there is a name when it is written as
one (capitalised, in capitals, a code) or is no common word ("a standard ridgeline"), and is no
function word or word of the KB's schema ("a Compact Car" names no car: a word of `car_type`);
"a compact car" says the class of a car.
"""

from __future__ import annotations

from collections.abc import Callable

from replyguard.text.tokens import Token

_BY = frozenset({"by"})
_LINKS = frozenset({"is", "was"})
_CONNECTORS = frozenset("of the a an and in on to for with at from my your me you it".split())
_DETERMINERS = frozenset("a an some any more other these those many several few all".split())


_BEING = frozenset({"is", "was", "are", "were", "been", "be", "being"})


def title_before_maker(
    tokens: list[Token],
    folded: list[str],
    start: int,
    by: int,
    *,
    lower_case: bool,
    function_word: Callable[[str], bool],
    opener: Callable[[str], bool],
    common: Callable[[str], bool],
) -> tuple[int, int] | None:
    """The token range of the title before the "by" at token `by` (the sentence starts at token
    `start`), or None. `function_word`, `opener` (a sentence's opening imperative or discourse
    word) and `common` (a common English word) judge folded words."""
    if folded[by] not in _BY:
        return None
    end = by - 1 if by - 1 > start and folded[by - 1] in _LINKS else by
    i = _lower_run(tokens, folded, start, end, function_word) if lower_case else None
    if not lower_case:
        i = _title_run(tokens, folded, start, end)
    if i is None or i >= end:
        return None
    if i == start and opener(folded[i]) and end - i > 1:
        i += 1  # "Try Daybreak by ...": the verb is no part of the title
    if i == start and end - i == 1 and common(folded[i]):
        return None  # "Songs by Wren Avery": a sentence opening on the word
    if (
        lower_case
        and end - i == 1
        and i > 0
        and (folded[i - 1] in _BEING or tokens[i - 1].text == ",")
        and folded[i].endswith(("ed", "en"))
    ):
        return None  # "nightjar was directed by kasia wren", "..., directed by": a passive
    if (lower_case or end - i == 1) and all(function_word(w) for w in folded[i:end]):
        return None  # "Only You" is a title, "Only" or "only you" no name
    return i, end


def _title_run(tokens: list[Token], folded: list[str], start: int, end: int) -> int | None:
    i = end
    while i > start:
        token = tokens[i - 1]
        if token.is_capitalised or (
            folded[i - 1] in _CONNECTORS
            and i < end
            and i - 1 > start
            and tokens[i - 2].is_capitalised
            and token.kind == "word"
        ):
            i -= 1
        else:
            break
    return i if i < end and tokens[i].is_capitalised else None


def _lower_run(
    tokens: list[Token],
    folded: list[str],
    start: int,
    end: int,
    function_word: Callable[[str], bool],
) -> int | None:
    i = end
    while (
        i > start
        and tokens[i - 1].kind == "word"
        and not tokens[i - 1].is_capitalised
        and not function_word(folded[i - 1])
        and folded[i - 1] not in _DETERMINERS
    ):
        i -= 1
    if i == end or (i > start and (tokens[i - 1].kind == "num" or folded[i - 1] in _DETERMINERS)):
        return None
    return i


_APPOSITION = frozenset({",", "like"})
_ARTICLES = frozenset({"a", "an"})


def name_after_class(
    tokens: list[Token],
    folded: list[str],
    i: int,
    end: int,
    *,
    common: Callable[[str], bool],
    plain: Callable[[str], bool],
) -> tuple[int, int] | None:
    """The token range of the name said after a class value that ends at token `i` ("a Compact
    [Ridgeline] car", "a compact car, a [Ridgeline]"), or None. `plain` says a folded word is a
    function word or a word of the KB's schema."""
    if i < end and not _written_as_name(tokens[i], folded[i], common, plain):
        k = i + 1
        if k < end and folded[k] in _APPOSITION:
            k += 1
        if k + 1 < end and folded[k] in _ARTICLES and k > i + 1:
            i = k + 1
    if i >= end or not _written_as_name(tokens[i], folded[i], common, plain):
        return None
    j = i + 1
    while j < end and tokens[j].kind in ("word", "ident") and not plain(folded[j]):
        if not (tokens[j].is_capitalised or tokens[j].kind == "ident"):
            break
        j += 1
    return i, j


def _written_as_name(
    token: Token, word: str, common: Callable[[str], bool], plain: Callable[[str], bool]
) -> bool:
    if token.kind not in ("word", "ident") or plain(word):
        return False
    if token.kind == "ident" or token.is_capitalised:
        return True
    return token.text.isalpha() and not common(word)
