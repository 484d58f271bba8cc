"""The harness's vLLM probes never outlive it: an interrupted, killed or finished test run leaves
no probe running (each holds about 0.6 GB).  Runs without real vLLM: the probe waits on its
standard input, as it does between requests (with no warm-up asked, it imports no vLLM)."""

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
from tests.differential.realvllm import spawn_tied
import threading
# Started from a thread that ends at once, as a test's thread pool does.
started = []
worker = threading.Thread(target=lambda: started.append(
    spawn_tied([sys.executable, {probe!r}], dict(os.environ))))
worker.start()
worker.join()
child = started[0]
# Something else keeps the probe's standard input open (as a grandchild of a killed run may),
# so that the probe sees no end of input and only its watch on its parent can end it.
import subprocess
holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                          pass_fds=[child.stdin.fileno()], stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(child.pid, holder.pid, flush=True)
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


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("how", ["kill", "term", "interrupt", "exit"])
def test_probe_ends_with_the_harness(how: str) -> None:
    parent = subprocess.run(
        [sys.executable, "-c", PARENT.format(how=how, probe=str(HERE / "probe.py"))],
        # From the repository root, which holds the package tests.differential.
        capture_output=True, text=True, timeout=60, cwd=HERE.parents[1],
    )
    pid, holder = (int(word) for word in parent.stdout.split()[:2])
    deadline = time.monotonic() + 15
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    still = _alive(pid)
    for leftover in (pid, holder):
        if _alive(leftover):
            os.kill(leftover, 9)
    assert not still, f"the probe outlived a harness that ended by {how}"
