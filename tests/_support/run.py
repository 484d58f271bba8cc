"""Running vlint from a test: in this process (``main``) or as ``python -m vlint``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from vlint.cli import main

ROOT = Path(__file__).resolve().parents[2]
# The source tree: what a child ``python -m vlint`` imports, whatever is installed.
SOURCE_ROOTS = (ROOT / "linter", ROOT / "rules")


def vlint_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``vlint ARGV`` in this process: exit code, standard output, standard error."""
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def source_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment for a child vlint: the source tree first on its import path,
    and no GITHUB_ACTIONS (under which vlint would default to annotations)."""
    env = {name: value for name, value in os.environ.items() if name != "GITHUB_ACTIONS"}
    roots = [str(root) for root in SOURCE_ROOTS]
    if env.get("PYTHONPATH"):
        roots.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(roots)
    return env | dict(extra or {})


def vlint_process(
    argv: Sequence[str], cwd: Path, *, env: Mapping[str, str] | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """``python -m vlint ARGV`` in ``cwd`` with ``source_env(env)``; never raises on its exit."""
    return subprocess.run(
        [sys.executable, "-m", "vlint", *argv], cwd=cwd, env=source_env(env),
        capture_output=True, text=True, timeout=timeout, check=False,
    )


def tool(name: str) -> str | None:
    """The program ``name`` installed beside this interpreter (the test extra's zizmor), else
    the one on PATH, else None."""
    beside = Path(sys.executable).with_name(name)
    return str(beside) if beside.exists() else shutil.which(name)
