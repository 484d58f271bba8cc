"""``vlint confirm``: lint, then ask a real vLLM about every finding (see :mod:`vlint.confirm`).

What it runs, from where, with what: the probe (levels ``parse`` and ``config``) or ``vllm
serve`` (level ``start``) in the vLLM interpreter, as ``python -I`` from a fresh temporary folder
(its working directory and HOME), with an allow-listed environment and no import path inside the
linted checkout.  An invocation with an option that would make vLLM run code the repository
chooses is not run unless ``--unsafe-allow-code`` is given (a command-line flag only: no
configuration file can turn it on).  SIGTERM and SIGINT stop every child before vlint exits (2).

Which release it checks against: ``--target-version``, else the configuration's, else each
launch's image tag or project pin; when none of these names one, the release the vLLM
interpreter has (asked through the sandboxed probe), so that every finding can be judged.

What vLLM reports (VL901-VL903, and each finding's confirmation) joins the findings before the
filter stage: suppressions, ``--select``/``--ignore`` and severities apply to vLLM's findings as
to every other (the engine's ``collect``, then ``finish`` once vLLM was asked).

Kept outside the ``vlint.confirm`` package so that registering the command costs the lint path
nothing: the package (subprocesses, the probe protocol) is imported only when confirm runs.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING

import click
from packaging.version import InvalidVersion, Version

from vlint.commands.options import (
    check_options, check_policy_codes, check_target, codes, run_paths,
)
from vlint.config import files as config
from vlint.engine.lint import Collected, collect, finish
from vlint.engine.report import Report
from vlint.knowledge import catalog
from vlint.render import outputs, renderer
from vlint.render.escape import plain_line, plain_text
from vlint.settings import Settings
from vlint.target import pinned_specifier

if TYPE_CHECKING:
    from vlint.confirm import Probe, VLLMPython

LEVELS = ("parse", "config", "start")
# The options confirm shares with ``vlint check``, taken from check's own definitions.
SHARED = ("paths", "output_format", "output", "select", "ignore", "extend_select",
          "config_path", "isolated", "stdin_filename", "exit_zero", "jobs")
JOBS_HELP = ("Accepted as for check; confirm lints in one process (it needs every launch's "
             "tokens to ask vLLM), so it changes nothing, and vLLM is asked one invocation at "
             "a time.")


def _check_params() -> list[click.Parameter]:
    """check's parameters named in SHARED, in that order (``--jobs`` documented for confirm)."""
    def holder() -> None:
        """Only carries the parameters."""

    check_options(holder)
    params: list[click.Parameter] = getattr(holder, "__click_params__")
    by_name = {p.name: p for p in params}
    jobs = by_name["jobs"]
    if isinstance(jobs, click.Option):
        jobs.help = JOBS_HELP
    return [by_name[name] for name in SHARED]


def _shared_options(function: click.decorators.FC) -> click.decorators.FC:
    holder = getattr(function, "__click_params__", [])
    # click builds the command from this list reversed (decorators apply bottom-up).
    setattr(function, "__click_params__", holder + list(reversed(_check_params())))
    return function


def _progress(text: str) -> None:
    click.echo(plain_line(text), err=True)


def _say(text: str) -> None:
    _progress(f"vlint confirm: {text}")


@click.command("confirm")
@click.option("--level", type=click.Choice(LEVELS), default="parse", show_default=True,
              help="parse: vLLM's real serve parser; config: also its engine configuration "
              "(stand-in model unless the model is a local folder); start: a dry start.")
@click.option("--vllm-python", metavar="PATH",
              help="A Python that has vLLM installed [default: $VLINT_VLLM_PYTHON, else "
              "python3 on PATH if it imports vLLM].")
@click.option("--stand-in-model", is_flag=True,
              help="With --level start: serve a generated tiny model instead of the real one.")
@click.option("--target-version", metavar="TEXT",
              help="A vLLM release (0.32.0) or a range (>=0.30,<0.33) [default: the image "
              "tag or project pin, else the release the vLLM interpreter has].")
@click.option("--unsafe-allow-code", is_flag=True,
              help="Also run invocations whose options make vLLM run code named by the linted "
              "files (--trust-remote-code, --worker-cls, plugins, a model folder with Python "
              "files...).  Only for repositories you trust.")
@_shared_options
def confirm_command(
    paths: tuple[str, ...],
    level: str,
    vllm_python: str | None,
    stand_in_model: bool,
    target_version: str | None,
    output_format: str,
    output: tuple[outputs.Output, ...],
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    extend_select: tuple[str, ...],
    config_path: str | None,
    isolated: bool,
    stdin_filename: str | None,
    exit_zero: bool,
    jobs: int,
    unsafe_allow_code: bool,
) -> None:
    """Lint PATHS, then confirm each finding with a real vLLM: confirmed, refuted or
    unverified; what vLLM reports that no finding predicted is VL901/VL902."""
    # The probe machinery loads when confirm runs, not when help lists the command.
    from vlint.confirm import Interrupted, ProbeError, stopping_children  # lazy: see above

    check_target(target_version)
    linted, named = run_paths(paths, stdin_filename, config_path, isolated)
    flags = Settings(
        target=target_version, select=codes(select, "--select"),
        ignore=codes(ignore, "--ignore"), extend_select=codes(extend_select, "--extend-select"),
        stdin_filename=stdin_filename)
    loaded = config.for_run(named, config_path, isolated)
    settings = config.merge(loaded, flags)
    check_policy_codes(flags, settings.policies)
    settings = replace(settings, stdin_text=sys.stdin.read() if "-" in linted else None)
    try:
        with stopping_children():
            report = _run(linted, named, settings, level, vllm_python, stand_in_model,
                          unsafe_allow_code)
    except ProbeError as error:
        click.echo(plain_text(f"vlint confirm: {error}"), err=True)
        raise SystemExit(2) from None
    except Interrupted as stop:
        _say(f"interrupted by {stop}; every vLLM process it started was stopped")
        raise SystemExit(2) from None
    _print(report, output_format, output, level)
    threshold = loaded.fail_on if loaded is not None else "warning"
    sys.exit(0 if exit_zero or not report.failed(threshold) else 1)


