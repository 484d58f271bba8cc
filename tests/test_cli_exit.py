"""The ``vlint`` program's exit: everything printed arrives, and the exit code is main's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests._support.run import source_env


def _script(tmp_path: Path, launches: int) -> Path:
    script = tmp_path / "serve.sh"
    script.write_text("".join(f"vllm serve m{i} --max-num-batched-tokens 16k\n"
                              for i in range(launches)), "utf-8")
    return script


def test_all_output_arrives_through_a_pipe(tmp_path: Path) -> None:
    # Far more than a pipe buffer holds: nothing buffered may be lost by the fast exit.
    script = _script(tmp_path, 400)
    done = subprocess.run([sys.executable, "-m", "vlint", "--output-format", "concise",
                           str(script)], capture_output=True, text=True, env=source_env(),
                          cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stdout.splitlines() if " VL202 " in line]
    assert len(lines) == 400 and done.stdout.endswith("\n")


def test_a_clean_file_exits_zero(tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve m --max-num-seqs 8\n", "utf-8")
    done = subprocess.run([sys.executable, "-m", "vlint", str(script)], capture_output=True,
                          text=True, env=source_env(), cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr


def test_a_closed_pipe_is_not_a_success(tmp_path: Path) -> None:
    script = _script(tmp_path, 2000)
    child = subprocess.Popen([sys.executable, "-m", "vlint", "--output-format", "concise",
                              str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=source_env(), cwd=tmp_path)
    assert child.stdout is not None and child.stderr is not None
    child.stdout.read(100)
    child.stdout.close()
    child.stderr.read()
    assert child.wait(timeout=120) != 0
