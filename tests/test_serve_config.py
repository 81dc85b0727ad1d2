"""The service's config file, secrets from the environment, log lines, and `replyguard serve`
refusing what it cannot use with one line and exit 2."""

from __future__ import annotations

import json
import logging

import pytest
from conftest import run_cli

from replyguard.errors import InputError
from replyguard.serve.config import ServeConfig, load_config
from replyguard.serve.logs import JsonFormatter, new_request_id, request_id

FULL = """
[serve]
kb = "kb/people.json"
rules = "rules"
port = 9100
workers = 3

[limits]
max_reply_chars = 500
check_timeout_seconds = 2.5

[sessions]
store = "state/sessions.sqlite3"
ttl_seconds = 120

[engine]
fuzzy-name-cutoff = 90

[upstream]
url = "http://127.0.0.1:9999/v1"

[proxy]
anything = "read by the proxy"
"""


def test_a_full_file_with_paths_relative_to_it(tmp_path):
    path = tmp_path / "serve.toml"
    path.write_text(FULL, encoding="utf-8")
    config = load_config(path, environ={})
    assert config.kb == str(tmp_path / "kb" / "people.json")
    assert config.rules == str(tmp_path / "rules")
    assert config.session_store == str(tmp_path / "state" / "sessions.sqlite3")
    assert (config.port, config.workers, config.max_reply_chars) == (9100, 3, 500)
    assert config.check_timeout_seconds == 2.5 and config.session_ttl == 120
    assert config.engine == {"fuzzy-name-cutoff": 90}
    assert config.upstream_url == "http://127.0.0.1:9999/v1"
    assert config.tables["proxy"] == {"anything": "read by the proxy"}
    assert config.api_keys == ()


def test_secrets_come_from_the_environment(tmp_path):
    env = {
        "REPLYGUARD_API_KEYS": " k1, k2 ,,",
        "REPLYGUARD_UPSTREAM_API_KEY": "sk-up",
        "REPLYGUARD_SESSION_STORE": "postgresql://u:pw@db/guard",
    }
    config = load_config(None, environ=env)
    assert config.api_keys == ("k1", "k2")
    assert config.upstream_api_key == "sk-up"
    assert config.session_store == "postgresql://u:pw@db/guard"
    assert "sk-up" not in repr(config)


def test_command_line_values_override_the_file():
    config = ServeConfig(port=9000).with_overrides(port=9001, host=None, workers=2)
    assert (config.port, config.host, config.workers) == (9001, "127.0.0.1", 2)
    with pytest.raises(InputError, match="^workers: must be a positive number"):
        config.with_overrides(workers=0)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[serve]\nport = 'eighty'\n", "serve.port: expected a whole number"),
        ("[serve]\ncolour = 1\n", "serve.colour: unknown setting"),
        ("[servce]\nport = 1\n", r"\[servce\]: unknown table"),
        ("[limits]\nmax_pending = true\n", "limits.max_pending: expected a whole number"),
        ("[serve\n", "invalid TOML"),
    ],
)
def test_a_wrong_setting_is_named(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=f"^{path}: .*{message}"):
        load_config(path, environ={})


def test_log_lines_are_json_with_the_request_id():
    record = logging.makeLogRecord(
        {"name": "replyguard.serve", "levelname": "INFO", "msg": "request", "status": 200}
    )
    token = request_id.set(new_request_id("req-5"))
    try:
        line = json.loads(JsonFormatter().format(record))
    finally:
        request_id.reset(token)
    assert line["message"] == "request" and line["status"] == 200
    assert line["request_id"] == "req-5" and line["level"] == "info"
    assert len(new_request_id("has space")) == 32


def test_serve_refuses_a_missing_config_file(tmp_path):
    out = run_cli("serve", "--config", str(tmp_path / "none.toml"), "--kb", "kb.json")
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        f"replyguard: error: {tmp_path / 'none.toml'}: config file not found"
    ]


def test_serve_refuses_a_kb_it_cannot_load(tmp_path):
    store = tmp_path / "s.sqlite3"
    (tmp_path / "serve.toml").write_text(f'[sessions]\nstore = "{store}"\n', encoding="utf-8")
    out = run_cli(
        "serve",
        "--kb",
        str(tmp_path / "missing.json"),
        "--config",
        str(tmp_path / "serve.toml"),
        "--port",
        "1",
        timeout=300,
    )
    assert out.returncode == 2
    assert out.stderr.strip().splitlines()[-1] == (
        f"replyguard: error: {tmp_path / 'missing.json'}: KB file not found"
    )
    assert "Traceback" not in out.stderr
