"""Price bands the KB lacks: "balcony seats for the glass orchard are £12" when a show's prices
are `stalls_price`, `circle_price` and `concession_price`.

A band is the first part of a money column's name that two or more money columns of one entity
share the rest of ("stalls" and "circle" of `*_price`). In a sentence naming such an entity, a
word before a `generic-detail` word ("seats", "tickets"), with a price after it in the sentence
(the first is its price), names a band. When it is no band of the entity, nor a word of the KB's
columns or of its names, nor a comparison ("cheaper seats", "the best seats"), and the price is
none of the entity's prices, the band is invented (`UnknownBand` in metta/hallucination.metta).
The bands are found once per KB.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from replyguard.metta_host import Sym
from replyguard.models import Evidence, HallucinationType, Span, ValueType
from replyguard.stages.candidates import Candidate
from replyguard.stages.context import CallContext
from replyguard.text.lexer import FUNCTION_WORDS
from replyguard.text.lexicon import KBIndex
from replyguard.text.words import stem
from replyguard.values import fold, value_key

if TYPE_CHECKING:
    from replyguard.engine import Engine


class _Bands:
    def __init__(self, index: KBIndex) -> None:
        # entity id -> the money columns that form bands, and the bands' words (stems)
        self.columns: dict[str, list[str]] = {}
        self.words: dict[str, frozenset[str]] = {}
        self.prices: dict[str, frozenset[str]] = {}
        self.column_words = frozenset(stem(w) for w in index.attribute_words)
        for entity in index.entities.values():
            groups: dict[str, list[tuple[str, str]]] = defaultdict(list)
            for attribute in entity.attributes:
                first, _, rest = attribute.partition("_")
                if rest and index.attribute_type(attribute) == ValueType.money:
                    groups[rest].append((first, attribute))
            banded = [pair for pairs in groups.values() if len(pairs) >= 2 for pair in pairs]
            if not banded:
                continue
            self.columns[entity.id] = [a for _, a in banded]
            self.words[entity.id] = frozenset(stem(fold(first)) for first, _ in banded)
            self.prices[entity.id] = frozenset(
                value_key(ValueType.money, str(v))
                for _, a in banded
                for v in entity.values_of(a)[0]
            )


_BANDS: WeakKeyDictionary[KBIndex, _Bands] = WeakKeyDictionary()


def unknown_band_candidates(engine: Engine, ctx: CallContext) -> list[Candidate]:
    index = engine.index
    bands = _BANDS.get(index)
    if bands is None:
        bands = _BANDS[index] = _Bands(index)
    if not bands.columns:
        return []
    lexed = ctx.reply.lexed
    tokens = lexed.tokens
    read = {k for lx in lexed.lexemes if lx.cat != "W" for k in range(lx.start_tok, lx.end_tok)}
    kinds = engine.words.markers.get
    out = []
    for row, sentence in zip(lexed.sentence_lexemes, lexed.sentences, strict=False):
        named = [e for lx in row if lx.cat == "ENT" for e in lx.entity_ids if e in bands.columns]
        if len(set(named)) != 1:
            continue
        entity_id = named[0]
        prices = [lx for lx in row if lx.cat == "VAL" and lx.value_type == ValueType.money]
        inside = [k for k, t in enumerate(tokens) if sentence.start <= t.start < sentence.end]
        for k in inside[1:]:
            noun, word = tokens[k], tokens[k - 1]
            w = word.lower
            if (
                "generic-detail" not in kinds(noun.lower)
                or word.kind != "word"
                or k - 1 in read
                or w in FUNCTION_WORDS
                or "generic-detail" in kinds(w)
                or w.endswith(("er", "est"))
                or stem(w) in bands.words[entity_id]
                or stem(w) in bands.column_words
                or fold(w) in index.name_words
            ):
                continue
            # the price said of it is the first after it
            after = next((p for p in prices if p.start > noun.end), None)
            if after is None or after.value_key in bands.prices[entity_id]:
                continue
            start, end = word.start, noun.end
            out.append(
                Candidate(
                    HallucinationType.NonexistentEntity,
                    Sym("UnknownBand"),
                    Span(start=start, end=end),
                    f"'{ctx.response[start:end]}' is no price band of "
                    f"{index.entities[entity_id].label}",
                    suggestion="Quote only the price bands the knowledge base lists",
                    support=[
                        Evidence(kind="kb", entity_id=entity_id, attribute=a)
                        for a in bands.columns[entity_id]
                    ],
                )
            )
    return out
