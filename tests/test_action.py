"""The GitHub Action: its run step is a command line this vlint accepts, with SARIF written."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[1]


def _action() -> dict[str, Any]:
    action: dict[str, Any] = YAML(typ="safe").load((ROOT / "action.yml").read_text("utf-8"))
    return action


def _step(name: str) -> dict[str, Any]:
    (step,) = [s for s in _action()["runs"]["steps"] if s.get("name") == name]
    return step


def test_action_shape() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    uses = [step.get("uses", "") for step in action["runs"]["steps"]]
    assert uses[0].startswith("actions/setup-python@")
    assert uses[-1].startswith("github/codeql-action/upload-sarif@")
    assert '"$GITHUB_ACTION_PATH"' in _step("Install vlint")["run"]
    assert _step("Upload SARIF")["with"]["sarif_file"] == "${{ inputs.sarif-file }}"
    assert set(action["inputs"]) == {
        "paths", "target-version", "args", "sarif-file", "upload-sarif", "python-version"
    }


def _shim(folder: Path) -> Path:
    """A ``vlint`` on PATH that runs this source tree's vlint."""
    folder.mkdir()
    shim = folder / "vlint"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m vlint "$@"\n', "utf-8")
    shim.chmod(0o755)
    return folder


@pytest.mark.skipif(shutil.which("bash") is None, reason="the action's step runs in bash")
def test_run_step_lints_examples_and_writes_sarif(tmp_path: Path) -> None:
    sarif = tmp_path / "out" / "vlint.sarif"
    source_roots = os.pathsep.join(str(ROOT / root) for root in ("linter", "rules"))
    env = {
        **os.environ,
        "PATH": f"{_shim(tmp_path / 'bin')}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": source_roots,
        "VLINT_PATHS": "examples/",
        "VLINT_TARGET": "0.32.0",
        "VLINT_ARGS": "--select VL2,VL3",
        "VLINT_SARIF": str(sarif),
    }
    done = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", _step("Run vlint")["run"]],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines and all(line.startswith(("::error ", "::warning ", "::notice ")) for line in lines)
    results = json.loads(sarif.read_text("utf-8"))["runs"][0]["results"]
    assert len(results) == len(lines)
    assert {r["ruleId"][:3] for r in results} <= {"VL2", "VL3"}
    assert {r["properties"]["vllm_versions"][0] for r in results} == {"0.32.0"}
