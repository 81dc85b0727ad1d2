"""Passages a reply is meant to rest on (retrieved documents, a knowledge snippet), read once per
call into their sentences and content stems, so each reply sentence can be measured against them.

How much support is enough is a rule (`Ungrounded` in metta/hallucination.metta); this module
only measures: a reply sentence's support is the share of its content words (stems, as
`replyguard.text.words.content_stems` gives them) that occur anywhere in the passages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from replyguard.text.tokens import split_sentences, tokenize
from replyguard.text.words import content_stems


@dataclass(frozen=True)
class PassageSentence:
    passage: int  # 0-based index of the passage it comes from
    text: str
    stems: frozenset[str]


@dataclass(frozen=True)
class Passages:
    sentences: tuple[PassageSentence, ...] = ()
    stems: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.sentences)

    def mentions(self, name: str) -> bool:
        """Whether the passages name this (every content word of it occurs in them)."""
        stems = content_stems(name.split())
        return bool(stems) and all(s in self.stems for s in stems)

    def support(self, words: Sequence[str]) -> tuple[float, list[str], PassageSentence | None]:
        """(share of the words' content stems the passages hold, the words whose stems they
        lack, the passage sentence sharing most of them); (1.0, [], None) for words with no
        content."""
        stems: dict[str, str] = {}  # stem -> the first word giving it
        for word in words:
            for s in content_stems([word]):
                stems.setdefault(s, word)
        if not stems:
            return 1.0, [], None
        missing = [word for s, word in stems.items() if s not in self.stems]
        held = {s for s in stems if s in self.stems}
        best = max(self.sentences, key=lambda s: len(s.stems & held), default=None)
        if best is not None and not best.stems & held:
            best = None
        return 1.0 - len(missing) / len(stems), missing, best


def read_passages(texts: Sequence[str]) -> Passages:
    sentences = []
    for index, text in enumerate(texts):
        tokens = tokenize(text)
        for sentence in split_sentences(text, tokens):
            words = [t.text for t in tokens[sentence.start_token : sentence.end_token]]
            stems = frozenset(content_stems(words))
            if stems:
                sentences.append(
                    PassageSentence(index, text[sentence.start : sentence.end].strip(), stems)
                )
    return Passages(tuple(sentences), frozenset().union(*(s.stems for s in sentences)))
