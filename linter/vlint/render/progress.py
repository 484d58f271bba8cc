"""The progress line a long run shows on a terminal's standard error.

It appears only after ``delay`` seconds (a pre-commit hook on one file never shows it), is
redrawn in place with ``\\r`` every ``interval`` seconds with the time spent, and is erased
when the run ends, so that nothing of it stays in the terminal or reaches a pipe.
"""

from __future__ import annotations

import threading
import time
from typing import TextIO

CLEAR = "\r\x1b[K"


class Progress:
    def __init__(self, stream: TextIO, delay: float = 1.0, interval: float = 0.25) -> None:
        self._stream = stream
        self._delay = delay
        self._interval = interval
        self._done = threading.Event()
        self._shown = False
        self._thread = threading.Thread(target=self._run, name="vlint-progress", daemon=True)
        self._started = 0.0

    def start(self) -> None:
        self._started = time.monotonic()
        self._thread.start()

    def stop(self) -> None:
        """Stop drawing and erase the line (if it was drawn)."""
        self._done.set()
        if self._thread.is_alive():
            self._thread.join()
        if self._shown:
            self._write(CLEAR)

    def _run(self) -> None:
        if self._done.wait(self._delay):
            return
        while True:
            elapsed = time.monotonic() - self._started
            self._write(f"\rvlint: linting... {elapsed:.0f} s")
            self._shown = True
            if self._done.wait(self._interval):
                return

    def _write(self, text: str) -> None:
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):  # a closed terminal: the run goes on without it
            pass
