"""``vlint check`` (also ``vlint PATHS``): lint, fix if asked, print, exit with the verdict."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

from vlint.commands.options import (
    check_options, check_policy_codes, check_target, codes, run_paths,
)
from vlint.config import files as config
from vlint.config.files import Nearest
from vlint.engine.lint import lint
from vlint.render import concise, full, outputs, renderer
from vlint.render.escape import plain_line
from vlint.render.progress import Progress
from vlint.render.style import Style, plural, use_colour
from vlint.settings import Settings

if TYPE_CHECKING:
    from vlint.engine.report import Report
    from vlint.policy.policies import Policy


@check_options
def run_check(
    paths: tuple[str, ...],
    target_version: str | None,
    output_format: str,
    output: tuple[outputs.Output, ...],
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    stdin_filename: str | None,
    exit_zero: bool,
    fail_on_empty: bool = False,
    fix: bool = False,
    unsafe_fixes: bool = False,
    diff: bool = False,
    extend_select: tuple[str, ...] = (),
    config_path: str | None = None,
    isolated: bool = False,
    jobs: int = 0,
    policy_pack: tuple[str, ...] = (),
    colour: str = "auto",
    no_progress: bool = False,
    statistics: bool = False,
    quiet: int = 0,
) -> None:
    """Lint PATHS (default: the current folder) against the vLLM release each launch deploys.

    Exit status: 0 when no finding reaches the failure threshold, 1 when one does, 2 on a
    usage, configuration or internal error.
    """
    check_target(target_version)
    linted, named = run_paths(paths, stdin_filename, config_path, isolated)
    flags = Settings(
        target=target_version,
        select=codes(select, "--select"),
        ignore=codes(ignore, "--ignore"),
        extend_select=codes(extend_select, "--extend-select"),
        stdin_text=sys.stdin.read() if "-" in linted else None,
        stdin_filename=stdin_filename,
        jobs=jobs,
    )
    packs = [name.strip() for value in policy_pack for name in value.split(",") if name.strip()]
    # Each file's configuration is read as the file is reached (a broken one is exit 2).
    settings = config.for_files(named, config_path, isolated, flags, packs)
    if statistics and output_format not in ("full", "concise", "json"):
        raise click.UsageError("--statistics prints text or json, not " + output_format)
    style = Style(colour=use_colour(colour), quiet=quiet)
    with _progress(no_progress or quiet > 0):
        report = lint(linted, settings)
    check_policy_codes(flags, _run_policies(settings))
    fixed = None
    # Fixing standard input prints its fixed text, alone, on standard output (as an editor
    # integration reads it); everything else goes to standard error.
    to_stderr = fix and not diff and "-" in linted
    if fix or diff:
        from vlint.commands.fix import apply_or_diff  # lazy: only --fix and --diff

        report, fixed = apply_or_diff(linted, settings, report, unsafe_fixes, diff, quiet=quiet)
    _print(report, output_format, style, statistics, to_stderr)
    outputs.write_outputs(report, output)
    if output_format != "full" and not quiet:  # the full format prints them itself
        for note in report.notes:
            click.echo(plain_line(f"note: {note}"), err=True)
    if (fixed is not None or unsafe_fixes) and not quiet:
        from vlint.commands.fix import summarise  # lazy: only --fix and --unsafe-fixes

        summarise(report, fixed, unsafe_fixes, to_stderr=output_format != "full" or to_stderr)
    empty = report.invocations == 0
    if empty and quiet < 2:
        click.echo(_nothing_checked(report.files), err=True)
    if empty and fail_on_empty:
        raise SystemExit(1)
    raise SystemExit(0 if exit_zero or not report.failed() else 1)


def _nothing_checked(files: int) -> str:
    return f"warning: no vLLM launch found in {plural(files, 'file')}: nothing was checked"


def _run_policies(settings: Settings) -> tuple[Policy, ...]:
    """The policies of every settings the run used (each file's, with its configuration)."""
    per_file = settings.per_file
    return per_file.policies() if isinstance(per_file, Nearest) else settings.policies


def _print(
    report: Report, output_format: str, style: Style, statistics: bool, to_stderr: bool = False
) -> None:
    """The findings (or ``--statistics``) on standard output (or error), in colour where
    ``style`` says."""
    if style.quiet > 1:
        return
    if statistics:
        from vlint.render import statistics as stats  # lazy: only --statistics

        json_format = output_format == "json"
        text = stats.render_json(report) if json_format else stats.render_text(report, style)
    elif output_format in ("full", "concise"):
        text = (full if output_format == "full" else concise).render(report, style)
    else:
        text = renderer(output_format).render(report)
    click.echo(text, nl=False, color=style.colour, err=to_stderr)


@contextmanager
def _progress(disabled: bool) -> Iterator[None]:
    """A progress line on standard error while the block runs, on a terminal only."""
    stream = sys.stderr
    if disabled or not stream.isatty():
        yield
        return
    progress = Progress(stream)
    progress.start()
    try:
        yield
    finally:
        progress.stop()


check_command = click.command("check")(run_check)
