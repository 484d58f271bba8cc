"""The fix loop: apply the chosen fixes, lint the fixed text again, fix what remains.

Fixing is pure text editing (``vlint.fix.apply``); re-linting belongs to the engine, so the loop
lives here (as ruff's does in its linter).
"""

from __future__ import annotations

from dataclasses import replace

from vlint.engine.lint import lint
from vlint.engine.report import Report
from vlint.fix.apply import Change, apply_fixes, chosen
from vlint.model import Finding
from vlint.settings import Settings

# Fixing, re-linting and fixing again settles edits that overlapped in an earlier round.
MAX_ROUNDS = 4


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

