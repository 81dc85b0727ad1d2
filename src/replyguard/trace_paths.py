"""The trace's vocabulary — paths, leaf values, their MeTTa text — and a result flattened into it.

A path is "/"-separated non-empty segments. Ids that come from users (session, turn) are escaped
into one segment each — "%" → "%25", "/" → "%2F", NUL → "%00" — so an id like "a/b" cannot
create an extra level or alias another id's subtree; `unescape_segment` reverses it.

Keys follow the seed's PathMap layout under `/postprocessing/{session}/{turn}/…`, plus the
hallucination detector's own `/hallucination/{session}/{turn}/{i}/…`. Optional values that are
absent are omitted rather than stored as None, so "not there" and "None" never mix.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING
from urllib.parse import unquote

from replyguard.models import Contradicted, PostprocessedResponse

if TYPE_CHECKING:
    from replyguard.trace import TraceStore

JSONScalar = str | int | float | bool | None

_SURROGATE = re.compile("[\ud800-\udfff]")
_INT64 = 2**63


def check_path(path: str) -> str:
    """Refuse paths whose segments would be ambiguous, or that MeTTa's parser cannot carry."""
    if (
        not isinstance(path, str)
        or not path.startswith("/")
        or path.endswith("/")
        or "//" in path
        or "\0" in path
        or _SURROGATE.search(path)
    ):
        raise ValueError(f"not a trace path (non-empty segments, no NUL/surrogate): {path!r:.120}")
    return path


def normalize_prefix(prefix: str) -> str:
    """'' and '/' mean everything; a trailing '/' is ignored since matching is per segment."""
    stripped = prefix.rstrip("/")
    return check_path(stripped) if stripped else ""


