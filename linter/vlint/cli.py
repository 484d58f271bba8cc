"""The command line: a thin click shell over :func:`vlint.engine.lint.lint`."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

from vlint import __version__

from vlint.render import outputs
from vlint.errors import ConfigError

if TYPE_CHECKING:
    from vlint.engine.lint import Report
    from vlint.settings import Settings
    from vlint.policy.policies import Policy
    from vlint.render.style import Style

FORMATS = ("full", "concise", "json", "sarif", "github")
COLOUR_CHOICES = ("auto", "always", "never")
# The commands besides check, by name: their modules are imported only when one is named (or
# help lists them), so that a lint run (a pre-commit hook on one file) builds only check.
LAZY_COMMANDS = {
    "rule": ("vlint.commands.explain", "rule_command"),
    "rules": ("vlint.commands.explain", "rules_command"),
    "show": ("vlint.commands.explain", "show_command"),
    "confirm": ("vlint.commands.confirm", "confirm_command"),
    "flags": ("vlint.commands.flags", "flags_command"),
}


def codes(values: Sequence[str], option: str) -> tuple[str, ...]:
    """The codes of a ``--select``-like option (comma-separated, repeatable; rule names become
    their codes): a usage error (exit 2) for one no rule has.  Policy ids are checked once the
    run's policies are known (``check_policy_codes``)."""
    from vlint.filter.selection import Known, UnknownCode

    written = [code for value in values for code in value.split(",") if code.strip()]
    try:
        return Known(None).codes(written)
    except UnknownCode as unknown:
        raise click.UsageError(f"{option}: {unknown}") from None


def check_policy_codes(settings: Settings, policies: Sequence[Policy]) -> None:
    """A usage error for a code of ``--select``, ``--extend-select`` or ``--ignore`` (in
    ``settings``) that neither a rule nor one of the run's ``policies`` has."""
    from vlint.filter.selection import Known, UnknownCode

    known = Known(policies)
    options = {"--select": settings.select, "--extend-select": settings.extend_select,
               "--ignore": settings.ignore}
    for option, given in options.items():
        try:
            known.codes(given)
        except UnknownCode as unknown:
            raise click.UsageError(f"{option}: {unknown}") from None


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in LAZY_COMMANDS:
            module, name = LAZY_COMMANDS[cmd_name]
            self.add_command(getattr(importlib.import_module(module), name), cmd_name)
        return super().get_command(ctx, cmd_name)


@click.group(cls=_LazyGroup, invoke_without_command=True,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="vlint")
@click.pass_context
def _group(ctx: click.Context) -> None:
    """vlint: lint vLLM launch commands and configs against the vLLM release you deploy.

    `vlint PATHS` means `vlint check PATHS`: with no command, the arguments are check's.
    """


