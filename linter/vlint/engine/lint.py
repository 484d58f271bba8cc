"""A run: read the paths, lint each file, lint the vLLM --config files they name, filter.

``lint(paths, settings) -> Report`` is ``finish(collect(paths, settings))``: ``collect`` gives
every finding before the filter stage, so that a later producer of findings (``vlint confirm``)
adds its own before ``finish`` filters them all (suppressions, selection, severities).  Pure: no
printing, no exits.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from packaging.version import Version

from vlint import target
from vlint.discover import Refused, Source, forget, linted_roots
from vlint.engine.agree import NOT_FIXED
from vlint.engine.file import check_invocation, lint_file
from vlint.engine.parallel import Entry, GroupWork, Queued, in_parallel
from vlint.engine.read import Counted, read, read_referenced
from vlint.engine.report import Report, sort_findings
from vlint.extract.config_refs import KIND, referenced_by
from vlint.filter.selection import filter_findings
from vlint.filter.suppress import mentions
from vlint.knowledge import catalog
from vlint.model import Finding
from vlint.settings import FILE_TIME_BUDGET, Settings

if TYPE_CHECKING:
    from vlint.policy.policies import Policy

__all__ = [
    "Collected", "Report", "check_invocation", "collect", "defaulted_note", "finish", "lint",
    "lint_file", "lint_text",
]


@dataclass
class _Group:
    """The files linted with one Settings, and what they gave before the filter stage."""

    settings: Settings
    releases: Sequence[Version] | None  # the target the settings name, if they name one
    findings: list[Finding] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    configs: list[str] = field(default_factory=list)  # the vLLM --config files its files name
    paths: set[str] = field(default_factory=set)  # every file linted with these settings


@dataclass(frozen=True)
class Collected:
    """A run before its filter stage: ``report.findings`` are every producer's so far."""

    report: Report
    groups: tuple[_Group, ...]
    settings: Settings


def lint(paths: Sequence[str], settings: Settings, *, every_source: bool = False) -> Report:
    """Lint ``paths`` (``-`` is standard input, given as ``settings.stdin_text``).

    Each file is linted and filtered with its own settings (``settings.per_file``); the files
    that share settings form a group, whose vLLM --config files are linted with them.
    ``report.sources`` holds the text of each file with a finding or a suppression, or of
    every file linted with ``every_source`` (``vlint show`` quotes them).
    """
    return finish(collect(paths, settings, every_source=every_source))


def collect(paths: Sequence[str], settings: Settings, *, every_source: bool = False) -> Collected:
    """Every finding of ``paths`` before the filter stage, with what ``finish`` filters by."""
    try:
        return _collect(paths, settings, every_source)
    finally:
        forget()  # the next run looks at the file system again


def finish(collected: Collected) -> Report:
    """The filter stage over every finding of ``collected.report`` (whichever stage made it):
    each file's findings with the settings it was linted with."""
    report = collected.report
    by_path = {path: group for group in collected.groups for path in group.paths}
    pending: dict[int, list[Finding]] = {}
    strays: list[Finding] = []
    for finding in report.findings:
        group = by_path.get(finding.path)
        if group is None:
            strays.append(finding)
        else:
            pending.setdefault(id(group), []).append(finding)
    kept: list[Finding] = []
    for group in collected.groups:
        kept.extend(filter_findings(pending.get(id(group), []), group.sources, group.settings))
        for path in group.sources:
            report.fail_on[path] = group.settings.fail_on
    for finding in strays:  # about no linted file: filtered by that path's settings
        own = _own(collected.settings, finding.path)
        kept.extend(filter_findings([finding], {}, own))
    report.findings = sort_findings(kept)
    _note_not_fixed(report)
    return report


def defaulted_note(verb: str = "checked against") -> str:
    """The note of a run where no launch had a target given or pinned."""
    return (f"no target release given or pinned: {verb} the newest known, vLLM "
            f"{catalog.newest()} (use --target-version)")


def lint_text(
    path: str, kind: str, text: str, user_target: Sequence[Version] | None, report: Report,
    policies: Sequence[Policy] = (), budget: float | None = None, *,
    reraise: bool = False,
) -> list[Finding]:
    """One text's findings before the filter stage, what else it gives added to ``report``
    (tests and fuzzers; the engine's own entry point is ``lint_file``)."""
    settings = Settings(policies=tuple(policies), time_budget=budget)
    result = lint_file(Source(path, kind, text), settings, user_target, reraise=reraise)
    report.absorb(result)
    return list(result.findings)


def _own(settings: Settings, path: str) -> Settings:
    return settings if settings.per_file is None else settings.per_file(path)


