"""The session store on SQLite, and on PostgreSQL when a server can be started here (a
throw-away cluster on a loopback port); a replica's store continues what another's began."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from replyguard.errors import InputError
from replyguard.serve.sessions import SessionStore

TURNS = [
    {"speaker": "user", "text": "The quarterly report is due on Friday."},
    {"role": "assistant", "content": "I will remind you on Thursday."},
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def postgres_url():
    """A PostgreSQL URL on a fresh cluster, or a skip saying why there is none."""
    pytest.importorskip("psycopg")
    initdb, pg_ctl = shutil.which("initdb"), shutil.which("pg_ctl")
    if not (initdb and pg_ctl):
        pytest.skip("no PostgreSQL server binaries (initdb, pg_ctl) on PATH")
    as_user: list[str] = []
    # not under pytest's temporary folder: the server's user must be able to reach it
    root = Path(tempfile.mkdtemp(prefix="replyguard-pg-"))
    data = root / "data"

    def give_up(why: str) -> None:
        shutil.rmtree(root, ignore_errors=True)
        pytest.skip(why)

    if os.geteuid() == 0:  # the server refuses to run as root
        if not shutil.which("runuser"):
            give_up("running as root without runuser")
        try:
            shutil.chown(root, "postgres")
        except (LookupError, PermissionError):
            give_up("running as root with no postgres user")
        as_user = ["runuser", "-u", "postgres", "--"]
    port = _free_port()
    init = subprocess.run(
        [*as_user, initdb, "-D", str(data), "-U", "rg", "--auth=trust"],
        capture_output=True,
        text=True,
        check=False,
    )
    if init.returncode != 0:
        give_up(f"initdb failed: {init.stderr.strip()[-200:]}")
    options = f"-p {port} -c listen_addresses=127.0.0.1 -k {data}"
    start = subprocess.run(
        [*as_user, pg_ctl, "-D", str(data), "-o", options, "-w", "-l", str(data / "log"), "start"],
        capture_output=True,
        text=True,
        check=False,
    )
    if start.returncode != 0:
        give_up(f"PostgreSQL did not start: {start.stderr.strip()[-200:]}")
    try:
        yield f"postgresql://rg@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*as_user, pg_ctl, "-D", str(data), "-m", "fast", "stop"],
            capture_output=True,
            check=False,
        )
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "sessions.sqlite3")
    return request.getfixturevalue("postgres_url")


def test_turns_get_ids_and_times_and_survive_reopening(target):
    store = SessionStore(target, ttl=60)
    store.delete("s-1")
    turns = store.append("s-1", TURNS)
    assert [t["id"] for t in turns] == ["T1", "T2"]
    assert turns[1]["speaker"] == "assistant"
    assert all(t["timestamp"] for t in turns)
    store.close()
    again = SessionStore(target, ttl=60)  # a restart, or a second replica
    assert again.get("s-1")["turns"] == turns
    more = again.append("s-1", [{"speaker": "user", "text": "Thanks."}])
    assert [t["id"] for t in more] == ["T1", "T2", "T3"]
    assert again.delete("s-1") and again.get("s-1") is None and not again.delete("s-1")
    again.close()


def test_a_bad_turn_adds_nothing_and_is_named(target):
    store = SessionStore(target, ttl=60)
    store.delete("s-2")
    store.append("s-2", [{"id": "x", "speaker": "user", "text": "One."}])
    with pytest.raises(InputError, match=r"^turns\.1\.id: turn 'x' is already"):
        store.append(
            "s-2",
            [{"speaker": "user", "text": "Two."}, {"id": "x", "speaker": "user", "text": "Three."}],
        )
    with pytest.raises(InputError, match=r"^turns\.0\.speaker: "):
        store.append("s-2", [{"speaker": "", "text": "Four."}])
    assert [t["text"] for t in store.get("s-2")["turns"]] == ["One."]
    store.close()


def test_idle_sessions_expire(target):
    store = SessionStore(target, ttl=0.5)
    store.delete("idle")
    store.delete("busy")
    store.append("idle", TURNS[:1])
    store.append("busy", TURNS[:1])
    time.sleep(0.3)
    assert store.get("busy") is not None  # a read touches it
    time.sleep(0.3)
    assert store.get("idle") is None  # expired, and removed by the read
    assert store.get("busy") is not None
    time.sleep(0.6)
    assert store.purge() >= 1
    assert store.get("busy") is None
    store.close()


def test_an_unusable_store_is_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(InputError, match="cannot open the session store"):
        SessionStore(str(blocker / "sessions.sqlite3"), ttl=60)
