"""The command line's side of fixing: ``--fix``, ``--unsafe-fixes`` and ``--diff``."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace

import click

from vlint.discover import Refused
from vlint.engine.fixes import plan
from vlint.engine.lint import Report, lint
from vlint.fix.apply import Change, unified_diff, write
from vlint.render.escape import plain_line
from vlint.render.style import plural
from vlint.settings import Settings


def apply_or_diff(
    paths: Sequence[str], settings: Settings, report: Report, unsafe: bool, diff: bool,
    quiet: int = 0,
) -> tuple[Report, list[Change]]:
    """Write the fixes and re-lint; with ``diff``, print them and exit (1 if any).

    Standard input is never written: its fixed text (as read when nothing applies) is printed
    on standard output, and the re-lint reads that text."""
    changes = plan(report, settings, unsafe)
    if diff:
        if quiet < 2:
            click.echo(shown_diff("".join(unified_diff(change) for change in changes)), nl=False)
        if not quiet:
            click.echo(f"Would apply {_fixes(changes)}.", err=True)
        raise SystemExit(1 if changes else 0)
    written: list[Change] = []
    failed: dict[str, str] = {}
    stdin_text = settings.stdin_text
    for change in changes:
        if change.stdin:
            stdin_text = change.after
            written.append(change)
            continue
        try:
            if write(change):
                written.append(change)
        except Refused as refused:  # outside the repository, hard-linked: left as it is
            failed[change.path] = f"{change.path}: not fixed ({refused.reason})"
        except OSError as error:  # a read-only folder, a full disk: the original is kept
            failed[change.path] = f"{change.path}: not fixed ({error.strerror or error})"
    if stdin_text is not None:
        _echo_raw(stdin_text)
    if written:
        report = lint(paths, replace(settings, stdin_text=stdin_text))
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
        lines.append(f"Applied {_fixes(fixed)}.")
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
    for line in lines:
        click.echo(plain_line(line), err=to_stderr)


def _fixes(changes: Sequence[Change]) -> str:
    count = sum(change.fixes for change in changes)
    return f"{plural(count, 'fix', 'fixes')} to {plural(len(changes), 'file')}"


def shown_diff(diff: str, environ: Mapping[str, str] = os.environ) -> str:
    """``diff`` as ``--diff`` prints it: escaped line by line (every control character
    visible, no workflow command) for a terminal or a GitHub Actions log, where a person reads
    it; raw for a pipe or a file, where ``patch`` or ``git apply`` reads it.  Fixed standard
    input is printed by the same rule (raw for the editor that reads it)."""
    if environ.get("GITHUB_ACTIONS") != "true" and not sys.stdout.isatty():
        return diff
    return "".join(plain_line(line) + "\n" for line in diff.splitlines())


def _echo_raw(text: str) -> None:
    """``text`` on standard output as ``shown_diff`` shows it; bytes that were not UTF-8 on
    standard input go back as they came."""
    shown = shown_diff(text)
    try:
        click.echo(shown, nl=False)
    except UnicodeEncodeError:
        click.echo(shown.encode("utf-8", "surrogateescape"), nl=False)
