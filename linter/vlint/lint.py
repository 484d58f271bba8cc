"""The pipeline: discover, extract, normalise, check, filter.  Pure: no printing, no exits."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias

from packaging.version import Version

from vlint import catalog

if TYPE_CHECKING:
    from vlint.extract import Unparsable
    from vlint.policy import Policy
from vlint.model import SEVERITY_RANK, Finding, Invocation, Pos, Severity, Span


MAX_FILE_SIZE = 2 * 2**20  # bytes


@dataclass(frozen=True)
class Settings:
    target: str | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    stdin_text: str | None = None
    stdin_filename: str | None = None
    extend_select: tuple[str, ...] = ()
    # Globs (per-file-ignores, exclude) are relative to config_dir, the config file's folder.
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    severity: tuple[tuple[str, Severity], ...] = ()
    config_dir: str | None = None
    policies: tuple[Policy, ...] = ()
    warnings_as_errors: bool = False  # the strict preset; severity overrides still win
    # Worker processes for the files that launch vLLM; 0 chooses (see ``_workers``).  Workers
    # leave Report.launches empty: only ``vlint confirm`` reads it, and it lints in one process
    # (sending every token back would cost as much as a fifth of the linting).
    jobs: int = 1
    # Bigger files are skipped with a note: no deployment file comes near it, and parsing a
    # huge generated YAML or Markdown file would take minutes.
    max_file_size: int = MAX_FILE_SIZE


@dataclass
class Report:
    findings: list[Finding] = field(default_factory=list)
    targets: set[Version] = field(default_factory=set)
    files: int = 0
    invocations: int = 0
    sources: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    defaulted_target: bool = False
    # vLLM --config files named by the invocations linted so far, with the first naming one.
    config_refs: dict[str, Invocation] = field(default_factory=dict)
    configs_linted: set[str] = field(default_factory=set)
    # Every invocation linted, with the releases it was checked against (``vlint confirm``).
    launches: list[tuple[Invocation, tuple[Version, ...]]] = field(default_factory=list)

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def failed(self, threshold: Severity = "warning") -> bool:
        return any(SEVERITY_RANK[f.severity] >= SEVERITY_RANK[threshold] for f in self.findings)


def lint(paths: Sequence[str], settings: Settings) -> Report:
    """Lint ``paths`` (``-`` is standard input, given as ``settings.stdin_text``)."""
    from vlint.filtering import filter_findings
    from vlint.suppress import mentions

    report = Report()
    user_target = None
    if settings.target:
        resolved = catalog.target(settings.target)
        user_target = resolved.releases
        if resolved.note:
            report.notes.append(resolved.note)
    items = _read(paths, settings, report)
    if settings.jobs != 1:
        items = _in_parallel(list(items), settings, user_target)
    for item in items:
        if isinstance(item, str):
            report.notes.append(item)
            continue
        name, kind, text, part = item
        if part is None:
            found = lint_text(name, kind, text, user_target, report, settings.policies)
        else:
            found = part.findings
            _absorb(report, part)
        # A file without findings still reaches the filter stage if a suppression in it may be
        # unused.
        if found or mentions(text):
            report.sources[name] = text
            report.findings.extend(found)
    _lint_config_refs(report, user_target, settings)
    report.findings = filter_findings(report.findings, report.sources, settings)
    report.findings.sort(key=lambda f: (f.path, f.span.start, f.code, f.message))
    if user_target is None and not report.targets:
        report.targets.add(catalog.newest())
    if report.defaulted_target:
        report.notes.insert(
            0,
            f"no target release given or pinned: checked against the newest known, vLLM "
            f"{catalog.newest()} (use --target-version)",
        )
    return report


# A file to lint (name, kind, text, and its results when a worker linted it) or a note.
_Item: TypeAlias = "str | tuple[str, str, str, Report | None]"


def _read(paths: Sequence[str], settings: Settings, report: Report) -> Iterator[_Item]:
    """Every file of ``paths`` that may launch vLLM, in order, with a note for each skipped one;
    the byte prefilter and the kind (name and bytes only) come before any decoding or parsing."""
    import os
    import stat

    from vlint.discover import kind_of, prefilter

    for path in _expand(paths, settings):
        if path == "-":
            name = settings.stdin_filename or "-"
            # Under a C locale Python reads undecodable stdin bytes as lone surrogates: give the
            # bytes back, so that they are "not UTF-8" as they would be in a file.
            data = (settings.stdin_text or "").encode("utf-8", "surrogateescape")
        else:
            name = path
            try:
                if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block the read
                    yield f"{path}: skipped (not a regular file)"
                    continue
                with open(path, "rb") as handle:
                    data = handle.read(settings.max_file_size + 1)
            except OSError as error:
                yield f"{path}: skipped ({error.strerror or error})"
                continue
            if len(data) > settings.max_file_size:
                report.files += 1
                if prefilter(data, name) and kind_of(name, data) is not None:
                    yield (f"{path}: skipped (larger than vlint's maximum file size, "
                           f"{settings.max_file_size:,} bytes)")
                continue
        report.files += 1
        if not prefilter(data, name):
            continue
        kind = kind_of(name, data)
        if kind is None:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            yield f"{name}: skipped (not UTF-8)"
            continue
        yield name, kind, text, None


# The fewest launching files a worker gets when the number is chosen: a second process costs
# about 0.1 s of CPU (the fork, a cold catalog and caches, sending the findings back), about
# what 30-40 such files take to lint, so with 64 each the split pays where the CPUs are free
# (on a machine already busy it gains nothing; ``--jobs 1`` then saves that CPU).
FILES_PER_WORKER = 64
_WORK: tuple[list[tuple[str, str, str]], Sequence[Version] | None, Sequence[Policy]] | None = None


def _workers(requested: int, files: int) -> int:
    """How many processes lint ``files`` files: ``requested`` (0: one per available CPU, while
    each has ``FILES_PER_WORKER`` files), never more than the files; 1 where processes cannot
    be forked (they inherit the loaded modules and catalog instead of importing them again)."""
    import os

    wanted = min(requested, files) if requested else files // FILES_PER_WORKER
    if wanted <= 1:
        return wanted
    import multiprocessing
    import sys

    # Forked workers start at once with everything loaded; fork is safe on Linux only (macOS
    # system libraries may crash in a forked child, Windows has none).
    forks = sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()
    if not forks:
        return 1
    if requested:
        return wanted
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(cpus or 1, wanted)


def _in_parallel(
    items: list[_Item], settings: Settings, user_target: Sequence[Version] | None
) -> Iterator[_Item]:
    """``items`` with each file linted by a worker, in the same order (so the report is the one
    a single process makes); contiguous chunks, several per worker to even out their load."""
    global _WORK
    files = [item[:3] for item in items if not isinstance(item, str)]
    jobs = _workers(settings.jobs, len(files))
    if jobs <= 1:
        yield from items
        return
    import multiprocessing

    size = -(-len(files) // (jobs * 4))
    chunks = [(start, min(start + size, len(files))) for start in range(0, len(files), size)]
    _WORK = (files, user_target, settings.policies)
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            parts = (part for chunk in pool.imap(_lint_chunk, chunks) for part in chunk)
            for item in items:
                yield item if isinstance(item, str) else (*item[:3], next(parts))
    finally:
        _WORK = None


def _lint_chunk(bounds: tuple[int, int]) -> list[Report]:
    """In a worker: each file of the chunk linted into a report of its own."""
    assert _WORK is not None
    files, user_target, policies = _WORK
    parts = []
    for name, kind, text in files[bounds[0] : bounds[1]]:
        part = Report()
        part.findings = lint_text(name, kind, text, user_target, part, policies)
        part.launches = []
        parts.append(part)
    return parts


def _absorb(report: Report, part: Report) -> None:
    """Add what linting one file left in ``part`` (all but its findings) to ``report``, as
    linting it into ``report`` would have (lint_text makes every note with ``_note_once``)."""
    report.invocations += part.invocations
    report.targets |= part.targets
    report.defaulted_target |= part.defaulted_target
    report.configs_linted |= part.configs_linted
    for config, invocation in part.config_refs.items():
        report.config_refs.setdefault(config, invocation)
    for note in part.notes:
        _note_once(report, note)


def _expand(paths: Sequence[str], settings: Settings) -> Iterable[str]:
    from vlint.discover import walk
    from vlint.globs import matcher

    excluded = matcher(settings.config_dir or ".", settings.exclude) if settings.exclude else None
    for path in paths:
        if path == "-":
            yield path
        else:
            yield from walk([path], excluded)


def lint_text(
    path: str,
    kind: str,
    text: str,
    user_target: Sequence[Version] | None,
    report: Report,
    policies: Sequence[Policy] = (),
) -> list[Finding]:
    from vlint.extract import Unparsable, extractor
    from vlint.fix import agreed_fixes

    findings: list[Finding] = []
    try:
        invocations = extractor(kind).extract(path, text)
    except Unparsable as problem:
        return [_unparsable(path, kind, problem)]
    _note_config_refs(path, kind, invocations, report)
    for invocation in invocations:
        report.invocations += 1
        releases = _releases_for(invocation, user_target, report)
        report.targets.update(releases)
        report.launches.append((invocation, tuple(releases)))
        checked = check_invocation(invocation, releases, policies)
        findings.extend(agreed_fixes(checked, releases))
    return _merge(findings)


def _note_config_refs(
    path: str, kind: str, invocations: Sequence[Invocation], report: Report
) -> None:
    import os

    from vlint.extract.vllm_config import KIND, referenced

    if kind == KIND:
        report.configs_linted.add(os.path.normpath(path))
    for invocation in invocations:
        config = referenced(invocation, path)
        if config is not None:
            report.config_refs.setdefault(config, invocation)


def _lint_config_refs(report: Report, user_target: Sequence[Version] | None,
                      settings: Settings) -> None:
    """Lint each vLLM --config file an invocation names, once, as that invocation's config."""
    import os
    import stat

    from vlint.extract.vllm_config import KIND, referenced_by

    done: set[str] = set()
    while len(done) < len(report.config_refs):
        config, invocation = next(i for i in report.config_refs.items() if i[0] not in done)
        done.add(config)
        if os.path.normpath(config) in report.configs_linted:
            continue
        try:
            # A config may name any path (/dev/zero, a FIFO): read regular files, and not
            # more than the maximum file size.
            if not stat.S_ISREG(os.stat(config).st_mode):
                continue
            with open(config, "rb") as handle:
                data = handle.read(settings.max_file_size + 1)
            if len(data) > settings.max_file_size:
                continue
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        report.files += 1
        with referenced_by(invocation):
            found = lint_text(config, KIND, text, user_target, report, settings.policies)
        report.sources[config] = text
        report.findings.extend(found)


