"""The explaining commands: ``vlint rule CODE``, ``vlint rules`` and ``vlint show PATHS``."""

from __future__ import annotations

import click

from vlint.checks.docs import code_of, explain, explain_json, listing, rows, text_width
from vlint.commands.options import check_target, unknown_target
from vlint.commands.show import show, show_json
from vlint.config import files as config
from vlint.knowledge import catalog
from vlint.render.escape import json_dumps, plain_text
from vlint.settings import Settings


_TEXT_OR_JSON = click.Choice(["text", "json"])


@click.command("rule")
@click.argument("code")
@click.option("--output-format", type=_TEXT_OR_JSON, default="text", show_default=True,
              help="text (rewrapped to the terminal, at most 88 columns) or json.")
def rule_command(code: str, output_format: str = "text") -> None:
    """Print the documentation of one rule, by code or name (VL202, ambiguous-unit-suffix)."""
    found = code_of(code)
    if found is None:
        raise click.UsageError(f"unknown rule {code!r}: `vlint rules` lists them")
    if output_format == "json":
        click.echo(json_dumps(explain_json(found)))
        return
    click.echo(plain_text(explain(found, text_width())), nl=False)


@click.command("rules")
@click.option("--config", "config_path", metavar="PATH",
              type=click.Path(exists=True, dir_okay=False),
              help="List the policies of this configuration file instead of the one found.")
@click.option("--isolated", is_flag=True, help="Ignore every configuration file.")
@click.option("--output-format", type=_TEXT_OR_JSON, default="text", show_default=True,
              help="text or json (a list of code, name, severity, kind, summary).")
def rules_command(
    config_path: str | None = None, isolated: bool = False, output_format: str = "text"
) -> None:
    """List every rule, then the policies the current folder's configuration adds: code, name,
    severity and what it does."""
    settings = _settings(["."], None, config_path, isolated)
    # The current folder's own settings: "-" stands for a file in it.
    own = settings.per_file("-") if settings.per_file is not None else settings
    if output_format == "json":
        click.echo(json_dumps(rows(own.policies)))
        return
    click.echo(plain_text(listing(own.policies)), nl=False)


@click.command("show")
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--target-version", metavar="TEXT",
              help="A vLLM release (0.32.0) or a range (>=0.30,<0.33) [default: as check: the "
              "configuration's target-version, else the image tag or the project's pins].")
@click.option("--config", "config_path", metavar="PATH",
              type=click.Path(exists=True, dir_okay=False),
              help="Use this configuration file instead of searching for one.")
@click.option("--isolated", is_flag=True, help="Ignore every configuration file.")
@click.option("--all", "include_defaults", is_flag=True,
              help="Also list the settings left at the release default.")
@click.option("--output-format", "--format", "output_format", type=click.Choice(["text", "json"]),
              default="text", show_default=True,
              help="text for people, json (documented in the README) for policy pipelines.")
def show_command(
    paths: tuple[str, ...], target_version: str | None, include_defaults: bool,
    output_format: str = "text", config_path: str | None = None, isolated: bool = False,
) -> None:
    """Print each invocation's model and settings as its release resolves them (PATHS: default
    the current folder).  A file that does not parse is reported as check reports it (VL002),
    and the exit status is then 1."""
    check_target(target_version)
    settings = _settings(list(paths) or ["."], target_version, config_path, isolated)
    render = show_json if output_format == "json" else show
    try:
        shown = render(list(paths) or ["."], settings, include_defaults)
    except catalog.UnknownTarget:
        raise unknown_target(str(settings.target)) from None
    click.echo(shown.text, nl=False)
    if shown.failed:  # a file that does not parse (VL002), as ``vlint check`` exits
        raise SystemExit(1)


def _settings(
    paths: list[str], target_version: str | None, config_path: str | None, isolated: bool
) -> Settings:
    """The settings ``vlint check`` would use for ``paths`` with these options."""
    if config_path is not None and isolated:
        raise click.UsageError("--config and --isolated cannot be combined")
    return config.for_files(paths, config_path, isolated, Settings(target=target_version))


COMMANDS = (rule_command, rules_command, show_command)
