"""The seed's predicates (metta/types.metta) as callable MeTTa: the grounded operations they need.

`metta/seed.metta` defines every signature of the user's specification in terms of the stage
rules. Two things cannot be rules: running the pipeline on a reply (tokenising, parsing, space
queries) and the spelling corrector. These operations do that and hand MeTTa back atoms:

    (postprocess-with RESPONSE DIALOGUE KB QUERY) -> (PostprocessedResponse (Confidence c) ...)
    (grammar-corrected TEXT)                     -> the text after spelling and grammar edits
    (result-text RESULT-ID FIELD)                -> guidance | corrected | annotated text

DIALOGUE is `current-dialogue` (the turns now in &dialogue) or a list of `(SPEAKER "text")`;
KB must be `current-kb` (an engine holds one KB).
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

from hyperon import E, ExpressionAtom, S, SymbolAtom, V
from hyperon.atoms import Atom

from replyguard.errors import InputError
from replyguard.metta_host import from_atom, to_atom
from replyguard.models import PostprocessedResponse, Turn

if TYPE_CHECKING:
    from replyguard.engine import Engine

_KEEP_RESULTS = 64


class SeedOperations:
    """Grounded operations bound to one engine (created before the engine's rules load).

    The engine is held by a weak reference: the operations live in the native MeTTa runner,
    which Python's collector cannot see into, so a strong one would keep every engine alive."""

    def __init__(self) -> None:
        self._engine: Callable[[], Engine | None] = lambda: None
        self._results: OrderedDict[str, PostprocessedResponse] = OrderedDict()
        self._count = 0

    def operations(self) -> dict[str, tuple[Callable[..., object], list[str]]]:
        return {
            "postprocess-with": (self._postprocess, ["String", "Atom", "Atom", "String", "Atom"]),
            "grammar-corrected": (self._grammar, ["String", "String"]),
            "result-text": (self._result_text, ["%Undefined%", "%Undefined%", "String"]),
        }

    def bind(self, engine: Engine) -> None:
        self._engine = weakref.ref(engine)

    def _bound(self) -> Engine:
        engine = self._engine()
        if engine is None:
            raise InputError("the seed predicates need an engine")
        return engine

    def _turns(self, dialogue: Atom) -> list[Turn]:
        engine = self._bound()
        if isinstance(dialogue, SymbolAtom) and dialogue.get_name() == "current-dialogue":
            found = engine.host.dialogue.query(E(S("turn"), V("id"), V("role"), V("text")))
            return [
                Turn(id=str(b["id"]), speaker=str(b["role"]), text=str(from_atom(b["text"])))
                for b in found
            ]
        if isinstance(dialogue, ExpressionAtom):
            turns = []
            for i, item in enumerate(dialogue.get_children(), start=1):
                parts = from_atom(item)
                if not (isinstance(parts, tuple) and len(parts) == 2):
                    raise InputError('dialogue: expected (SPEAKER "text") items')
                turns.append(Turn(id=f"T{i}", speaker=str(parts[0]), text=str(parts[1])))
            return turns
        raise InputError('dialogue: expected current-dialogue or a list of (SPEAKER "text")')

    def _postprocess(self, response: Atom, dialogue: Atom, kb: Atom, query: Atom) -> Atom:
        engine = self._bound()
        if str(kb) != "current-kb":
            raise InputError("kb: an engine checks against its own KB, current-kb")
        turns = self._turns(dialogue)
        result = engine.postprocess(str(from_atom(response)), str(from_atom(query)), turns)
        self._count += 1
        rid = f"R{self._count}"
        self._results[rid] = result
        if len(self._results) > _KEEP_RESULTS:
            self._results.popitem(last=False)
        return result_atom(rid, result)

    def _grammar(self, text: Atom) -> str:
        engine = self._bound()
        plain = str(from_atom(text))
        edits = engine.spelling.correct(plain)
        for edit in sorted(edits, key=lambda e: e.start, reverse=True):
            plain = plain[: edit.start] + edit.replacement + plain[edit.end :]
        return plain

    def _result_text(self, rid: Atom, field: Atom) -> str:
        result = self._results.get(str(rid))
        if result is None:
            raise InputError(f"{rid}: no such result (only the last {_KEEP_RESULTS} are kept)")
        name = str(field)
        if name == "guidance":
            return result.recommendation.guidance or ""
        if result.corrected is None:
            return result.original
        return result.corrected.corrected if name == "corrected" else result.corrected.annotated


def result_atom(rid: str, r: PostprocessedResponse) -> Atom:
    """A result as an expression the seed accessors (metta/seed.metta) take apart."""
    c = r.coherence
    f = r.factual_validation
    statuses = {v.claim_id: v.status for v in f.claim_validations}
    parts = (
        S("PostprocessedResponse"),
        S(rid),
        (S("Confidence"), r.confidence),
        (S("Recommendation"), S(r.recommendation.kind.value)),
        (
            S("Coherence"),
            S(rid),
            c.score,
            (
                S("QUD"),
                c.qud_relevance.score,
                c.qud_relevance.addresses_qud,
                S(c.qud_relevance.question_type.value),
            ),
            (S("Topic"), c.topic_consistency.score, c.topic_consistency.drift_detected),
            (S("Entity"), c.entity_consistency.score, c.entity_consistency.mismatches),
            (S("Discourse"), c.discourse_coherence.score),
            (S("Reference"), c.reference_consistency.score),
            (S("IssueSeverities"), tuple(i.severity for i in c.issues)),
        ),
        (
            S("Factual"),
            S(rid),
            f.score,
            (
                S("Stats"),
                f.stats.claims_checked,
                f.stats.claims_verified,
                f.stats.claims_contradicted,
                f.stats.claims_unverifiable,
                f.stats.claims_history_conflict,
            ),
            (
                S("Claims"),
                tuple(
                    (S(cl.id), cl.subject, S(cl.predicate), cl.object, S(statuses[cl.id].kind))
                    for cl in f.claims
                ),
            ),
            (
                S("ContradictionConfidences"),
                tuple(v.confidence for v in statuses.values() if v.kind == "Contradicted"),
            ),
        ),
        (
            S("Flags"),
            S(rid),
            tuple(
                (S(x.hallucination_type.value), x.confidence, x.content)
                for x in r.hallucination_flags
            ),
        ),
    )
    return to_atom(parts)
