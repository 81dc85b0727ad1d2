"""Trace store: checked replies kept as path → scalar leaves under the seed's PathMap keys.

A prefix matches whole segments ("/postprocessing/s1" never matches "/postprocessing/s10"); scans
sort segment by segment, so a subtree stays together ("…/s1/…" before "…/s1-x", "…/claims/10"
before "…/claims/2"). Values are JSON scalars MeTTa reads back too (finite floats, 64-bit ints),
so both exports round-trip. `FileTraceStore`, the persistent default, appends one framed record
per batch: a crash loses at most that batch.
"""

from __future__ import annotations

import fcntl
import json
import os
import struct
import zlib
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from contextlib import suppress
from typing import Any

from hyperon import GroundingSpaceRef, MeTTa

from replyguard.trace_paths import (
    JSONScalar,
    check_path,
    check_value,
    metta_literal,
    normalize_prefix,
)

_MISSING = object()


class TraceStoreError(Exception):
    """A trace file that cannot be used: not ours, or opened read-only for a write."""


class TraceStoreLocked(TraceStoreError):
    """Another process is writing the file; two appenders would interleave their records."""


class TraceStore(ABC):
    """What every store offers; writes go through `replace`, one atomic batch per call."""

    @abstractmethod
    def replace(self, prefixes: Iterable[str], items: Iterable[tuple[str, JSONScalar]]) -> None:
        """Delete every subtree in `prefixes`, then write `items`, as one atomic batch."""

    @abstractmethod
    def get(self, path: str) -> JSONScalar:
        """The value at `path`, or None when nothing is stored there."""

    @abstractmethod
    def scan(self, prefix: str = "") -> Iterator[tuple[str, JSONScalar]]:
        """(path, value) pairs under `prefix`, sorted by segment; a snapshot, safe to write to."""

    def put(self, path: str, value: JSONScalar) -> None:
        self.replace((), [(path, value)])

    def put_many(self, items: Iterable[tuple[str, JSONScalar]]) -> None:
        self.replace((), items)

    def delete_prefix(self, prefix: str) -> None:
        self.replace([prefix], ())

    def export_json(self, prefix: str = "") -> dict[str, Any]:
        """Nested dicts by segment from the root; a node holding a value and children keeps its
        value under the key "" (never a real segment, since empty segments are refused)."""
        root: dict[str, Any] = {}
        for path, value in self.scan(prefix):
            *parents, leaf = path[1:].split("/")
            node = root
            for segment in parents:
                child = node.setdefault(segment, {})
                if not isinstance(child, dict):
                    # A parent sorts before its children, so its value is already here.
                    child = node[segment] = {"": child}
                node = child
            node[leaf] = value
        return root

    def export_metta(self, prefix: str = "") -> str:
        """One `(trace "path" value)` atom per leaf, a line each, readable by hyperon's parser."""
        return "".join(
            f"(trace {metta_literal(path)} {metta_literal(value)})\n"
            for path, value in self.scan(prefix)
        )

    def load_into_space(
        self, space: GroundingSpaceRef, prefix: str = "", metta: MeTTa | None = None
    ) -> int:
        """Add the `export_metta` atoms to `space` (parsed, so they match what a REPL user types);
        returns how many were added. Pass the REPL's `metta` to reuse its tokenizer."""
        atoms = (metta or MeTTa()).parse_all(self.export_metta(prefix))
        for atom in atoms:
            space.add_atom(atom)
        return len(atoms)