def _unparsable(path: str, kind: str, problem: Unparsable) -> Finding:
    from vlint.checks.base import rule_finding
    from vlint.checks.unparsable_file import RULE

    end = Pos(problem.where.line, problem.where.column + 1)
    return rule_finding(
        RULE,
        path,
        Span(problem.where, end),
        f"{problem.message}; vlint could not check this {kind} file",
        "fix the syntax; nothing in this file was linted",
    )


def _releases_for(
    invocation: Invocation, user_target: Sequence[Version] | None, report: Report
) -> Sequence[Version]:
    if user_target is not None:
        return user_target
    if invocation.target is not None:
        from vlint.extract.argv import LATEST

        where = f"{invocation.path}:{invocation.anchor.start.line}"
        if invocation.target == LATEST:
            _note_once(report, f"{where}: the image tag means the latest vLLM release; checked "
                               f"as {catalog.newest()}, the newest vlint knows (pin the tag)")
            return (catalog.newest(),)
        return _pinned(invocation.target, report, f"{where}: image pins vLLM "
                       f"{invocation.target}", f"{where}: image tag")
    pinned_by_project = _project_releases(invocation.path, report)
    if pinned_by_project is not None:
        return pinned_by_project
    report.defaulted_target = True
    return (catalog.newest(),)