def _collect(paths: Sequence[str], settings: Settings, every_source: bool) -> Collected:
    report = Report()
    given = [(settings.stdin_filename or "-") if path == "-" else path for path in paths]
    report.roots = linted_roots(given)
    groups: list[_Group] = []
    counted = Counted()
    files: Iterable[Entry] = _grouped(read(paths, settings, report.roots, counted), settings,
                                      report, groups)
    if settings.jobs != 1:
        files = in_parallel(list(files), settings.jobs, [_work(g) for g in groups])
    for file in files:
        if isinstance(file, str):
            report.notes.append(file)
            continue
        group = groups[file.group]
        result = file.part or lint_file(file.source, group.settings, group.releases,
                                        budget=_budget(group.settings))
        named = len(report.config_refs)
        report.absorb(result)
        if len(report.config_refs) > named:
            group.configs.extend(list(report.config_refs)[named:])
        _keep(group, file.source, result.findings, every_source)
    report.files = counted.files
    for group in groups:
        _lint_config_refs(report, group)
        report.sources.update(group.sources)
        report.findings.extend(group.findings)
    targeted = settings.target or any(group.releases is not None for group in groups)
    if not targeted and not report.targets:
        report.targets.add(catalog.newest())
    if report.defaulted_target:
        report.notes.insert(0, defaulted_note())
    return Collected(report, tuple(groups), settings)


def _keep(group: _Group, source: Source, findings: Sequence[Finding], every_source: bool) -> None:
    """A linted file's findings, in its group; its text too where the filter stage needs it
    (for its findings, or for a suppression in it that may be unused), or ``every_source``."""
    group.paths.add(source.path)
    if findings or every_source or mentions(source.text):
        group.sources[source.path] = source.text
        group.findings.extend(findings)


def _budget(settings: Settings) -> float:
    return FILE_TIME_BUDGET if settings.time_budget is None else settings.time_budget


def _work(group: _Group) -> GroupWork:
    return group.settings, group.releases, _budget(group.settings)


def _grouped(
    items: Iterable[Source | str], settings: Settings, report: Report, groups: list[_Group]
) -> Iterator[Entry]:
    """``items``, each file with the group of its own settings (added to ``groups``)."""
    index: dict[Settings, int] = {}
    targets: dict[str, Sequence[Version]] = {}

    def user_target(text: str) -> Sequence[Version]:
        if text not in targets:
            chosen = target.user_target(text)
            report.note(*chosen.notes)
            targets[text] = chosen.releases
        return targets[text]

    def group_of(own: Settings) -> int:
        if own not in index:
            index[own] = len(groups)
            groups.append(_Group(own, user_target(own.target) if own.target else None))
        return index[own]

    if settings.per_file is None:
        group_of(settings)
    elif settings.target:
        user_target(settings.target)
    for item in items:
        if isinstance(item, str):
            yield item
            continue
        yield Queued(item, group_of(_own(settings, item.path)))


def _lint_config_refs(report: Report, group: _Group) -> None:
    """Lint each vLLM --config file the group's files name, once in the run (by the first group
    that names it), as the naming invocation's config.

    A config may name any path (``/proc/self/environ``, ``../../secrets.yaml``, a FIFO, a
    symlink out): only regular files inside the linted roots are read; any other is skipped
    with a note, and a path that does not exist is left to vLLM.
    """
    done: set[str] = set()
    while len(done) < len(group.configs):
        config = next(c for c in group.configs if c not in done)
        done.add(config)
        invocation = report.config_refs[config]
        if os.path.normpath(config) in report.configs_linted or not os.path.lexists(config):
            continue
        roots = report.roots or linted_roots([invocation.path])
        try:
            text = read_referenced(config, roots, group.settings.max_file_size)
        except Refused as refused:
            report.note(f"{config}: skipped ({refused.reason})")
            continue
        report.files += 1
        with referenced_by(invocation):
            result = lint_file(Source(config, KIND, text), group.settings, group.releases,
                               budget=_budget(group.settings))
        named = len(report.config_refs)
        report.absorb(result)
        group.configs.extend(c for c in list(report.config_refs)[named:] if c not in group.configs)
        group.paths.add(config)
        group.sources[config] = text
        group.findings.extend(result.findings)


def _note_not_fixed(report: Report) -> None:
    count = sum(1 for finding in report.findings if NOT_FIXED in finding.help)
    if count:
        fixes = "1 fix" if count == 1 else f"{count} fixes"
        report.note(f"{fixes} not applied: the targeted releases disagree (each finding's help "
                    "says how; pick one with --target-version)")