def check_value(value: object) -> JSONScalar:
    """Plain scalars only (a StrEnum becomes its str), and only what JSON and MeTTa both hold."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int) and -_INT64 <= value < _INT64:
        return int(value)
    if isinstance(value, float) and math.isfinite(value):
        return float(value)  # a subclass (numpy.float64) would repr as "np.float64(…)"
    if isinstance(value, str):
        return str(value)
    raise ValueError(f"not a finite float, 64-bit int, str, bool or None: {value!r:.80}")


# MeTTa string literals: the tokenizer knows \\ \" \n \r \t \xHH (ASCII) and \u{…}; a NUL, even
# escaped, aborts hyperon 0.2.6's parser (a Rust panic), so it becomes U+FFFD, as do lone
# surrogates that cannot cross into Rust at all.
_METTA_ESCAPES = {i: f"\\x{i:02x}" for i in [*range(32), 127]}
_METTA_ESCAPES.update({0: "\ufffd", 9: "\\t", 10: "\\n", 13: "\\r", 34: '\\"', 92: "\\\\"})


def metta_literal(value: JSONScalar) -> str:
    """One value as MeTTa source; None is the empty expression `()`."""
    if value is None:
        return "()"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int | float):
        return repr(value)
    return '"' + _SURROGATE.sub("\ufffd", value.translate(_METTA_ESCAPES)) + '"'


def escape_segment(value: str) -> str:
    """One user id as one segment; an empty id would make an empty segment, so it is refused."""
    if not value:
        raise ValueError("a session or turn id must not be empty")
    return value.replace("%", "%25").replace("/", "%2F").replace("\0", "%00")


def unescape_segment(segment: str) -> str:
    """The id back, for display; exact because `escape_segment` encodes every "%"."""
    return unquote(segment)


def turn_prefixes(session: str, turn: str) -> tuple[str, str]:
    """The postprocessing and hallucination-detector subtrees of one turn."""
    ids = f"{escape_segment(session)}/{escape_segment(turn)}"
    return f"/postprocessing/{ids}", f"/hallucination/{ids}"


def result_paths(
    result: PostprocessedResponse, session: str, turn: str
) -> list[tuple[str, JSONScalar]]:
    """Every seed key for one checked reply, as (path, value) leaves ready for `put_many`."""
    base, detector = turn_prefixes(session, turn)
    out: list[tuple[str, JSONScalar]] = []

    def put(path: str, value: JSONScalar) -> None:
        if value is not None:
            out.append((path, value))

    put(f"{base}/input/llm_response", result.original)
    put(f"{base}/input/query", result.query)

    coh = result.coherence
    put(f"{base}/coherence/score", coh.score)
    put(f"{base}/coherence/qud/score", coh.qud_relevance.score)
    put(f"{base}/coherence/qud/addresses_qud", coh.qud_relevance.addresses_qud)
    put(f"{base}/coherence/qud/question_type", coh.qud_relevance.question_type.value)
    put(f"{base}/coherence/topic/score", coh.topic_consistency.score)
    put(f"{base}/coherence/topic/drift_detected", coh.topic_consistency.drift_detected)
    put(f"{base}/coherence/entity/score", coh.entity_consistency.score)
    put(f"{base}/coherence/entity/mismatches", coh.entity_consistency.mismatches)
    put(f"{base}/coherence/discourse/score", coh.discourse_coherence.score)
    put(f"{base}/coherence/reference/score", coh.reference_consistency.score)
    put(f"{base}/coherence/issues/count", len(coh.issues))
    for i, issue in enumerate(coh.issues):
        at = f"{base}/coherence/issues/{i}"
        put(f"{at}/type", issue.issue_type.value)
        put(f"{at}/description", issue.description)
        put(f"{at}/severity", issue.severity)
        put(f"{at}/span_start", issue.span.start if issue.span else None)
        put(f"{at}/span_end", issue.span.end if issue.span else None)
        put(f"{at}/suggestion", issue.suggestion)

    fact = result.factual_validation
    put(f"{base}/factual/score", fact.score)
    put(f"{base}/factual/claims_checked", fact.stats.claims_checked)
    put(f"{base}/factual/claims_verified", fact.stats.claims_verified)
    put(f"{base}/factual/claims_contradicted", fact.stats.claims_contradicted)
    put(f"{base}/factual/claims_unverifiable", fact.stats.claims_unverifiable)
    validations = {v.claim_id: v for v in fact.claim_validations}
    for i, claim in enumerate(fact.claims):
        at = f"{base}/factual/claims/{i}"
        put(f"{at}/type", claim.claim_type)
        put(f"{at}/subject", claim.subject)
        put(f"{at}/predicate", claim.predicate)
        put(f"{at}/object", claim.object)
        validation = validations.get(claim.id)
        if validation is None:
            continue
        status = validation.status
        put(f"{at}/status", status.kind)
        if isinstance(status, Contradicted):
            put(f"{at}/kb_value", status.kb_value)
        elif validation.kb_evidence is not None:
            put(f"{at}/kb_value", validation.kb_evidence.value)
        put(f"{at}/suggestion", validation.suggestion)

    put(f"{base}/hallucinations/count", len(result.hallucination_flags))
    for i, flag in enumerate(result.hallucination_flags):
        for at in (f"{base}/hallucinations/{i}", f"{detector}/{i}"):
            put(f"{at}/span_start", flag.span.start)
            put(f"{at}/span_end", flag.span.end)
            put(f"{at}/content", flag.content)
            put(f"{at}/type", flag.hallucination_type.value)
            put(f"{at}/confidence", flag.confidence)
        put(f"{base}/hallucinations/{i}/suggestion", flag.suggestion)

    corrected = result.corrected
    corrections = corrected.corrections if corrected else []
    put(f"{base}/correction/applied", bool(corrections))
    put(f"{base}/correction/correction_count", len(corrections))
    for i, correction in enumerate(corrections):
        at = f"{base}/correction/corrections/{i}"
        put(f"{at}/type", correction.correction_type.value)
        put(f"{at}/original", correction.original)
        put(f"{at}/corrected", correction.replacement)
        put(f"{at}/confidence", correction.confidence)

    put(f"{base}/result/confidence", result.confidence)
    put(f"{base}/result/recommendation", result.recommendation.kind.value)
    put(f"{base}/result/corrected_response", corrected.corrected if corrected else None)
    put(f"{base}/result/annotated_response", corrected.annotated if corrected else None)
    put(f"{base}/result/new_entities_count", len(result.new_entities))
    return out


def write_result(store: TraceStore, result: PostprocessedResponse, session: str, turn: str) -> None:
    """Store one turn's result in a single batch that first clears the turn's old subtrees, so a
    re-checked turn leaves no stale claims or flags from the previous run, even after a crash."""
    store.replace(turn_prefixes(session, turn), result_paths(result, session, turn))
