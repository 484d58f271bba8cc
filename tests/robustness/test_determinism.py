"""The same files give the same output in every process: nothing depends on the hash seed (set
iteration order) or on the order files are found in."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(seed: str, *paths: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "linter"), str(ROOT / "rules"), os.environ.get("PYTHONPATH", "")])}
    env.pop("GITHUB_ACTIONS", None)
    result = subprocess.run(
        [sys.executable, "-m", "vlint", "--isolated", "--output-format", "json",
         "--target-version", ">=0.30", *paths],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=300, check=False,
    )
    assert result.returncode in (0, 1), result.stderr
    return result.stdout + result.stderr


def test_output_does_not_depend_on_the_hash_seed() -> None:
    paths = ("examples", "tests/golden")
    assert _run("1", *paths) == _run("4242", *paths)