class MemoryTraceStore(TraceStore):
    """A trie of dicts, one level per segment: a leaf is a scalar in its parent's dict, a node
    that has both a value and children keeps the value under "" (never a real segment).

    Deleting a subtree is one `pop`, and a scan sorts only the children it visits, so
    re-writing or reading one turn costs the same however many turns the store holds.
    """

    def __init__(self) -> None:
        self._root: dict[str, Any] = {}

    def replace(self, prefixes: Iterable[str], items: Iterable[tuple[str, JSONScalar]]) -> None:
        self._apply(*_check_batch(prefixes, items))

    def _apply(self, prefixes: list[str], items: list[tuple[str, JSONScalar]]) -> None:
        for prefix in prefixes:
            self._delete(prefix)
        for path, value in items:
            *parents, leaf = path[1:].split("/")
            node = self._root
            for segment in parents:
                child = node.get(segment)
                if not isinstance(child, dict):
                    child = node[segment] = {"": child} if segment in node else {}
                node = child
            if isinstance(node.get(leaf), dict):
                node[leaf][""] = value
            else:
                node[leaf] = value

    def _delete(self, prefix: str) -> None:
        parent_path, _, leaf = prefix.rpartition("/")
        parent = self._find(parent_path)
        if not prefix:
            self._root.clear()
        elif isinstance(parent, dict):
            parent.pop(leaf, None)

    def _find(self, path: str) -> Any:
        """The node or leaf at `path` (the root for ""), or `_MISSING`."""
        node: Any = self._root
        for segment in path[1:].split("/") if path else ():
            if not isinstance(node, dict) or segment not in node:
                return _MISSING
            node = node[segment]
        return node

    def get(self, path: str) -> JSONScalar:
        node = self._find(path)
        if isinstance(node, dict):
            return node.get("")
        return None if node is _MISSING else node

    def scan(self, prefix: str = "") -> Iterator[tuple[str, JSONScalar]]:
        prefix = normalize_prefix(prefix)
        out: list[tuple[str, JSONScalar]] = []
        stack = [(prefix, self._find(prefix))]
        while stack:
            path, node = stack.pop()
            if not isinstance(node, dict):
                if node is not _MISSING:
                    out.append((path, node))
                continue
            if "" in node:
                out.append((path, node[""]))
            stack.extend((f"{path}/{seg}", node[seg]) for seg in sorted(node, reverse=True) if seg)
        return iter(out)


def _check_batch(
    prefixes: Iterable[str], items: Iterable[tuple[str, JSONScalar]]
) -> tuple[list[str], list[tuple[str, JSONScalar]]]:
    """Validate the whole batch before anything is written, so a bad value can't half-apply."""
    return (
        [normalize_prefix(p) for p in prefixes],
        [(check_path(path), check_value(value)) for path, value in items],
    )


# File format: MAGIC, then records. Record = u32 LE payload length, u32 LE CRC-32 of the payload,
# payload = UTF-8 JSON {"d": [prefixes to delete], "p": [[path, value], …]} (deletes apply first).
_MAGIC = b"RGTRACE1\n"
_FRAME = struct.Struct("<II")
_COMPACT_CHUNK = 4096


def _encode(prefixes: list[str], items: list[tuple[str, JSONScalar]]) -> bytes:
    payload = json.dumps({"d": prefixes, "p": items}, ensure_ascii=False, separators=(",", ":"))
    # surrogatepass: a lone surrogate in a reply survives the round trip instead of failing.
    data = payload.encode("utf-8", "surrogatepass")
    return _FRAME.pack(len(data), zlib.crc32(data)) + data


def _decode(data: bytes) -> tuple[list[str], list[tuple[str, JSONScalar]]]:
    record = json.loads(data.decode("utf-8", "surrogatepass"))
    return _check_batch(record["d"], [tuple(item) for item in record["p"]])


def _write_at(fd: int, data: bytes, offset: int) -> int:
    """Write all of `data` at `offset` (pwrite may write less); return the offset after it."""
    view = memoryview(data)
    while view:
        written = os.pwrite(fd, view, offset)
        view, offset = view[written:], offset + written
    return offset


