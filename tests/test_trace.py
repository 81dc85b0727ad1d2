"""The trace store keeps results under the seed's PathMap keys and survives a killed writer."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap

import pytest
from hyperon import AtomKind, GroundingSpaceRef, MeTTa

from replyguard.models import (
    Claim,
    ClaimValidation,
    CoherenceIssue,
    CoherenceIssueType,
    CoherenceResult,
    Contradicted,
    CorrectedResponse,
    CorrectionType,
    DiscourseCoherenceResult,
    EntityConsistencyResult,
    Evidence,
    FactualValidationResult,
    HallucinationFlag,
    HallucinationType,
    NewEntity,
    PostprocessedResponse,
    QUDRelevanceResult,
    QuestionType,
    Recommendation,
    RecommendationKind,
    ReferenceConsistencyResult,
    ResponseCorrection,
    Span,
    TopicConsistencyResult,
    Unverifiable,
    ValidationStats,
    Verified,
)
from replyguard.trace import (
    FileTraceStore,
    MemoryTraceStore,
    TraceStore,
    TraceStoreError,
    TraceStoreLocked,
)
from replyguard.trace_paths import escape_segment, result_paths, unescape_segment, write_result

TRICKY = 'He said "hi" \\ then\nleft\ttab \x01 \x7f é 日本 🎉'


@pytest.fixture(params=["memory", "file"])
def store(request, tmp_path) -> TraceStore:
    if request.param == "memory":
        return MemoryTraceStore()
    file_store = FileTraceStore(tmp_path / "trace.rgt")
    request.addfinalizer(file_store.close)
    return file_store


def _value(atom):
    if atom.get_metatype() == AtomKind.EXPR:
        assert atom.get_children() == []
        return None
    return atom.get_object().value


# --------------------------------------------------------------------------- store behaviour


def test_put_get_and_last_write_wins(store):
    store.put("/postprocessing/s1/t1/result/confidence", 0.5)
    store.put_many([("/postprocessing/s1/t1/result/confidence", 0.82), ("/a/b", True)])
    assert store.get("/postprocessing/s1/t1/result/confidence") == 0.82
    assert store.get("/a/b") is True
    assert store.get("/a") is None  # an interior node holds no value
    assert store.get("/missing") is None


def test_scan_is_sorted_by_segment_and_matches_whole_segments_only(store):
    store.put_many(
        [("/p/s10/x", 1), ("/p/s1/y", 2), ("/p/s1-x/z", 3), ("/p/s1", 4), ("/p/s1/a/b", 5)]
    )
    expected = [("/p/s1", 4), ("/p/s1/a/b", 5), ("/p/s1/y", 2)]
    assert list(store.scan("/p/s1")) == expected
    assert list(store.scan("/p/s1/")) == expected
    assert list(store.scan("/p/s1/y")) == [("/p/s1/y", 2)]
    assert list(store.scan("/p/s")) == []
    assert list(store.scan("/p/s1/y/deeper")) == []
    # The whole s1 subtree comes before its string-wise neighbours "s1-x" and "s10".
    assert [p for p, _ in store.scan("")] == [
        "/p/s1",
        "/p/s1/a/b",
        "/p/s1/y",
        "/p/s1-x/z",
        "/p/s10/x",
    ]


def test_delete_prefix_removes_only_that_subtree(store):
    store.put_many([("/p/s1", 0), ("/p/s1/a", 1), ("/p/s1-x/a", 2), ("/p/s10/a", 3)])
    store.delete_prefix("/p/s1")
    assert [p for p, _ in store.scan("/")] == ["/p/s1-x/a", "/p/s10/a"]
    store.put("/p/s1/a", 9)  # a deleted key can come back
    assert store.get("/p/s1/a") == 9


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("no/leading/slash", 1),
        ("/trailing/", 1),
        ("/empty//segment", 1),
        ("/nul\0byte", 1),
        ("/ok", float("nan")),
        ("/ok", 2**63),
        ("/ok", [1, 2]),
    ],
)
def test_bad_batch_is_refused_whole(store, path, value):
    with pytest.raises(ValueError):
        store.put_many([("/first", 1), (path, value)])
    assert list(store.scan()) == []


def test_scalar_subclasses_are_stored_plain(store):
    class Odd(float):
        def __repr__(self) -> str:  # what numpy.float64 does in numpy 2
            return f"Odd({float(self)})"

    store.put_many([("/q", QuestionType.Wh), ("/f", Odd(0.25))])
    assert type(store.get("/q")) is str
    assert store.export_metta() == '(trace "/f" 0.25)\n(trace "/q" "Wh")\n'


def test_export_json_nests_by_segment(store):
    store.put_many([("/a/b/c", 1), ("/a/b/d", "x"), ("/a/e", None), ("/a/b", True), ("/z", 0.5)])
    assert store.export_json("/a") == {"a": {"b": {"": True, "c": 1, "d": "x"}, "e": None}}
    assert store.export_json()["z"] == 0.5


def test_export_metta_writes_one_atom_per_leaf(store):
    store.put_many([("/s/t/result/confidence", 0.82), ("/s/t/x", 'a"b'), ("/s/t/y", False)])
    assert store.export_metta("/s") == (
        '(trace "/s/t/result/confidence" 0.82)\n(trace "/s/t/x" "a\\"b")\n(trace "/s/t/y" False)\n'
    )


def test_metta_export_round_trips_through_a_space(store):
    leaves = [
        ("/postprocessing/s1/t1/result/confidence", 0.82),
        ("/postprocessing/s1/t1/input/llm_response", TRICKY),
        ("/postprocessing/s1/t1/coherence/issues/count", 3),
        ("/postprocessing/s1/t1/coherence/issues/big", -(2**63)),
        ("/postprocessing/s1/t1/coherence/qud/addresses_qud", True),
        ("/postprocessing/s1/t1/correction/applied", False),
        ("/postprocessing/s1/t1/none", None),
        ("/postprocessing/s1/t1/tiny", 1e-300),
        ("/postprocessing/s1/t1/neg", -2.5),
        ('/postprocessing/s1/t1/id "quoted" \\ and\nnewline', 7),
        ("/postprocessing/s2/t1/result/confidence", 0.1),
    ]
    store.put_many(leaves)
    metta = MeTTa()
    space = GroundingSpaceRef()
    assert store.load_into_space(space, "/postprocessing/s1", metta) == 10

    found = {
        _value(b["p"]): _value(b["v"]) for b in space.query(metta.parse_single("(trace $p $v)"))
    }
    assert found == dict(leaves[:-1])
    one = space.query(metta.parse_single('(trace "/postprocessing/s1/t1/result/confidence" $v)'))
    assert [_value(b["v"]) for b in one] == [0.82]


def test_metta_export_replaces_what_hyperon_cannot_parse(store):
    # A NUL, even escaped, aborts hyperon's parser; a lone surrogate cannot reach it at all.
    store.put("/x", "a\0b\ud800c")
    space = GroundingSpaceRef()
    store.load_into_space(space)
    [binding] = space.query(MeTTa().parse_single('(trace "/x" $v)'))
    assert _value(binding["v"]) == "a\ufffdb\ufffdc"
    assert store.get("/x") == "a\0b\ud800c"  # the store itself keeps the exact text


# --------------------------------------------------------------------------- file store


def _batch(n: int) -> list[tuple[str, str | int]]:
    return [(f"/w/{n}/{j}", f"value {n}.{j} {TRICKY}") for j in range(5)] + [(f"/w/{n}/n", n)]


@pytest.mark.parametrize("fsync", [True, False])
def test_file_store_persists_across_reopen(tmp_path, fsync):
    path = tmp_path / "trace.rgt"
    with FileTraceStore(path, fsync=fsync) as store:
        for n in range(3):
            store.put_many(_batch(n))
        store.delete_prefix("/w/1")
        store.put("/w/0/n", -1)
        store.put("/lone", "\ud800")
    with FileTraceStore(path) as again:
        assert again.recovered is None
        assert again.get("/w/0/n") == -1
        assert again.get("/w/2/3") == f"value 2.3 {TRICKY}"
        assert list(again.scan("/w/1")) == []
        assert again.get("/lone") == "\ud800"
        assert len(list(again.scan())) == 13


def test_compact_keeps_live_leaves_and_shrinks_the_file(tmp_path):
    path = tmp_path / "trace.rgt"
    with FileTraceStore(path) as store:
        for n in range(20):
            store.put_many(_batch(n % 2))
        before = list(store.scan())
        size = path.stat().st_size
        store.compact()
        assert path.stat().st_size < size / 5
        store.put("/after", 1)  # still the locked writer, appending to the new file
    with FileTraceStore(path) as again:
        assert list(again.scan()) == [("/after", 1), *before]
    assert sorted(os.listdir(tmp_path)) == ["trace.rgt"]


def test_torn_tail_is_cut_and_earlier_records_survive(tmp_path):
    path = tmp_path / "trace.rgt"
    with FileTraceStore(path) as store:
        for n in range(3):
            store.put_many(_batch(n))
        good_end = path.stat().st_size
        store.put_many(_batch(3))
    with open(path, "r+b") as f:
        f.truncate(path.stat().st_size - 7)

    with FileTraceStore(path) as store:
        assert "torn" in store.recovered
        assert path.stat().st_size == good_end
        assert [store.get(f"/w/{n}/n") for n in range(4)] == [0, 1, 2, None]
        store.put_many(_batch(4))
    with FileTraceStore(path) as store:
        assert store.recovered is None
        assert store.get("/w/4/n") == 4


def test_garbage_tail_is_cut(tmp_path):
    path = tmp_path / "trace.rgt"
    with FileTraceStore(path) as store:
        store.put_many(_batch(0))
    with open(path, "ab") as f:
        f.write(b"\xff\xff\xff\x7f garbage")  # a length running past the end of the file
    with FileTraceStore(path) as store:
        assert "torn" in store.recovered
        assert store.get("/w/0/4") == f"value 0.4 {TRICKY}"


def test_corrupt_record_is_moved_aside_not_destroyed(tmp_path):
    path = tmp_path / "trace.rgt"
    with FileTraceStore(path) as store:
        store.put_many(_batch(0))
        middle = path.stat().st_size
        store.put_many(_batch(1))
        store.put_many(_batch(2))
    data = bytearray(path.read_bytes())
    # Change a letter inside a value: still valid JSON, so only the CRC can tell.
    flip = data.index(b"value 1.2", middle)
    data[flip] = ord("V")
    path.write_bytes(bytes(data))

    with FileTraceStore(path) as store:
        assert f"offset {middle}" in store.recovered
        assert [store.get(f"/w/{n}/n") for n in range(3)] == [0, None, None]
    assert path.stat().st_size == middle
    assert (tmp_path / f"trace.rgt.corrupt-{middle}").read_bytes() == bytes(data[middle:])


def test_failed_write_leaves_no_half_record(tmp_path, monkeypatch):
    path = tmp_path / "trace.rgt"
    store = FileTraceStore(path)
    store.put_many(_batch(0))
    size = path.stat().st_size
    real_pwrite = os.pwrite

    def disk_fills_up(fd, data, offset):
        real_pwrite(fd, bytes(data)[: len(data) // 2], offset)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "pwrite", disk_fills_up)
    with pytest.raises(OSError):
        store.put_many(_batch(1))
    monkeypatch.undo()
    assert path.stat().st_size == size
    assert store.get("/w/1/n") is None
    store.put("/w/2", "short")
    store.close()
    with FileTraceStore(path) as again:
        assert again.recovered is None
        assert (again.get("/w/0/n"), again.get("/w/1/n"), again.get("/w/2")) == (0, None, "short")


def test_torn_header_opens_as_empty(tmp_path):
    path = tmp_path / "trace.rgt"
    path.write_bytes(b"RGTR")
    with FileTraceStore(path) as store:
        assert list(store.scan()) == []
        store.put("/a", 1)
    with FileTraceStore(path) as store:
        assert store.get("/a") == 1


def test_foreign_file_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes(b"my precious notes\n")
    with pytest.raises(TraceStoreError, match="not a replyguard trace file"):
        FileTraceStore(path)
    assert path.read_bytes() == b"my precious notes\n"


def test_reader_sees_committed_records_and_never_cuts(tmp_path):
    path = tmp_path / "trace.rgt"
    writer = FileTraceStore(path)
    writer.put_many(_batch(0))
    with open(path, "ab") as f:
        f.write(b"\x10\x00\x00\x00half")  # as if the writer were mid-record
    size = path.stat().st_size

    reader = FileTraceStore(path, readonly=True)  # no lock needed while the writer holds it
    assert reader.get("/w/0/n") == 0
    assert path.stat().st_size == size
    with pytest.raises(TraceStoreError, match="read-only"):
        reader.put("/a", 1)
    writer.close()


def test_second_writer_gets_a_clear_error(tmp_path):
    path = tmp_path / "trace.rgt"
    probe = textwrap.dedent(
        """
        import sys
        from replyguard.trace import FileTraceStore, TraceStoreLocked
        try:
            FileTraceStore(sys.argv[1]).put("/second", 1)
        except TraceStoreLocked as e:
            print(e)
            sys.exit(3)
        """
    )
    with FileTraceStore(path) as store:
        store.put("/first", 1)
        run = subprocess.run(
            [sys.executable, "-c", probe, str(path)], capture_output=True, text=True, timeout=60
        )
        assert run.returncode == 3, run.stderr
        assert "open for writing in another process" in run.stdout
        with pytest.raises(TraceStoreLocked):
            FileTraceStore(path)  # a second handle in the same process is refused too
    with FileTraceStore(path) as store:  # the lock goes with the writer
        assert store.get("/first") == 1


WRITER = textwrap.dedent(
    """
    import sys
    from replyguard.trace import FileTraceStore
    store = FileTraceStore(sys.argv[1])
    batch = int(sys.argv[2])
    while True:
        store.put_many([(f"/w/{batch}/{j}", f"{batch}:{j}:" + "x" * 500) for j in range(200)])
        print(batch, flush=True)
        batch += 1
    """
)


def test_killed_writer_loses_at_most_the_batch_in_flight(tmp_path):
    path = tmp_path / "trace.rgt"
    acked: list[int] = []
    for first in (0, 1000, 2000):  # each round appends to what the last killed writer left
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), str(first)],
            stdout=subprocess.PIPE,
            text=True,
        )
        while int(proc.stdout.readline()) < first + 15:
            pass
        os.kill(proc.pid, signal.SIGKILL)
        rest = proc.stdout.read()
        proc.wait(timeout=30)
        last = int(rest.split()[-1]) if rest.split() else first + 15
        acked.extend(range(first, last + 1))

        with FileTraceStore(path) as store:
            stored = {int(p.split("/")[2]) for p, _ in store.scan("/w")}
            for batch in acked:
                values = list(store.scan(f"/w/{batch}"))
                assert len(values) == 200, batch
                assert all(v.startswith(f"{batch}:") for _, v in values)
            # Only the batch in flight may be there without an ack, and then whole.
            assert stored - set(acked) <= {last + 1}
            if last + 1 in stored:
                assert len(list(store.scan(f"/w/{last + 1}"))) == 200
                acked.append(last + 1)


# --------------------------------------------------------------------------- result → paths


def _issue(kind: CoherenceIssueType, span: Span | None, suggestion: str | None) -> CoherenceIssue:
    return CoherenceIssue(
        issue_type=kind, span=span, description=f"{kind} here", severity=0.6, suggestion=suggestion
    )


def _result(**overrides) -> PostprocessedResponse:
    reply = "John Smith's email is john@acme.com. He joined in 2019 and works in Marketing."
    fields = dict(
        original=reply,
        query="What is John's email?",
        coherence=CoherenceResult(
            score=0.7,
            qud_relevance=QUDRelevanceResult(
                score=1.0,
                question_type=QuestionType.Wh,
                answer_coverage=1.0,
                semantic_relevance=0.9,
                addresses_qud=True,
            ),
            topic_consistency=TopicConsistencyResult(score=0.8, drift_detected=False),
            entity_consistency=EntityConsistencyResult(
                score=0.5, references_checked=2, mismatches=1
            ),
            discourse_coherence=DiscourseCoherenceResult(score=0.9, reply_act="Inform"),
            reference_consistency=ReferenceConsistencyResult(score=1.0),
            issues=[
                _issue(CoherenceIssueType.EntityMismatch, Span(start=62, end=71), "Engineering"),
                _issue(CoherenceIssueType.TopicDrift, None, None),
            ],
        ),
        factual_validation=FactualValidationResult(
            score=0.33,
            claims=[
                Claim(
                    id="c1",
                    subject="John Smith",
                    predicate="email",
                    object="john@acme.com",
                    span=Span(start=0, end=35),
                    confidence=0.9,
                ),
                Claim(
                    id="c2",
                    subject="John Smith",
                    predicate="department",
                    object="Marketing",
                    span=Span(start=52, end=80),
                    confidence=0.8,
                ),
                Claim(
                    id="c3",
                    claim_type="Relation",
                    subject="John Smith",
                    predicate="joined",
                    object="2019",
                    span=Span(start=37, end=51),
                    confidence=0.7,
                ),
                Claim(
                    id="c4",
                    subject="John",
                    predicate="age",
                    object="40",
                    span=Span(start=0, end=4),
                    confidence=0.5,
                ),
            ],
            claim_validations=[
                ClaimValidation(
                    claim_id="c1",
                    status=Verified(confidence=1.0),
                    kb_evidence=Evidence(kind="kb", entity_id="john", value="john@acme.com"),
                ),
                ClaimValidation(
                    claim_id="c2",
                    status=Contradicted(kb_value="Engineering", confidence=1.0),
                    suggestion="Engineering",
                ),
                ClaimValidation(claim_id="c3", status=Unverifiable()),
            ],
            stats=ValidationStats(
                claims_checked=3, claims_verified=1, claims_contradicted=1, claims_unverifiable=1
            ),
        ),
        hallucination_flags=[
            HallucinationFlag(
                hallucination_type=HallucinationType.WrongAttribute,
                span=Span(start=62, end=71),
                content="Marketing",
                confidence=0.95,
                suggestion="Engineering",
            )
        ],
        corrected=CorrectedResponse(
            original=reply,
            corrected=reply.replace("Marketing", "Engineering"),
            annotated=reply.replace("Marketing", "Engineering") + " [2019: unverified]",
            corrections=[
                ResponseCorrection(
                    correction_type=CorrectionType.Factual,
                    original="Marketing",
                    replacement="Engineering",
                    span=Span(start=62, end=71),
                    confidence=0.95,
                ),
                ResponseCorrection(
                    correction_type=CorrectionType.Annotation,
                    original="2019",
                    span=Span(start=47, end=51),
                    confidence=0.6,
                ),
            ],
        ),
        new_entities=[NewEntity(name="Acme", span=Span(start=27, end=31))],
        confidence=0.62,
        recommendation=Recommendation(kind=RecommendationKind.CorrectAndDeliver),
    )
    fields.update(overrides)
    return PostprocessedResponse(**fields)


SEED_KEYS = {
    "input/llm_response",
    "input/query",
    "coherence/score",
    "coherence/qud/score",
    "coherence/qud/addresses_qud",
    "coherence/qud/question_type",
    "coherence/topic/score",
    "coherence/topic/drift_detected",
    "coherence/entity/score",
    "coherence/entity/mismatches",
    "coherence/discourse/score",
    "coherence/reference/score",
    "coherence/issues/count",
    *(
        f"coherence/issues/0/{k}"
        for k in ("type", "description", "severity", "span_start", "span_end", "suggestion")
    ),
    *(f"coherence/issues/1/{k}" for k in ("type", "description", "severity")),
    "factual/score",
    "factual/claims_checked",
    "factual/claims_verified",
    "factual/claims_contradicted",
    "factual/claims_unverifiable",
    *(
        f"factual/claims/0/{k}"
        for k in ("type", "subject", "predicate", "object", "status", "kb_value")
    ),
    *(
        f"factual/claims/1/{k}"
        for k in ("type", "subject", "predicate", "object", "status", "kb_value", "suggestion")
    ),
    *(f"factual/claims/2/{k}" for k in ("type", "subject", "predicate", "object", "status")),
    *(f"factual/claims/3/{k}" for k in ("type", "subject", "predicate", "object")),
    "hallucinations/count",
    *(
        f"hallucinations/0/{k}"
        for k in ("span_start", "span_end", "content", "type", "confidence", "suggestion")
    ),
    "correction/applied",
    "correction/correction_count",
    *(f"correction/corrections/0/{k}" for k in ("type", "original", "corrected", "confidence")),
    *(f"correction/corrections/1/{k}" for k in ("type", "original", "confidence")),
    "result/confidence",
    "result/recommendation",
    "result/corrected_response",
    "result/annotated_response",
    "result/new_entities_count",
}


def test_result_paths_cover_every_seed_key():
    leaves = dict(result_paths(_result(), "s1", "t1"))
    base = "/postprocessing/s1/t1/"
    assert {p.removeprefix(base) for p in leaves if p.startswith(base)} == SEED_KEYS
    detector = {p for p in leaves if p.startswith("/hallucination/")}
    assert detector == {
        f"/hallucination/s1/t1/0/{k}"
        for k in ("type", "confidence", "content", "span_start", "span_end")
    }
    assert len(leaves) == len(SEED_KEYS) + len(detector)


def test_result_paths_carry_the_seed_values():
    leaves = dict(result_paths(_result(), "s1", "t1"))
    at = "/postprocessing/s1/t1"
    assert leaves[f"{at}/input/query"] == "What is John's email?"
    assert leaves[f"{at}/coherence/qud/question_type"] == "Wh"
    assert leaves[f"{at}/coherence/qud/addresses_qud"] is True
    assert leaves[f"{at}/coherence/entity/mismatches"] == 1
    assert leaves[f"{at}/coherence/issues/count"] == 2
    assert leaves[f"{at}/coherence/issues/0/type"] == "EntityMismatch"
    assert (
        leaves[f"{at}/coherence/issues/0/span_start"],
        leaves[f"{at}/coherence/issues/0/span_end"],
    ) == (62, 71)
    assert leaves[f"{at}/factual/claims/0/status"] == "Verified"
    assert leaves[f"{at}/factual/claims/0/kb_value"] == "john@acme.com"
    assert leaves[f"{at}/factual/claims/1/status"] == "Contradicted"
    assert leaves[f"{at}/factual/claims/1/kb_value"] == "Engineering"
    assert leaves[f"{at}/factual/claims/1/suggestion"] == "Engineering"
    assert leaves[f"{at}/factual/claims/2/type"] == "Relation"
    assert leaves[f"{at}/factual/claims/2/status"] == "Unverifiable"
    assert leaves[f"{at}/hallucinations/0/type"] == "WrongAttribute"
    assert leaves["/hallucination/s1/t1/0/confidence"] == 0.95
    assert leaves[f"{at}/correction/applied"] is True
    assert leaves[f"{at}/correction/correction_count"] == 2
    assert leaves[f"{at}/correction/corrections/0/corrected"] == "Engineering"
    assert leaves[f"{at}/correction/corrections/1/type"] == "Annotation"
    assert leaves[f"{at}/result/recommendation"] == "CorrectAndDeliver"
    assert leaves[f"{at}/result/confidence"] == 0.62
    assert leaves[f"{at}/result/new_entities_count"] == 1
    assert "Engineering" in leaves[f"{at}/result/corrected_response"]
    assert all(type(v) in (str, int, float, bool) for v in leaves.values())


def test_without_a_correction_stage_the_optional_keys_are_omitted():
    leaves = dict(result_paths(_result(corrected=None, hallucination_flags=[]), "s1", "t1"))
    at = "/postprocessing/s1/t1"
    assert leaves[f"{at}/correction/applied"] is False
    assert leaves[f"{at}/correction/correction_count"] == 0
    assert leaves[f"{at}/hallucinations/count"] == 0
    for gone in ("result/corrected_response", "result/annotated_response"):
        assert f"{at}/{gone}" not in leaves
    assert not any(
        p.startswith(("/hallucination/", f"{at}/correction/corrections")) for p in leaves
    )
    assert None not in leaves.values()


def test_user_ids_cannot_add_levels_or_alias_each_other(store):
    assert escape_segment("a/b%2Fc\0") == "a%2Fb%252Fc%00"
    for raw in ("a/b", "a%2Fb", "100%", "x/../y", "a\0b"):
        assert unescape_segment(escape_segment(raw)) == raw
    with pytest.raises(ValueError):
        escape_segment("")
    write_result(store, _result(), "a/b", "t/1")
    write_result(store, _result(), "a", "b")
    assert store.get("/postprocessing/a%2Fb/t%2F1/result/confidence") == 0.62
    under_a = {p.split("/")[3] for p, _ in store.scan("/postprocessing/a")}
    assert under_a == {"b"}


def test_rewriting_a_turn_leaves_no_stale_leaves(store):
    write_result(store, _result(), "s1", "t1")
    fewer = _result(hallucination_flags=[], corrected=None)
    write_result(store, fewer, "s1", "t1")
    assert dict(store.scan("/")) == dict(result_paths(fewer, "s1", "t1"))