def _check_options(function: click.decorators.FC) -> click.decorators.FC:
    options = [
        click.argument("paths", nargs=-1, type=click.Path(exists=True, allow_dash=True)),
        click.option("--target-version", metavar="TEXT",
                     help="A vLLM release (0.32.0) or a range (>=0.30,<0.33)."),
        click.option("--output-format", type=click.Choice(FORMATS), callback=outputs.format_option,
                     help="How to print findings [default: github under GitHub Actions, else "
                     "full]."),
        click.option("--output", multiple=True, metavar="FORMAT:PATH",
                     callback=outputs.output_option,
                     help="Also write FORMAT to PATH, e.g. sarif:vlint.sarif (repeatable)."),
        click.option("--select", multiple=True, metavar="CODES",
                     help="Only these codes or code prefixes (comma-separated, repeatable)."),
        click.option("--ignore", multiple=True, metavar="CODES",
                     help="Drop these codes or code prefixes (comma-separated, repeatable)."),
        click.option("--extend-select", multiple=True, metavar="CODES",
                     help="Add these codes or prefixes to the selection (config's or --select)."),
        click.option("--config", "config_path", metavar="PATH",
                     type=click.Path(exists=True, dir_okay=False),
                     help="Use this configuration file instead of searching for one."),
        click.option("--isolated", is_flag=True, help="Ignore every configuration file."),
        click.option("--policy-pack", multiple=True, metavar="NAMES",
                     help="Load these installed policy packs (comma-separated, repeatable)."),
        click.option("--stdin-filename", metavar="NAME",
                     help="The name to lint standard input as (it sets the kind: compose.yaml, "
                     "run.sh...); implies '-' when no path is given.  Standard input whose "
                     "kind cannot be told is linted as shell."),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings."),
        click.option("--fail-on-empty", is_flag=True,
                     help="Exit 1 when the paths hold no vLLM launch at all (nothing was "
                     "checked), even with --exit-zero."),
        click.option("--jobs", "-j", type=click.IntRange(min=0), default=0, show_default=True,
                     help="Processes that lint the files launching vLLM; 0 chooses: one per CPU "
                     "when there are enough such files, else one."),
        click.option("--fix", is_flag=True, help="Apply safe fixes, then report what remains."),
        click.option("--unsafe-fixes", is_flag=True,
                     help="With --fix or --diff, also apply unsafe fixes; alone, list them."),
        click.option("--diff", is_flag=True,
                     help="Print the fixes as a unified diff instead of writing them. The diff "
                     "is escaped on a terminal and under GitHub Actions (control characters "
                     "shown as \\x1b, no workflow commands), raw otherwise, so that `vlint "
                     "--diff > x.patch` applies."),
        click.option("--color", "colour", type=click.Choice(COLOUR_CHOICES), default="auto",
                     show_default=True,
                     help="Colour full and concise output: auto colours a terminal unless "
                     "NO_COLOR is set (non-empty) or TERM=dumb."),
        click.option("--no-progress", is_flag=True,
                     help="No progress line on standard error (shown on a terminal when a run "
                     "takes more than a second)."),
        click.option("--statistics", is_flag=True,
                     help="Print how many findings each code has instead of the findings "
                     "(text, or JSON with --output-format json)."),
        click.option("--quiet", "-q", count=True,
                     help="Print the findings only, no summary or notes; -qq prints nothing "
                     "(the exit code tells)."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def unknown_target(target_version: str) -> click.UsageError:
    from vlint.knowledge import catalog

    try:
        catalog.target(target_version)
    except catalog.UnknownTarget as unknown:
        reason = unknown.reason
    else:
        reason = "not a target"
    return click.UsageError(f"unknown --target-version {target_version!r}: {reason} (vlint "
                            f"knows vLLM {catalog.known_range()})")


def check_target(target_version: str | None) -> None:
    """A usage error (exit 2) for a --target-version that names no known release or range."""
    from vlint.knowledge import catalog

    if target_version is None:
        return
    try:
        catalog.resolve_target(target_version)
    except catalog.UnknownTarget:
        raise unknown_target(target_version) from None


@_check_options
def _run_check(
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
    from vlint.config import files as config
    from vlint.engine.lint import lint
    from vlint.settings import Settings

    check_target(target_version)
    if config_path is not None and isolated:
        raise click.UsageError("--config and --isolated cannot be combined")
    if not paths and stdin_filename is not None:
        paths = ("-",)
    named = [stdin_filename if p == "-" and stdin_filename else p for p in paths or ["."]]
    flags = Settings(
        target=target_version,
        select=codes(select, "--select"),
        ignore=codes(ignore, "--ignore"),
        extend_select=codes(extend_select, "--extend-select"),
        stdin_text=sys.stdin.read() if "-" in paths else None,
        stdin_filename=stdin_filename,
        jobs=jobs,
    )
    packs = [name.strip() for value in policy_pack for name in value.split(",") if name.strip()]
    # Each file's configuration is read as the file is reached (a broken one is exit 2).
    settings = config.for_files(named, config_path, isolated, flags, packs)
    from vlint.render.style import Style, use_colour

    if statistics and output_format not in ("full", "concise", "json"):
        raise click.UsageError("--statistics prints text or json, not " + output_format)
    style = Style(colour=use_colour(colour), quiet=quiet)
    with _progress(no_progress or quiet > 0):
        report = lint(list(paths) or ["."], settings)
    check_policy_codes(flags, _run_policies(settings))
    fixed = None
    # Fixing standard input prints its fixed text, alone, on standard output (as an editor
    # integration reads it); everything else goes to standard error.
    to_stderr = fix and not diff and "-" in paths
    if fix or diff:
        from vlint.commands.fix import apply_or_diff

        report, fixed = apply_or_diff(
            list(paths) or ["."], settings, report, unsafe_fixes, diff, quiet=quiet
        )
    _print(report, output_format, style, statistics, to_stderr)
    outputs.write_outputs(report, output)
    if output_format != "full" and not quiet:  # the full format prints them itself
        from vlint.render.escape import plain_line

        for note in report.notes:
            click.echo(plain_line(f"note: {note}"), err=True)
    if (fixed is not None or unsafe_fixes) and not quiet:
        from vlint.commands.fix import summarise

        summarise(report, fixed, unsafe_fixes, to_stderr=output_format != "full" or to_stderr)
    empty = report.invocations == 0
    if empty and quiet < 2:
        click.echo(_nothing_checked(report.files), err=True)
    if empty and fail_on_empty:
        raise SystemExit(1)
    raise SystemExit(0 if exit_zero or not report.failed() else 1)


def _nothing_checked(files: int) -> str:
    from vlint.render.style import plural

    return f"warning: no vLLM launch found in {plural(files, 'file')}: nothing was checked"


def _run_policies(settings: Settings) -> tuple[Policy, ...]:
    """The policies of every settings the run used (each file's, with its configuration)."""
    from vlint.config.files import Nearest

    per_file = settings.per_file
    return per_file.policies() if isinstance(per_file, Nearest) else settings.policies


def _print(
    report: Report, output_format: str, style: Style, statistics: bool, to_stderr: bool = False
) -> None:
    """The findings (or ``--statistics``) on standard output (or error), in colour where
    ``style`` says."""
    from vlint.render import renderer

    if style.quiet > 1:
        return
    if statistics:
        from vlint.render import statistics as stats

        json_format = output_format == "json"
        text = stats.render_json(report) if json_format else stats.render_text(report, style)
    elif output_format in ("full", "concise"):
        from vlint.render import concise, full

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
    from vlint.render.progress import Progress

    progress = Progress(stream)
    progress.start()
    try:
        yield
    finally:
        progress.stop()


check_command = click.command("check")(_run_check)
_group.add_command(check_command)


def main(argv: Sequence[str] | None = None) -> int:
    """Run vlint; ``vlint PATHS`` and ``vlint check PATHS`` are the same command."""
    args = list(sys.argv[1:] if argv is None else argv)
    commands = {"check", *LAZY_COMMANDS}
    if not args or (args[0] not in commands and args[0] not in ("--version", "-h", "--help")):
        args = ["check", *args]
    try:
        _group.main(args=args, prog_name="vlint", standalone_mode=False)
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.ClickException as error:
        error.show()
        return 2
    except ConfigError as error:
        from vlint.render.escape import plain_text

        click.echo(plain_text(str(error)), err=True)
        return 2
    except click.Abort:
        return 2
    except SystemExit as done:
        return int(done.code or 0)
    return 0
