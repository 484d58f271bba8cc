"""What the commands share: check's options, the checks of their values, the paths of a run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from vlint.config.codes import Known, UnknownCode
from vlint.knowledge import catalog
from vlint.render import outputs

if TYPE_CHECKING:
    from vlint.policy.policies import Policy
    from vlint.settings import Settings

FORMATS = ("full", "concise", "json", "sarif", "github")
COLOUR_CHOICES = ("auto", "always", "never")


def codes(values: Sequence[str], option: str) -> tuple[str, ...]:
    """The codes of a ``--select``-like option (comma-separated, repeatable; rule names become
    their codes): a usage error (exit 2) for one no rule has.  Policy ids are checked once the
    run's policies are known (``check_policy_codes``)."""
    written = [code for value in values for code in value.split(",") if code.strip()]
    try:
        return Known(None).codes(written)
    except UnknownCode as unknown:
        raise click.UsageError(f"{option}: {unknown}") from None


def check_policy_codes(settings: Settings, policies: Sequence[Policy]) -> None:
    """A usage error for a code of ``--select``, ``--extend-select`` or ``--ignore`` (in
    ``settings``) that neither a rule nor one of the run's ``policies`` has."""
    known = Known(policies)
    options = {"--select": settings.select, "--extend-select": settings.extend_select,
               "--ignore": settings.ignore}
    for option, given in options.items():
        try:
            known.codes(given)
        except UnknownCode as unknown:
            raise click.UsageError(f"{option}: {unknown}") from None


def unknown_target(target_version: str) -> click.UsageError:
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
    if target_version is None:
        return
    try:
        catalog.resolve_target(target_version)
    except catalog.UnknownTarget:
        raise unknown_target(target_version) from None


def run_paths(paths: Sequence[str], stdin_filename: str | None, config_path: str | None,
              isolated: bool) -> tuple[list[str], list[str]]:
    """The paths a run lints (``-`` when only ``--stdin-filename`` is given, else the current
    folder when none), and the names they stand for (standard input's given name)."""
    if config_path is not None and isolated:
        raise click.UsageError("--config and --isolated cannot be combined")
    if not paths and stdin_filename is not None:
        paths = ("-",)
    linted = list(paths) or ["."]
    return linted, [stdin_filename if p == "-" and stdin_filename else p for p in linted]


def check_options(function: click.decorators.FC) -> click.decorators.FC:
    """``vlint check``'s arguments and options (``vlint confirm`` takes some of them)."""
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
