"""``vlint flags``: the option strings a vLLM release accepts, or what changed between two.

    vlint flags --target-version 0.32.0            # one per line, sorted
    vlint flags --diff 0.31.0 0.33.0               # + added, - removed, sorted
    vlint flags --target-version 0.4.1 --entry api_server
    vlint flags --diff 0.31.0 0.33.0 --output-format json

The answers come from the catalog's lifecycle facts (``lifecycle.json``): no release is loaded.
By default a release's ``vllm serve`` options are listed, or its OpenAI api_server module's where
the release has no ``vllm serve``.
"""

from __future__ import annotations

import json

import click
from packaging.version import InvalidVersion, Version

from vlint.knowledge import catalog

ENTRIES = ("serve", "api_server", "demo_server")


@click.command("flags")
@click.option("--target-version", metavar="VERSION", help="List this release's option strings.")
@click.option("--diff", "diff", nargs=2, metavar="A B",
              help="Print the option strings B added (+) and removed (-) since A.")
@click.option("--entry", type=click.Choice(ENTRIES),
              help="serve (vllm serve), api_server (python -m vllm.entrypoints.openai."
              "api_server) or demo_server (python -m vllm.entrypoints.api_server) "
              "[default: serve where the release has it].")
@click.option("--output-format", type=click.Choice(("text", "json")), default="text",
              show_default=True, help="One option string a line, or a JSON object.")
def flags_command(target_version: str | None, diff: tuple[str, str] | None,
                  entry: str | None, output_format: str) -> None:
    """Print a release's option strings, or the flags added and removed between two releases."""
    if (target_version is None) == (diff is None):
        raise click.UsageError("give either --target-version VERSION or --diff A B")
    if target_version is not None:
        version = _release(target_version)
        used = _entry(version, entry)
        strings = sorted(_strings(version, used))
        if output_format == "json":
            click.echo(json.dumps({"release": str(version), "entry": used, "options": strings},
                                  indent=2))
            return
        click.echo("".join(f"{string}\n" for string in strings), nl=False)
        return
    assert diff is not None
    old, new = (_release(text) for text in diff)
    old_entry, new_entry = _entry(old, entry), _entry(new, entry)
    if old_entry != new_entry:
        click.echo(f"note: vLLM {old} has no `vllm serve`; comparing its {old_entry} options "
                   f"with {new}'s {new_entry} options", err=True)
    before, after = _strings(old, old_entry), _strings(new, new_entry)
    added, removed = sorted(after - before), sorted(before - after)
    if output_format == "json":
        click.echo(json.dumps({"from": {"release": str(old), "entry": old_entry},
                               "to": {"release": str(new), "entry": new_entry},
                               "added": added, "removed": removed}, indent=2))
        return
    lines = [f"+ {s}" for s in added] + [f"- {s}" for s in removed]
    click.echo("".join(f"{line}\n" for line in lines), nl=False)


def _release(text: str) -> Version:
    try:
        version = Version(text.strip())
    except InvalidVersion:
        version = None
    if version is None or version not in catalog.known_releases():
        raise click.UsageError(
            f"unknown vLLM release {text!r}: vlint knows vLLM {catalog.known_range()}")
    return version


def _entry(version: Version, wanted: str | None) -> str:
    if wanted is not None:
        if not catalog.has_entry(version, wanted):
            raise click.UsageError(f"vLLM {version} has no {wanted} entry point")
        return wanted
    return "serve" if catalog.has_entry(version, "serve") else "api_server"


def _strings(version: Version, entry: str) -> frozenset[str]:
    return catalog.option_strings(version, entry)
