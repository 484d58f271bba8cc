"""The explaining commands: ``vlint rule CODE``, ``vlint rules`` and ``vlint show PATHS``."""

from __future__ import annotations

import click


@click.command("rule")
@click.argument("code")
def rule_command(code: str) -> None:
    """Print the documentation of one rule (VL202)."""
    from vlint.checks import MODULES
    from vlint.docs import explain
    from vlint.report.escape import plain_text

    if code.upper() not in MODULES:
        raise click.UsageError(f"unknown rule {code!r}: `vlint rules` lists them")
    click.echo(plain_text(explain(code.upper())), nl=False)


@click.command("rules")
def rules_command() -> None:
    """List every rule: code, name, severity and what it does."""
    from vlint.docs import listing
    from vlint.report.escape import plain_text

    click.echo(plain_text(listing()), nl=False)


@click.command("show")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--target-version", metavar="TEXT",
              help="A vLLM release (0.32.0) or a range (>=0.30,<0.33).")
@click.option("--all", "include_defaults", is_flag=True,
              help="Also list the settings left at the release default.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text",
              help="text for people, json (documented in the README) for policy pipelines.")
def show_command(
    paths: tuple[str, ...], target_version: str | None, include_defaults: bool,
    output_format: str = "text",
) -> None:
    """Print each invocation's settings as the target release resolves them."""
    from vlint import catalog
    from vlint.cli import unknown_target
    from vlint.show import show, show_json

    render = show_json if output_format == "json" else show
    try:
        text = render(paths, target_version, include_defaults)
    except catalog.UnknownTarget:
        raise unknown_target(str(target_version)) from None
    click.echo(text, nl=False)


COMMANDS = (rule_command, rules_command, show_command)