def _fsync_dir(path: str) -> None:
    """Make a file's creation or rename durable, not only its contents."""
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class FileTraceStore(MemoryTraceStore):
    """The memory store, backed by an append-only log replayed on open.

    Single writer: opening for writing takes an exclusive `flock`, and a second writer gets
    `TraceStoreLocked`. Readers (`readonly=True`, e.g. the CLI's list/show) take no lock, never
    modify the file and simply stop at the last complete record. `fsync=False` keeps the file
    safe against a killed process (the page cache survives) but not against power loss.

    On open for writing, a torn tail (the record in flight at a crash) is truncated away; a
    complete record that fails its CRC is moved with everything after it to
    `{path}.corrupt-{offset}` before truncating, so nothing is silently destroyed. `recovered`
    then says what happened, for the caller to report. The whole file is read into memory.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, readonly: bool = False, fsync: bool = True
    ) -> None:
        super().__init__()
        self.path = os.fspath(path)
        self.recovered: str | None = None
        self._fsync = fsync
        self._file = None
        if readonly:
            with open(self.path, "rb") as f:
                self._replay(f.read())
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        self._file = open(fd, "r+b", buffering=0)  # noqa: SIM115 - lives as long as the store
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.close()
            raise TraceStoreLocked(f"{self.path}: open for writing in another process") from None
        data = self._file.readall()
        try:
            self._end, reason = self._replay(data)
        except TraceStoreError:
            self.close()
            raise
        if reason:
            self._cut_tail(data, reason)
        if self._end == 0:
            self._end = _write_at(fd, _MAGIC, 0)
            os.fsync(fd)
            _fsync_dir(self.path)

    def _replay(self, data: bytes) -> tuple[int, str | None]:
        """Apply every intact record; return where the good part ends and why it ends there."""
        if not data.startswith(_MAGIC):
            if _MAGIC.startswith(data):  # empty, or a crash while writing the header
                return 0, "torn" if data else None
            raise TraceStoreError(f"{self.path}: not a replyguard trace file")
        pos = len(_MAGIC)
        while pos < len(data):
            start = pos + _FRAME.size
            if start > len(data):
                return pos, "torn"
            length, crc = _FRAME.unpack_from(data, pos)
            if start + length > len(data):
                return pos, "torn"
            payload = data[start : start + length]
            try:
                if zlib.crc32(payload) != crc:
                    raise ValueError("CRC mismatch")
                batch = _decode(payload)
            except (ValueError, KeyError, TypeError):
                return pos, "corrupt"
            self._apply(*batch)
            pos = start + length
        return pos, None

    def _cut_tail(self, data: bytes, reason: str) -> None:
        tail = len(data) - self._end
        if reason == "corrupt":
            side = f"{self.path}.corrupt-{self._end}"
            with open(side, "wb") as f:
                f.write(data[self._end :])
                f.flush()
                os.fsync(f.fileno())
            self.recovered = f"moved {tail} bytes from offset {self._end} to {side}"
        else:
            self.recovered = f"dropped a torn record of {tail} bytes at offset {self._end}"
        self._file.truncate(self._end)
        os.fsync(self._file.fileno())

    def replace(self, prefixes: Iterable[str], items: Iterable[tuple[str, JSONScalar]]) -> None:
        if self._file is None:
            raise TraceStoreError(f"{self.path}: opened read-only or closed")
        prefixes, items = _check_batch(prefixes, items)
        if not prefixes and not items:
            return
        fd = self._file.fileno()
        try:
            end = _write_at(fd, _encode(prefixes, items), self._end)
            if self._fsync:
                os.fsync(fd)
        except BaseException:
            # Don't leave a half record behind (appends start at self._end anyway); if even
            # this fails, replay stops at the half record and the next writer cuts it off.
            with suppress(OSError):
                os.ftruncate(fd, self._end)
            raise
        self._end = end
        self._apply(prefixes, items)

    def compact(self) -> None:
        """Rewrite the file as just the live leaves (write temp, fsync, atomic rename)."""
        if self._file is None:
            raise TraceStoreError(f"{self.path}: opened read-only or closed")
        tmp = f"{self.path}.compact-{os.getpid()}"
        fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        new = open(fd, "r+b", buffering=0)  # noqa: SIM115 - becomes self._file on success
        try:
            # Lock before the rename, so no other writer can open the new file unlocked.
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            leaves = list(self.scan())
            end = _write_at(fd, _MAGIC, 0)
            for i in range(0, len(leaves), _COMPACT_CHUNK):
                end = _write_at(fd, _encode([], leaves[i : i + _COMPACT_CHUNK]), end)
            os.fsync(fd)
            os.replace(tmp, self.path)
        except BaseException:
            new.close()
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        _fsync_dir(self.path)
        self._file.close()
        self._file = new
        self._end = end

    def close(self) -> None:
        """Release the file and its lock; the store then refuses writes."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> FileTraceStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
