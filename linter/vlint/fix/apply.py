"""Fixes: which edit to apply, applying edits to text, and writing a fixed file safely.

An edit replaces the exact characters at its span in the original file, so everything around
it — YAML layout, shell quoting and continuations, Python formatting, comments — stays as written.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from vlint.discover import Refused, TooLarge, confined_read, linted_roots, resolve_confined
from vlint.fix.atomic import OwnerNotKept, replace_file
from vlint.model import Finding, Fix, LineIndex, Pos


@dataclass(frozen=True)
class Change:
    """A file's text as read and as fixed, and how many fixes made the difference."""

    path: str
    before: bytes
    after: str
    fixes: int
    # The folders the file may be written in (the run's linted roots).
    roots: tuple[Path, ...] = ()
    # Standard input: printed fixed, never written.
    stdin: bool = False


def chosen(finding: Finding, unsafe: bool) -> Fix | None:
    """The fix to apply: the unsafe alternative if allowed, else a safe (or allowed) fix."""
    if unsafe and finding.alternative is not None:
        return finding.alternative
    if finding.fix is None or not (finding.fix.safe or unsafe):
        return None
    return finding.fix


def _offset(starts: Sequence[int], text: str, pos: Pos) -> int:
    if not 1 <= pos.line <= len(starts):
        raise ValueError(f"line {pos.line} is outside the text")
    offset = starts[pos.line - 1] + pos.column - 1
    line_end = starts[pos.line] if pos.line < len(starts) else len(text)
    if pos.column < 1 or offset > line_end:
        raise ValueError(f"column {pos.column} is outside line {pos.line}")
    return offset


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    # Two insertions at one point conflict too: their order would be arbitrary.
    return a[0] < b[1] and b[0] < a[1] or a[0] == b[0]


def apply_fixes(text: str, fixes: Iterable[Fix]) -> tuple[str, int]:
    """``text`` with each fix applied unless it overlaps one before it; and how many applied.

    Fixes are taken in the order of their first edit; an overlapping one is skipped whole (a
    later round, after re-linting, can still apply it).  Edits are applied from the end back,
    so every span stays valid in the original text.
    """
    starts = LineIndex.of(text).starts
    taken: list[tuple[int, int, str]] = []
    applied = 0
    for fix in sorted(fixes, key=lambda f: min((e.span.start for e in f.edits), default=Pos(0, 0))):
        try:
            edits = [
                (_offset(starts, text, e.span.start), _offset(starts, text, e.span.end),
                 e.replacement)
                for e in fix.edits
            ]
        except ValueError:
            continue
        edits = [e for e in edits if text[e[0] : e[1]] != e[2]]
        if not edits or _conflicts(edits, taken):
            continue
        taken.extend(edits)
        applied += 1
    for start, end, replacement in sorted(taken, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text, applied


def _conflicts(edits: list[tuple[int, int, str]], taken: list[tuple[int, int, str]]) -> bool:
    ranges = [(start, end) for start, end, _ in edits]
    others = [(start, end) for start, end, _ in taken]
    if any(_overlaps(a, b) for i, a in enumerate(ranges) for b in ranges[i + 1 :]):
        return True
    return any(_overlaps(a, b) for a in ranges for b in others)


def write(change: Change) -> bool:
    """Replace the file atomically with the fixed text; False if it changed since it was read.

    The file is written only inside ``change.roots`` (the run's linted roots; when none, the
    file's own repository or folder), never through a symlink that leaves them, and only if it
    is the file's one name: a hard-linked file would break its links (or change the other
    name's file), so it raises ``Refused`` (the reason for a note), as a file whose owner vlint
    could not keep does.  The new file keeps the old one's permissions and owner.
    """
    allowed = change.roots or linted_roots([change.path])
    target = resolve_confined(change.path, allowed)
    try:
        if confined_read(str(target), allowed, len(change.before)) != change.before:
            return False
    except TooLarge:
        return False
    status = os.stat(target, follow_symlinks=False)
    if status.st_nlink > 1:
        raise Refused("it has other hard links; fix it by hand")
    try:
        replace_file(target, change.after.encode("utf-8"), stat.S_IMODE(status.st_mode), status)
    except OwnerNotKept:
        raise Refused("owned by another user or group; vlint would change its owner") from None
    return True


def unified_diff(change: Change) -> str:
    """The change as a unified diff (``a/PATH`` -> ``b/PATH``), as ``git apply`` reads it."""
    import difflib  # lazy: only --diff prints one

    before = change.before.decode("utf-8").splitlines(keepends=True)
    after = change.after.splitlines(keepends=True)
    lines = difflib.unified_diff(before, after, f"a/{change.path}", f"b/{change.path}")
    return "".join(
        line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n"
        for line in lines
    )
