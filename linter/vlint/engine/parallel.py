"""Linting the files of a run in worker processes, giving the report one process gives."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TypeAlias

from packaging.version import Version

from vlint.discover import Source
from vlint.engine.file import lint_file
from vlint.engine.report import FileResult
from vlint.settings import Settings


@dataclass(frozen=True)
class Queued:
    """A file to lint, its group (an index into the run's groups), and its result when a
    worker linted it."""

    source: Source
    group: int
    part: FileResult | None = None


# A file to lint, or a note.
Entry: TypeAlias = "str | Queued"
# What the workers lint each group's files with: its settings, target and time budget.
GroupWork: TypeAlias = "tuple[Settings, Sequence[Version] | None, float]"

# The fewest launching files a worker gets when the number is chosen: a second process costs
# about 0.1 s of CPU (the fork, a cold catalog and caches, sending the findings back), about
# what 30-40 such files take to lint, so with 64 each the split pays where the CPUs are free
# (on a machine already busy it gains nothing; ``--jobs 1`` then saves that CPU).
FILES_PER_WORKER = 64
_WORK: tuple[list[Queued], list[GroupWork]] | None = None


def _workers(requested: int, files: int) -> int:
    """How many processes lint ``files`` files: ``requested`` (0: one per available CPU, while
    each has ``FILES_PER_WORKER`` files), never more than the files; 1 where processes cannot
    be forked (they inherit the loaded modules and catalog instead of importing them again)."""
    wanted = min(requested, files) if requested else files // FILES_PER_WORKER
    if wanted <= 1:
        return wanted
    import multiprocessing  # lazy: only a run with many files forks

    # Forked workers start at once with everything loaded; fork is safe on Linux only (macOS
    # system libraries may crash in a forked child, Windows has none).
    forks = sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()
    if not forks:
        return 1
    if requested:
        return wanted
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(cpus or 1, wanted)


def in_parallel(entries: list[Entry], requested: int, work: list[GroupWork]) -> Iterator[Entry]:
    """``entries`` with each file linted by a worker, in the same order (so the report is the
    one a single process makes); contiguous chunks, several per worker to even out their load."""
    global _WORK
    files = [entry for entry in entries if not isinstance(entry, str)]
    jobs = _workers(requested, len(files))
    if jobs <= 1:
        yield from entries
        return
    import multiprocessing  # lazy: only a run with many files forks
    import pickle  # lazy: only a run with many files forks

    size = -(-len(files) // (jobs * 4))
    chunks = [(start, min(start + size, len(files))) for start in range(0, len(files), size)]
    _WORK = (files, work)
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            # Read back here, not in the pool's result thread: a result that cannot be read
            # then raises in the run instead of leaving it waiting for the lost chunk forever.
            parts = (part for chunk in pool.imap(_lint_chunk, chunks)
                     for part in pickle.loads(chunk))
            for entry in entries:
                yield entry if isinstance(entry, str) else replace(entry, part=next(parts))
    finally:
        _WORK = None


def _lint_chunk(bounds: tuple[int, int]) -> bytes:
    """In a worker: each file of the chunk linted, without its launches (sending every token
    back would cost as much as a fifth of the linting; see ``Settings.jobs``), pickled."""
    import pickle  # lazy: only a run with many files forks

    assert _WORK is not None
    files, work = _WORK
    parts = []
    for file in files[bounds[0] : bounds[1]]:
        settings, releases, budget = work[file.group]
        part = lint_file(file.source, settings, releases, budget=budget)
        parts.append(replace(part, launches=()))
    return pickle.dumps(parts)
