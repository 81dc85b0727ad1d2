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


def test_a_service_restarted_on_postgresql_continues_the_conversation(postgres_url, tmp_path):
    """Not the store alone: a service on PostgreSQL stops, another starts on the same database
    (a restart, or a second replica) and checks the next reply in the stored conversation."""
    import httpx
    from conftest import REFERENCE, SEED_KB
    from serve_support import one_worker, serving

    # with the sessions in PostgreSQL the review store would default to the working folder
    review = {"proxy": {"review_store": str(tmp_path / "review.sqlite3")}}
    config = one_worker(tmp_path, SEED_KB, tables=review).with_overrides(session_store=postgres_url)
    sid = "pg-restart"
    said = [
        {
            "speaker": "user",
            "text": "Sarah told me she moved from Marketing to the Legal team last week.",
        },
        {"speaker": "user", "text": "Which team is Sarah Johnson in now?"},
    ]
    reply = {
        "response": "Sarah Johnson works in the Marketing department.",
        "reference_time": REFERENCE.isoformat(),
    }
    with serving(config) as first, httpx.Client(base_url=first, timeout=120) as c:
        assert c.post(f"/v1/sessions/{sid}/turns", json={"turns": said}).status_code == 200
        before = c.post(f"/v1/sessions/{sid}/check", json=reply).json()
    with serving(config) as second, httpx.Client(base_url=second, timeout=120) as c:
        kept = c.get(f"/v1/sessions/{sid}").json()["turns"]
        after = c.post(f"/v1/sessions/{sid}/check", json=reply).json()
        c.delete(f"/v1/sessions/{sid}")
    assert [t["text"] for t in kept] == [t["text"] for t in said]
    untimed = [{k: v for k, v in r["result"].items() if k != "timings_ms"} for r in (before, after)]
    assert untimed[0] == untimed[1]
    assert before["recommendation"] == after["recommendation"]
