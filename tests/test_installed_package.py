"""The installed package (not the source tree) finds its rules and grammars."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import json, sys
import replyguard
from replyguard.engine import Engine
from replyguard.rules import shipped_rule_files
from replyguard.text.claims import claim_parser
from replyguard.models import KnowledgeBase
kb = KnowledgeBase.model_validate({"entities": [{"id": "E1", "name": "Ada Park",
    "type": "Person", "attributes": {"department": "Research"}}]})
result = Engine(kb).postprocess("Ada Park works in Research.", "Where does Ada work?")
print(json.dumps({"package": replyguard.__file__,
                  "rules": [name for name, _ in shipped_rule_files()],
                  "grammar": bool(claim_parser()),
                  "status": result.factual_validation.claim_validations[0].status.kind}))
"""


def test_wheel_install_carries_rules_and_grammars(tmp_path):
    target = tmp_path / "site"
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(target),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    assert (target / "replyguard" / "metta" / "facts.metta").is_file()
    assert (target / "replyguard" / "grammars" / "claims.lark").is_file()
    env = {**os.environ, "PYTHONPATH": str(target)}
    run = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    import json

    info = json.loads(run.stdout)
    assert info["package"].startswith(str(target))
    assert "metta/config.metta" in info["rules"] and "metta/facts.metta" in info["rules"]
    assert info["grammar"] and info["status"] == "Verified"
