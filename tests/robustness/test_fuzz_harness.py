"""Runs the atheris fuzzer (fuzz/fuzz_extractors.py) for a bounded number of inputs, seeded from
tests/golden and examples/: any crash fails the test, with the crashing input's file named."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("atheris")

HARNESS = Path(__file__).parent / "fuzz" / "fuzz_extractors.py"
RUNS = int(os.environ.get("VLINT_FUZZ_RUNS", "2500"))


def test_the_fuzzer_finds_no_crash(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    made = subprocess.run([sys.executable, str(HARNESS), "--make-corpus", str(corpus)],
                          capture_output=True, text=True, timeout=120, check=True)
    assert int(made.stdout.strip()) > 20
    result = subprocess.run(
        [sys.executable, str(HARNESS), str(corpus), f"-atheris_runs={RUNS}", "-max_len=4096",
         "-timeout=30", "-rss_limit_mb=4096", f"-artifact_prefix={tmp_path}/"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path, check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    done = re.search(r"Done (\d+) (runs )?in", output)
    assert done is not None and int(done.group(1)) >= RUNS - 1, output[-2000:]
    assert not list(tmp_path.glob("crash-*")) and not list(tmp_path.glob("timeout-*"))
