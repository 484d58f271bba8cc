"""The harness's vLLM probes never outlive it: an interrupted, killed or finished test run leaves
no probe running (each holds about 0.6 GB).  Runs without real vLLM: the child is a sleeper."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

PARENT = """
import os, signal, sys
sys.path.insert(0, {here!r})
from realvllm import spawn_tied
child = spawn_tied([sys.executable, "-c", "import time; time.sleep(120)"], dict(os.environ))
print(child.pid, flush=True)
how = {how!r}
if how == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
elif how == "term":
    os.kill(os.getpid(), signal.SIGTERM)
elif how == "interrupt":
    raise KeyboardInterrupt
"""


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for its reaper has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's parent-death signal")
@pytest.mark.parametrize("how", ["kill", "term", "interrupt", "exit"])
def test_probe_ends_with_the_harness(how: str) -> None:
    parent = subprocess.run(
        [sys.executable, "-c", PARENT.format(here=str(HERE), how=how)],
        capture_output=True, text=True, timeout=60,
    )
    pid = int(parent.stdout.split()[0])
    deadline = time.monotonic() + 15
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    still = _alive(pid)
    if still:
        os.kill(pid, 9)
    assert not still, f"the probe outlived a harness that ended by {how}"
