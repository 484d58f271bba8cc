"""The pre-commit hooks, run by real ``pre-commit try-repo`` against a copy of this repository.

try-repo needs the hook repository to be a git repository with the hooks committed, so the test
commits a copy of the working tree (committed or not) in a temporary folder; pre-commit then
builds its own virtual environment and pip-installs vlint from that copy.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

ROOT = Path(__file__).parent.parent
BAD = "#!/bin/sh\nvllm serve my-model --max-num-batched-tokens 16k\n"
GOOD = "#!/bin/sh\nvllm serve my-model --max-num-batched-tokens 16000\n"


def _hooks() -> dict[str, dict[str, object]]:
    hooks = YAML(typ="safe", pure=True).load((ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))
    return {hook["id"]: hook for hook in hooks}


@pytest.mark.parametrize(
    ("name", "covered"),
    [("run.sh", True), ("deploy/launch.py", True), ("compose.yaml", True), ("k8s/vllm.yml", True),
     ("Dockerfile", True), ("docker/Dockerfile.gpu", True), ("serve.dockerfile", True),
     ("docs/README.md", True), ("vllm.service", True), ("job.sbatch", True), ("bin/serve", True),
     ("notes.txt", False), ("pyproject.toml", False), ("logo.png", False)],
)
def test_the_hooks_file_filter_covers_every_input_kind(name: str, covered: bool) -> None:
    for hook in _hooks().values():
        assert bool(re.search(str(hook["files"]), name)) is covered
        assert hook["types"] == ["text"]


def test_the_fix_hook_fixes() -> None:
    hooks = _hooks()
    assert set(hooks) == {"vlint", "vlint-fix"}
    assert hooks["vlint-fix"]["args"] == ["--fix"] and "args" not in hooks["vlint"]


def test_each_hook_runs_in_one_process_so_a_run_prints_one_summary() -> None:
    # Without require_serial pre-commit splits the file names over one vlint per CPU.
    assert {name: hook.get("require_serial") for name, hook in _hooks().items()} == {
        "vlint": True, "vlint-fix": True,
    }


@pytest.mark.parametrize(
    ("command", "name"),
    [("validate-manifest", ".pre-commit-hooks.yaml"),
     ("validate-config", ".pre-commit-config.yaml")],
)
def test_pre_commit_accepts_the_hooks_and_this_repositorys_config(command: str, name: str) -> None:
    pytest.importorskip("pre_commit")
    done = subprocess.run([sys.executable, "-m", "pre_commit", command, str(ROOT / name)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def _environment(home: Path) -> dict[str, str]:
    # A git hook's GIT_DIR or GIT_INDEX_FILE would point these commands at the wrong repository.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    identity = {"GIT_AUTHOR_NAME": "vlint", "GIT_AUTHOR_EMAIL": "vlint@example.invalid"}
    identity |= {"GIT_COMMITTER_NAME": "vlint", "GIT_COMMITTER_EMAIL": "vlint@example.invalid"}
    return env | identity | {
        "HOME": str(home), "PRE_COMMIT_HOME": str(home / "pre-commit"), "GIT_CONFIG_NOSYSTEM": "1",
    }


def _git(folder: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(["git", *args], cwd=folder, env=env, check=True, capture_output=True)


def _working_tree_copy(destination: Path, env: dict[str, str]) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode("utf-8").split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)
    _git(destination, env, "init", "-q")
    _git(destination, env, "add", "-A")
    _git(destination, env, "commit", "-q", "-m", "vlint under test")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_try_repo_fails_a_bad_file_and_passes_a_good_one(tmp_path: Path) -> None:
    pytest.importorskip("pre_commit")
    if not (ROOT / ".git").exists():
        pytest.skip("needs this repository's git checkout to list its files")
    env = _environment(tmp_path / "home")
    hooks, project = tmp_path / "vlint", tmp_path / "project"
    hooks.mkdir()
    project.mkdir()
    _working_tree_copy(hooks, env)
    (project / "bad.sh").write_text(BAD, "utf-8")
    (project / "good.sh").write_text(GOOD, "utf-8")
    also_bad = [f"also-bad-{n}.sh" for n in range(4)]
    for name in also_bad:
        (project / name).write_text(BAD, "utf-8")
    _git(project, env, "init", "-q")
    _git(project, env, "add", "-A")

    def try_repo(hook: str, *names: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "pre_commit", "try-repo", str(hooks), hook, "--verbose",
                   "--files", *names]
        # pre-commit reads TRAVIS as "two processes" whatever the CPUs, and gives each process
        # at least four files.
        return subprocess.run(command, cwd=project, env=env | {"TRAVIS": "1"},
                              capture_output=True, text=True, timeout=600)

    bad = try_repo("vlint", "bad.sh", *also_bad)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert re.search(r"^bad\.sh:2:46: VL202 .*'16k' is 16,000", bad.stdout, re.MULTILINE)
    assert all(f"{name}:2:46: VL202" in bad.stdout for name in also_bad)
    summaries = re.findall(r"^(?:Found \d+ problem|All checks passed)", bad.stdout, re.MULTILINE)
    assert summaries == ["Found 5 problem"], bad.stdout
    good = try_repo("vlint", "good.sh")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout

    fixed = try_repo("vlint-fix", "bad.sh")
    assert fixed.returncode == 1, fixed.stdout + fixed.stderr
    assert "files were modified by this hook" in fixed.stdout
    assert (project / "bad.sh").read_text("utf-8") == GOOD