def _run(paths: list[str], named: list[str], settings: Settings, level: str,
         vllm_python: str | None, stand_in_model: bool, allow_code: bool) -> Report:
    """The run's findings with vLLM's verdicts and its own findings, then filtered."""
    from vlint.confirm import confirm, find_python, probe_release  # lazy: see confirm_command

    # One process: workers would leave report.launches empty (see Settings.jobs).
    settings = replace(settings, jobs=1)
    collected = collect(paths, settings)
    unpinned = settings.target is None and collected.report.defaulted_target
    targets = collected.report.targets
    newest = max(targets) if targets else None
    python = find_python(vllm_python, None if unpinned or newest is None else str(newest),
                         named)
    if level == "start":
        if unpinned:
            with _probe(_installed(python), named, "start") as probe:
                collected = _retarget(collected, paths, settings, probe_release(probe))
        started = _start(collected.report, python, named, stand_in_model, allow_code)
        return finish(replace(collected, report=started))
    with _probe(python, named, level) as probe:
        if unpinned:
            collected = _retarget(collected, paths, settings, probe_release(probe))
        confirmed = confirm(collected.report, level, python, roots=named,
                            allow_code=allow_code, probe=probe)
    return finish(replace(collected, report=confirmed))


def _installed(python: VLLMPython) -> VLLMPython:
    """``python`` as a start runs it: its installed vLLM, without PYTHONPATH additions."""
    return replace(python, env={k: v for k, v in python.env.items() if k != "PYTHONPATH"})


def _where(python: VLLMPython) -> str:
    return python.origin if python.python in python.origin else (
        f"{python.python} ({python.origin})")


@contextmanager
def _probe(python: VLLMPython, roots: Sequence[str], level: str) -> Iterator[Probe]:
    from vlint.confirm import probe_release, running_probe  # lazy: see confirm_command

    _say(f"starting vLLM probe ({level}) in {_where(python)}; loading vLLM takes a while...")
    began = time.monotonic()
    with running_probe(python, roots) as probe:
        release = probe_release(probe)
        _say(f"vLLM {release} loaded in {time.monotonic() - began:.0f} s")
        yield probe


def _retarget(collected: Collected, paths: list[str], settings: Settings,
              release: str) -> Collected:
    """With no target given or pinned: lint again against the probe's release, when vlint
    knows it and no launch pins another."""
    report = collected.report
    newest = catalog.newest()
    try:
        version: Version | None = Version(release)
    except InvalidVersion:
        version = None
    pinned = any(inv.target is not None or pinned_specifier(inv.path) is not None
                 for inv, _ in report.launches if inv.path != "-")
    if version is None or version not in catalog.known_releases():
        report.notes.append(f"the probe runs vLLM {release}, which vlint does not know: "
                            f"checked against the newest known, {newest}")
        return collected
    if pinned:
        report.notes.append(f"launches with no pinned release were checked against vLLM "
                            f"{newest}, the newest known; the probe runs vLLM {release} "
                            f"(pass --target-version {release} to check them against it)")
        return collected
    retargeted = collect(paths, replace(settings, target=str(version)))
    retargeted.report.notes.insert(0, f"no target release given or pinned: checked against "
                                      f"vLLM {version}, the release the probe runs (use "
                                      "--target-version to choose another)")
    return retargeted


def _start(report: Report, python: VLLMPython, named: Sequence[str], stand_in_model: bool,
           allow_code: bool) -> Report:
    from vlint.confirm import start  # lazy: see confirm_command

    count = len(report.launches)
    _say(f"starting vLLM serve for {count} invocation{'s' if count != 1 else ''}, one at a "
         f"time, in {_where(_installed(python))}; each start may take minutes...")
    return start.confirm_report(report, python, stand_in_model=stand_in_model, roots=named,
                                allow_code=allow_code, progress=_progress)


def _print(report: Report, output_format: str, output: Sequence[outputs.Output],
           level: str) -> None:
    click.echo(renderer(output_format).render(report), nl=False)
    outputs.write_outputs(report, output)
    if output_format != "full":
        for note in report.notes:
            click.echo(plain_line(f"note: {note}"), err=True)
    states: dict[str, int] = {}
    for finding in report.findings:
        state = finding.confirmation.state if finding.confirmation else "unverified"
        states[state] = states.get(state, 0) + 1
    gaps = sum(1 for f in report.findings if f.code.startswith("VL9"))
    summary = ", ".join(f"{n} {s}" for s, n in sorted(states.items())) or "no findings"
    click.echo(f"vlint confirm ({level}): {summary}; {gaps} reported by vLLM only (VL9xx)",
               err=True)
