"""The command line: a thin click shell over :func:`vlint.lint.lint`."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from vlint import __version__

FORMATS = ("full", "concise", "json")


def _codes(values: Sequence[str]) -> tuple[str, ...]:
    return tuple(code.strip().upper() for value in values for code in value.split(",") if code.strip())


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="vlint")
@click.pass_context
def _group(ctx: click.Context) -> None:
    """vlint: lint vLLM launch commands and configs against the vLLM release you deploy."""


def _check_options(function: click.decorators.FC) -> click.decorators.FC:
    options = [
        click.argument("paths", nargs=-1, type=click.Path(exists=True, allow_dash=True)),
        click.option("--target-version", metavar="TEXT",
                     help="A vLLM release (0.32.0) or a range (>=0.30,<0.33)."),
        click.option("--output-format", type=click.Choice(FORMATS), default="full",
                     show_default=True, help="How to print findings."),
        click.option("--select", multiple=True, metavar="CODES",
                     help="Only these codes or code prefixes (comma-separated, repeatable)."),
        click.option("--ignore", multiple=True, metavar="CODES",
                     help="Drop these codes or code prefixes (comma-separated, repeatable)."),
        click.option("--stdin-filename", metavar="NAME",
                     help="The name to lint standard input as, when a path is '-'."),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


@_check_options
def _run_check(
    paths: tuple[str, ...],
    target_version: str | None,
    output_format: str,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    stdin_filename: str | None,
    exit_zero: bool,
) -> None:
    from vlint import catalog
    from vlint.lint import Settings, lint
    from vlint.report import renderer

    if target_version is not None:
        try:
            catalog.resolve_target(target_version)
        except catalog.UnknownTarget:
            raise click.UsageError(
                f"unknown --target-version {target_version!r}: vlint knows vLLM "
                f"{catalog.known_range()}"
            ) from None
    stdin_text = sys.stdin.read() if "-" in paths else None
    settings = Settings(
        target=target_version,
        select=_codes(select),
        ignore=_codes(ignore),
        stdin_text=stdin_text,
        stdin_filename=stdin_filename,
    )
    report = lint(list(paths) or ["."], settings)
    click.echo(renderer(output_format).render(report), nl=False)
    if output_format != "full":
        for note in report.notes:
            click.echo(f"note: {note}", err=True)
    raise SystemExit(0 if exit_zero or not report.failed() else 1)


check_command = click.command("check")(_run_check)
_group.add_command(check_command)


def main(argv: Sequence[str] | None = None) -> int:
    """Run vlint; ``vlint PATHS`` and ``vlint check PATHS`` are the same command."""
    args = list(sys.argv[1:] if argv is None else argv)
    commands = {"check"}
    if not args or (args[0] not in commands and args[0] not in ("--version", "-h", "--help")):
        args = ["check", *args]
    try:
        _group.main(args=args, prog_name="vlint", standalone_mode=False)
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.ClickException as error:
        error.show()
        return 2
    except click.Abort:
        return 2
    except SystemExit as done:
        return int(done.code or 0)
    return 0
