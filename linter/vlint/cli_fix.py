"""The command line's side of fixing: ``--fix``, ``--unsafe-fixes`` and ``--diff``."""

from __future__ import annotations

from collections.abc import Sequence

import click

from vlint.fix import Change, plan, unified_diff, write
from vlint.lint import Report, Settings, lint


def apply_or_diff(
    paths: Sequence[str], settings: Settings, report: Report, unsafe: bool, diff: bool
) -> tuple[Report, list[Change]]:
    """Write the fixes and re-lint; with ``diff``, print them and exit (1 if any)."""
    changes = plan(report, settings, unsafe)
    if diff:
        click.echo("".join(unified_diff(change) for change in changes), nl=False)
        count = sum(change.fixes for change in changes)
        click.echo(f"Would apply {count} fix(es) to {len(changes)} file(s).", err=True)
        raise SystemExit(1 if changes else 0)
    written: list[Change] = []
    failed: dict[str, str] = {}
    for change in changes:
        try:
            if write(change):
                written.append(change)
        except OSError as error:  # a read-only folder, a full disk: the original is kept
            failed[change.path] = f"{change.path}: not fixed ({error.strerror or error})"
    if written:
        report = lint(paths, settings)
    for change in changes:
        if change not in written and change.path not in failed:
            report.notes.append(
                f"{change.path}: changed on disk while vlint was fixing it; left as it is"
            )
    report.notes.extend(failed.values())
    return report, written


def summarise(report: Report, fixed: list[Change] | None, unsafe: bool, to_stderr: bool) -> None:
    """Say how many fixes were applied, or (``--unsafe-fixes`` alone) which are available."""
    lines: list[str] = []
    if fixed is not None:
        count = sum(change.fixes for change in fixed)
        lines.append(f"Applied {count} fix(es) to {len(fixed)} file(s).")
    elif unsafe:
        for finding in report.findings:
            offered = finding.alternative
            if offered is None and finding.fix is not None and not finding.fix.safe:
                offered = finding.fix
            if offered is not None:
                start = finding.span.start
                lines.append(
                    f"{finding.path}:{start.line}:{start.column}: {finding.code} unsafe fix "
                    f"available with --fix --unsafe-fixes: {offered.description}"
                )
    from vlint.report.escape import plain_line

    for line in lines:
        click.echo(plain_line(line), err=to_stderr)
