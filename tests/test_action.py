"""The GitHub Action: its run step is a command line this vlint accepts, with SARIF written."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests._support.run import tool

ROOT = Path(__file__).resolve().parents[1]
# owner/repo[/path]@<40 hex digits>  # v<version>
PINNED = re.compile(r"^\s*(- )?uses: [\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}  # v\d+(\.\d+)*$")


def _action() -> dict[str, Any]:
    action: dict[str, Any] = YAML(typ="safe").load((ROOT / "action.yml").read_text("utf-8"))
    return action


def _step(name: str) -> dict[str, Any]:
    (step,) = [s for s in _action()["runs"]["steps"] if s.get("name") == name]
    assert isinstance(step, dict)
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
        "VLINT_ARGS": "--select\nVL2,VL3\n",
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


def test_every_uses_is_pinned_by_full_commit_hash_with_its_version() -> None:
    lines = (ROOT / "action.yml").read_text("utf-8").splitlines()
    uses = [line for line in lines if re.match(r"^\s*(- )?uses:", line)]
    assert len(uses) == 2
    assert [line for line in uses if not PINNED.match(line)] == []


def test_no_expression_is_interpolated_into_a_script() -> None:
    # ${{ }} in run: is pasted into the script before bash reads it: inputs go through env:.
    for step in _action()["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), step.get("name")


def _argv_shim(folder: Path) -> Path:
    """A ``vlint`` on PATH that prints the arguments it was given as JSON."""
    folder.mkdir()
    shim = folder / "vlint"
    script = "import json, sys; print(json.dumps(sys.argv[1:]))"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -c "{script}" "$@"\n', "utf-8")
    shim.chmod(0o755)
    return folder


@pytest.mark.skipif(shutil.which("bash") is None, reason="the action's step runs in bash")
def test_each_line_of_paths_and_args_is_one_argument_as_written(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    for name in ("a.sh", "b.sh", "deploy"):
        (work / name).write_text("", "utf-8")
    env = {
        **os.environ,
        "PATH": f"{_argv_shim(tmp_path / 'bin')}{os.pathsep}{os.environ.get('PATH', '')}",
        "VLINT_PATHS": "  deploy/my app\n*.sh\n\n-x\r\n$(touch pwned) `touch pwned`\n",
        "VLINT_TARGET": ">=0.31, <0.33",
        "VLINT_ARGS": "--select=VL1,VL2\n  --exit-zero  \n",
        "VLINT_SARIF": "out dir/v lint.sarif",
    }
    done = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", _step("Run vlint")["run"]],
        cwd=work, env=env, capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [
        "check", "--output-format", "github", "--output", "sarif:out dir/v lint.sarif",
        "--target-version", ">=0.31, <0.33", "--select=VL1,VL2", "--exit-zero",
        "--", "deploy/my app", "*.sh", "-x", "$(touch pwned) `touch pwned`",
    ]
    assert not (work / "pwned").exists()


def test_zizmor_finds_nothing_in_the_action() -> None:
    zizmor = tool("zizmor")
    if zizmor is None:
        pytest.skip("zizmor is not installed (pip install -e '.[test]' installs it)")
    done = subprocess.run(
        [zizmor, "--offline", "--no-config", "--format", "plain", str(ROOT / "action.yml")],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings to report" in done.stdout + done.stderr
