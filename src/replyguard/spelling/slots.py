"""The corrector's working state: one slot per token, holding the token's text as corrected so far.

Tiers run one after another over the same slots, so a later tier sees earlier corrections ("a
aple" → "a apple" → "an apple") while every change still belongs to the span of the original
token. A slot's steps become one :class:`TextEdit` at the end.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from replyguard.spelling.edits import Rejection, TextEdit, Tier
from replyguard.spelling.tokens import Token


@dataclass(frozen=True, slots=True)
class Step:
    tier: Tier
    rule: str | None
    reason: str
    confidence: float
    alternatives: tuple[str, ...] = ()


@dataclass(slots=True)
class Slot:
    token: Token
    protected: str | None = None
    text: str = ""
    lower: str = ""  # the text in lower case, with typographic apostrophes straightened
    deleted_after: int | None = None  # deleted together with the text from this offset
    steps: list[Step] = field(default_factory=list)
    appended: str = ""
    append_step: Step | None = None

    def __post_init__(self) -> None:
        self.rewrite(self.token.text)

    def rewrite(self, text: str) -> None:
        self.text = text
        self.lower = text.lower().replace("’", "'")

    @property
    def is_word(self) -> bool:
        return self.token.kind == "word"

    @property
    def live(self) -> bool:
        return self.deleted_after is None


class Journal:
    """Collects the rejections of tier 3 while the tiers run."""

    def __init__(self) -> None:
        self.rejections: list[Rejection] = []

    def refuse(self, slot: Slot, tier: Tier, replacement: str, rule: str | None) -> None:
        token = slot.token
        self.rejections.append(
            Rejection(
                tier=tier,
                original=token.text,
                replacement=replacement,
                start=token.start,
                end=token.end,
                rule=rule,
                reason=f"would change a protected {slot.protected}",
            )
        )

    def change(self, slot: Slot, text: str, step: Step) -> bool:
        """Set the slot's text, unless it is protected (then log why not)."""
        if slot.protected is not None:
            self.refuse(slot, step.tier, text, step.rule)
            return False
        slot.rewrite(text)
        slot.steps.append(step)
        return True


def edits_of(slots: list[Slot], source: str) -> list[TextEdit]:
    edits = []
    for slot in slots:
        token = slot.token
        if slot.deleted_after is not None:
            step = slot.steps[-1]
            edits.append(
                _edit(
                    step, source[slot.deleted_after : token.end], "", slot.deleted_after, token.end
                )
            )
        elif slot.steps and slot.text != token.text:
            edits.append(
                _edit(slot.steps[0], token.text, slot.text, token.start, token.end, slot.steps)
            )
        if slot.appended and slot.append_step is not None:
            edits.append(_edit(slot.append_step, "", slot.appended, token.end, token.end))
    return edits


def _edit(
    step: Step,
    original: str,
    replacement: str,
    start: int,
    end: int,
    steps: list[Step] | None = None,
) -> TextEdit:
    chain = steps or [step]
    confidence = 1.0
    for each in chain:
        confidence *= each.confidence
    return TextEdit(
        tier=step.tier,
        original=original,
        replacement=replacement,
        start=start,
        end=end,
        confidence=round(confidence, 4),
        alternatives=list(step.alternatives),
        rule=" + ".join(s.rule for s in chain if s.rule) or None,
        reason="; then ".join(s.reason for s in chain),
    )