def _project_releases(path: str, report: Report) -> Sequence[Version] | None:
    """The releases the project's own pins name (lock, requirements, pyproject), if any."""
    from vlint.pins import pinned_specifier

    specifier = pinned_specifier(path)
    if specifier is None:
        return None
    pins = f"{path}: the project pins vllm{specifier}"
    return _pinned(specifier, report, pins, pins)


def _pinned(text: str, report: Report, pins: str, noted: str) -> Sequence[Version]:
    """The known releases a pin names; none (with a note) when the catalog does not cover it,
    since judging a pinned old release by another release's flags gives false errors."""
    try:
        resolved = catalog.target(text)
    except catalog.UnknownTarget:
        _note_once(report, f"{pins}, which this catalog does not cover "
                           f"({catalog.known_range()}); not checked (pass --target-version to "
                           "check it against a known release)")
        return ()
    if resolved.note:
        _note_once(report, f"{noted}: {resolved.note}")
    return resolved.releases


def _note_once(report: Report, note: str) -> None:
    if note not in report.notes:
        report.notes.append(note)


def check_invocation(
    invocation: Invocation, releases: Sequence[Version], policies: Sequence[Policy] = ()
) -> list[Finding]:
    from vlint.checks import all_rules
    from vlint.checks.base import Context
    from vlint.normalise import resolve

    findings: list[Finding] = []
    for version in releases:
        resolution = resolve(invocation, catalog.load(version))
        context = Context(resolution)
        if resolution.parser is None:
            from vlint.checks.flag_not_yet_available import missing_entry

            findings.extend(missing_entry(context))
            continue
        for rule in all_rules():
            findings.extend(rule.check(context))
        if policies:
            from vlint.policy_check import evaluate

            findings.extend(evaluate(policies, resolution))
    return findings


def _merge(findings: list[Finding]) -> list[Finding]:
    """One finding per problem, listing every targeted release it applies to.

    Messages name their release (``... in vLLM 0.32.0``); findings that differ only by that
    release are one problem, and the merged message names the releases together.
    """
    from dataclasses import replace

    groups: dict[tuple[str, Span, str, str, str], list[Finding]] = {}
    for finding in findings:
        (version,) = finding.vllm_versions
        marker = f"vLLM {version}"
        key = (
            finding.code, finding.span, finding.severity,
            finding.message.replace(marker, "\0"), finding.help.replace(marker, "\0"),
        )
        groups.setdefault(key, []).append(finding)
    merged: list[Finding] = []
    for (_, _, _, message, help_text), group in groups.items():
        versions = sorted({v for f in group for v in f.vllm_versions}, key=Version)
        label = "vLLM " + _release_list(versions)
        merged.append(
            replace(
                group[0],
                message=message.replace("\0", label),
                help=help_text.replace("\0", label),
                vllm_versions=tuple(versions),
            )
        )
    return merged


def _release_list(versions: Sequence[str]) -> str:
    if len(versions) <= 2:
        return " and ".join(versions)
    known = [str(v) for v in catalog.known_releases()]
    first, last = known.index(versions[0]), known.index(versions[-1])
    if known[first : last + 1] == list(versions):
        return f"{versions[0]} to {versions[-1]}"
    return ", ".join(versions)

