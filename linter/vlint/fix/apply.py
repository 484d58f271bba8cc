"""Fixes: which edits apply, applying them to text, and writing the fixed files safely.

An edit replaces the exact characters at its span in the original file, so everything around
it — YAML layout, shell quoting and continuations, Python formatting, comments — stays as written.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from packaging.version import Version

from vlint.engine.lint import Report, lint
from vlint.settings import Settings
from vlint.model import Finding, Fix, Pos, Span

# Fixing, re-linting and fixing again settles edits that overlapped in an earlier round.
MAX_ROUNDS = 4
# Begins what a finding's help says of a fix the targeted releases disagree on.
NOT_FIXED = "not fixed: "


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


def agreed_fixes(findings: Sequence[Finding], releases: Sequence[Version]) -> list[Finding]:
    """Keep a fix only where every targeted release's finding offers the same one.

    ``findings`` are one invocation's, checked release by release against ``releases``.
    """
    wanted = {str(release) for release in releases}
    groups: dict[tuple[str, Span], list[Finding]] = {}
    for finding in findings:
        groups.setdefault((finding.code, finding.span), []).append(finding)
    # Per group, not per finding: aliased YAML repeats one token (one span) thousands of times.
    verdicts = {key: _agreement(group, wanted) for key, group in groups.items()}
    why = {key: _disagreement(group, releases) for key, group in groups.items()
           if not verdicts[key][0]}
    agreed: list[Finding] = []
    for finding in findings:
        key = (finding.code, finding.span)
        same_fix, same_alternative = verdicts[key]
        fix = finding.fix if same_fix else None
        alternative = finding.alternative if same_alternative else None
        reason = why.get(key)
        help_text = finding.help if reason is None else f"{finding.help}; {reason}"
        agreed.append(replace(finding, fix=fix, alternative=alternative, help=help_text))
    return agreed


def _disagreement(group: Sequence[Finding], releases: Sequence[Version]) -> str | None:
    """Why no fix is applied where the releases' findings offer different fixes (or only some
    releases have the finding): ``not fixed: 0.31.0 and 0.32.0 spell it '--no-x', 0.33.0
    '--disable-x'; pick one with --target-version``.  None when no release offers a fix."""
    from vlint.engine.lint import release_list

    by_fix: dict[Fix | None, list[str]] = {}
    for member in group:
        by_fix.setdefault(member.fix, []).extend(member.vllm_versions)
    if all(fix is None for fix in by_fix):
        return None
    covered = {version for versions in by_fix.values() for version in versions}
    missing = [str(r) for r in releases if str(r) not in covered]
    parts: list[str] = []
    for fix, versions in sorted(by_fix.items(), key=lambda item: min(map(Version, item[1]))):
        named = release_list(sorted(set(versions), key=Version))
        spelling = _spelling(fix)
        if spelling is not None:
            said = any(" spell it " in part for part in parts)
            parts.append(f"{named} {spelling}" if said else f"{named} spell it {spelling}")
        else:
            parts.append(f"{named}: {fix.description}" if fix else f"{named} have no fix")
    if missing:
        parts.append(f"{group[0].code} does not apply to {release_list(missing)}")
    return f"{NOT_FIXED}{', '.join(parts)}; pick one with --target-version"


def _spelling(fix: Fix | None) -> str | None:
    """The text a one-edit fix writes, quoted; None for any other fix."""
    if fix is None or len(fix.edits) != 1 or not fix.edits[0].replacement:
        return None
    return f"'{fix.edits[0].replacement}'"


def _agreement(group: Sequence[Finding], wanted: set[str]) -> tuple[bool, bool]:
    """Whether a group covers every release, and its fixes (its alternatives) are all one."""
    if {v for member in group for v in member.vllm_versions} != wanted:
        return False, False
    first = group[0]
    return (all(m.fix == first.fix for m in group),
            all(m.alternative == first.alternative for m in group))


def chosen(finding: Finding, unsafe: bool) -> Fix | None:
    """The fix to apply: the unsafe alternative if allowed, else a safe (or allowed) fix."""
    if unsafe and finding.alternative is not None:
        return finding.alternative
    if finding.fix is None or not (finding.fix.safe or unsafe):
        return None
    return finding.fix


def _line_starts(text: str) -> list[int]:
    starts = [0]
    index = text.find("\n")
    while index != -1:
        starts.append(index + 1)
        index = text.find("\n", index + 1)
    return starts


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
    starts = _line_starts(text)
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


def plan(report: Report, settings: Settings, unsafe: bool) -> list[Change]:
    """The change fixing would make to each file of ``report`` (standard input's marked
    ``stdin``), settled over a few rounds."""
    stdin_name = (settings.stdin_filename or "-") if settings.stdin_text is not None else None
    by_path: dict[str, list[Finding]] = {}
    for finding in report.findings:
        if finding.path in report.sources:
            by_path.setdefault(finding.path, []).append(finding)
    changes: list[Change] = []
    for path, findings in by_path.items():
        source = report.sources[path]
        after, fixes = _settle(path, source, findings, settings, unsafe)
        if fixes and after != source:
            changes.append(Change(path, source.encode("utf-8"), after, fixes, report.roots,
                                  stdin=path == stdin_name))
    return changes


def _settle(
    path: str, text: str, findings: list[Finding], settings: Settings, unsafe: bool
) -> tuple[str, int]:
    total = 0
    for _ in range(MAX_ROUNDS):
        fixes = [fix for finding in findings if (fix := chosen(finding, unsafe)) is not None]
        text, applied = apply_fixes(text, fixes)
        if not applied:
            break
        total += applied
        again = replace(settings, stdin_text=text, stdin_filename=path)
        findings = [f for f in lint(["-"], again).findings if f.path == path]
    return text, total


def write(change: Change) -> bool:
    """Replace the file atomically with the fixed text; False if it changed since it was read.

    The file is written only inside ``change.roots`` (the run's linted roots; when none, the
    file's own repository or folder), never through a symlink that leaves them, and only if it
    is the file's one name: a hard-linked file would break its links (or change the other
    name's file), so it raises ``Refused`` (the reason for a note), as a file whose owner vlint
    could not keep does.  The new file keeps the old one's permissions and owner.
    """
    from vlint.discover import Refused, TooLarge, confined_read, linted_roots, resolve_confined

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
    import tempfile

    folder, name = os.path.split(target)
    descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".vlint")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(change.after.encode("utf-8"))
            _keep_owner(handle.fileno(), status)
            os.fchmod(handle.fileno(), stat.S_IMODE(status.st_mode))
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    return True


def _keep_owner(descriptor: int, status: os.stat_result) -> None:
    """Give the new file the old one's owner and group (root, or a member of its group, may)."""
    if (status.st_uid, status.st_gid) == (os.geteuid(), os.getegid()):
        return
    from vlint.discover import Refused

    try:
        os.fchown(descriptor, status.st_uid, status.st_gid)
    except PermissionError:
        raise Refused("owned by another user or group; vlint would change its owner") from None


def unified_diff(change: Change) -> str:
    """The change as a unified diff (``a/PATH`` -> ``b/PATH``), as ``git apply`` reads it."""
    import difflib

    before = change.before.decode("utf-8").splitlines(keepends=True)
    after = change.after.splitlines(keepends=True)
    lines = difflib.unified_diff(before, after, f"a/{change.path}", f"b/{change.path}")
    return "".join(
        line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n"
        for line in lines
    )
