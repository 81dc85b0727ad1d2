"""What one postprocess call knows, shared by the stages (the pipeline's one document)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from replyguard.dialogue import DialogueContext
from replyguard.models import Claim, ClaimValidation, Evidence, Span
from replyguard.text.analysis import ReadText
from replyguard.text.attachment import AttachedClaim
from replyguard.text.lexer import Lexeme
from replyguard.text.passages import Passages
from replyguard.values import fold

CHECKED = ("Verified", "Contradicted", "HistoryConflict")  # statuses that checked a claim


@dataclass
class ClaimRecord:
    """A reply claim with everything the stages learn about it."""

    id: str
    attached: AttachedClaim
    model: Claim
    value_type: str
    kb_values: list[str] = field(default_factory=list)
    kb_confidence: float = 1.0
    best_kb_value: str | None = None
    history: list[tuple[Evidence, bool]] = field(default_factory=list)  # (turn, agrees)
    evidence_atoms: list[str] = field(default_factory=list)  # the KB and turn atoms behind it
    verdict_inputs: tuple[object, object] | None = None  # (KB evidence, history evidence) atoms
    validation: ClaimValidation | None = None

    @property
    def status(self) -> str:
        return self.validation.status.kind if self.validation else "Unverifiable"

    @property
    def span(self) -> Span:
        return self.model.span


@dataclass
class CallContext:
    response: str
    query: str
    reference: datetime
    dialogue: DialogueContext
    reply: ReadText
    query_reading: ReadText
    passages: Passages = field(default_factory=Passages)
    claims: list[ClaimRecord] = field(default_factory=list)

    def sentence_of(self, position: int) -> tuple[int, int]:
        """The (start, end) of the reply sentence holding a character position."""
        for sentence in self.reply.lexed.sentences:
            if sentence.start <= position < sentence.end + 1:
                return sentence.start, sentence.end
        return 0, len(self.response)


def said_key(lexeme: Lexeme) -> str:
    """A value said, by its type's key (its folded words when it has none)."""
    return lexeme.value_key or fold(lexeme.text)


def user_value_keys(dialogue: DialogueContext) -> set[str]:
    """The values the user's turns state (`said_key`): a reply saying one back says the user's
    value, not the KB's."""
    return {
        said_key(lx)
        for r in dialogue.readings
        if r.turn.role == "user"
        for lx in r.reading.lexed.lexemes
        if lx.cat == "VAL" and lx.pronoun is None
    }
