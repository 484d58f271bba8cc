"""The pipeline: discover, extract, normalise, check, filter.  Pure: no printing, no exits."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias

from packaging.version import Version

from vlint.knowledge import catalog

if TYPE_CHECKING:
    from pathlib import Path

    from vlint.errors import Unparsable
    from vlint.syntax.globs import PathMatcher
    from vlint.policy.policies import Policy
from vlint.model import SEVERITY_RANK, Finding, Invocation, Pos, Severity, Span
from vlint.settings import FILE_TIME_BUDGET, MAX_FILE_SIZE, STDIN_AS_SHELL, Settings


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
    # The folders this run may read (``discover.linted_roots`` of the paths linted).
    roots: tuple[Path, ...] = ()
    # Every invocation linted, with the releases it was checked against (``vlint confirm``).
    launches: list[tuple[Invocation, tuple[Version, ...]]] = field(default_factory=list)
    # Each reported file's exit-1 threshold (its settings' ``fail_on``).
    fail_on: dict[str, Severity] = field(default_factory=dict)

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def failed(self, threshold: Severity | None = None) -> bool:
        """Whether a finding reaches ``threshold``, or else its own file's threshold."""
        return any(
            SEVERITY_RANK[f.severity]
            >= SEVERITY_RANK[threshold or self.fail_on.get(f.path, "warning")]
            for f in self.findings
        )


def lint(paths: Sequence[str], settings: Settings) -> Report:
    """Lint ``paths`` (``-`` is standard input, given as ``settings.stdin_text``).

    Each file is linted and filtered with its own settings (``settings.per_file``); the files
    that share settings form a group, whose vLLM --config files are linted with them.
    """
    from vlint.discover import forget

    try:
        return _lint(paths, settings)
    finally:
        forget()  # the next run looks at the file system again


def _lint(paths: Sequence[str], settings: Settings) -> Report:
    from vlint.filter.suppress import mentions

    report = Report()
    groups: list[_Group] = []
    files = _grouped(_read(paths, settings, report), settings, report, groups)
    if settings.jobs != 1:
        files = _in_parallel(list(files), settings.jobs, groups)
    for file in files:
        if isinstance(file, str):
            report.notes.append(file)
            continue
        group = groups[file.group]
        named = len(report.config_refs)
        if file.part is None:
            found = lint_text(file.name, file.kind, file.text, group.releases, report,
                              group.settings.policies, group.settings.time_budget)
        else:
            found = file.part.findings
            _absorb(report, file.part)
        if len(report.config_refs) > named:
            group.configs.extend(list(report.config_refs)[named:])
        # A file without findings still reaches the filter stage if a suppression in it may be
        # unused.
        if found or mentions(file.text):
            group.sources[file.name] = file.text
            group.findings.extend(found)
    for group in groups:
        _finish(report, group)
    report.findings.sort(key=lambda f: (f.path, f.span.start, f.code, f.message))
    _note_not_fixed(report)
    targeted = settings.target or any(group.releases is not None for group in groups)
    if not targeted and not report.targets:
        report.targets.add(catalog.newest())
    if report.defaulted_target:
        report.notes.insert(
            0,
            f"no target release given or pinned: checked against the newest known, vLLM "
            f"{catalog.newest()} (use --target-version)",
        )
    return report


def _note_not_fixed(report: Report) -> None:
    from vlint.fix.apply import NOT_FIXED

    count = sum(1 for finding in report.findings if NOT_FIXED in finding.help)
    if count:
        fixes = "1 fix" if count == 1 else f"{count} fixes"
        report.notes.append(f"{fixes} not applied: the targeted releases disagree (each "
                            "finding's help says how; pick one with --target-version)")


@dataclass
class _Group:
    """The files linted with one Settings, and what they gave before the filter stage."""

    settings: Settings
    releases: Sequence[Version] | None  # the target the settings name, if they name one
    findings: list[Finding] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    configs: list[str] = field(default_factory=list)  # the vLLM --config files its files name


@dataclass(frozen=True)
class _File:
    """A file to lint, its group (an index into the run's groups), and its results when a
    worker linted it."""

    name: str
    kind: str
    text: str
    group: int
    part: Report | None = None


# A file read (name, kind, text) or a note.
_Item: TypeAlias = "str | tuple[str, str, str]"
_Entry: TypeAlias = "str | _File"


def _grouped(
    items: Iterable[_Item], settings: Settings, report: Report, groups: list[_Group]
) -> Iterator[_Entry]:
    """``items``, each file with the group of its own settings (added to ``groups``)."""
    index: dict[Settings, int] = {}
    targets: dict[str, Sequence[Version]] = {}

    def group_of(own: Settings) -> int:
        if own not in index:
            releases = None
            if own.target:
                if own.target not in targets:
                    targets[own.target] = _user_target(own.target, report)
                releases = targets[own.target]
            index[own] = len(groups)
            groups.append(_Group(own, releases))
        return index[own]

    if settings.per_file is None:
        group_of(settings)
    elif settings.target:
        targets[settings.target] = _user_target(settings.target, report)
    for item in items:
        if isinstance(item, str):
            yield item
            continue
        name, kind, text = item
        own = settings if settings.per_file is None else settings.per_file(name)
        yield _File(name, kind, text, group_of(own))


def _user_target(target: str, report: Report) -> Sequence[Version]:
    resolved = catalog.target(target)
    if resolved.note:
        _note_once(report, resolved.note)
    return resolved.releases


def _finish(report: Report, group: _Group) -> None:
    """Lint the vLLM --config files the group's files name, then filter its findings with its
    settings, into ``report``."""
    from vlint.filter.selection import filter_findings

    if group.configs:
        # Shares the run's set of linted configs: each is linted once, by its first group.
        scratch = Report(config_refs={c: report.config_refs[c] for c in group.configs},
                         configs_linted=report.configs_linted, roots=report.roots)
        _lint_config_refs(scratch, group.releases, group.settings)
        report.files += scratch.files
        report.launches.extend(scratch.launches)
        _absorb(report, scratch)
        group.sources.update(scratch.sources)
        group.findings.extend(scratch.findings)
    report.findings.extend(filter_findings(group.findings, group.sources, group.settings))
    report.sources.update(group.sources)
    for path in group.sources:
        report.fail_on[path] = group.settings.fail_on


def _read(paths: Sequence[str], settings: Settings, report: Report) -> Iterator[_Item]:
    """Every file of ``paths`` that may launch vLLM, in order, with a note for each skipped one;
    the byte prefilter and the kind (name and bytes only) come before any decoding or parsing.

    Files are read only inside the linted roots (``discover.confined_read``): a symlink found
    in a walked folder that leads out of the repository is skipped with a note, never read.
    """
    from vlint.discover import (
        Refused, TooLarge, confined_read, ignore_notes, kind_of, linted_roots, prefilter,
    )

    given = [(settings.stdin_filename or "-") if path == "-" else path for path in paths]
    report.roots = linted_roots(given)
    noted: set[str] = set()
    for path in dict.fromkeys(paths):
        yield from ignore_notes(path) if path != "-" else ()
    for path in _expand(paths, settings):
        if path == "-":
            name = settings.stdin_filename or "-"
            # Under a C locale Python reads undecodable stdin bytes as lone surrogates: give the
            # bytes back, so that they are "not UTF-8" as they would be in a file.
            data = (settings.stdin_text or "").encode("utf-8", "surrogateescape")
        else:
            name = path
            try:
                data = confined_read(path, report.roots, settings.max_file_size)
            except TooLarge as refused:
                report.files += 1
                if prefilter(refused.head, name) and kind_of(name, refused.head) is not None:
                    yield f"{path}: skipped ({refused.reason})"
                continue
            except Refused as refused:
                yield f"{path}: skipped ({refused.reason})"
                continue
        report.files += 1
        if not prefilter(data, name):
            continue
        kind = kind_of(name, data)
        unnamed = path == "-" and settings.stdin_filename in (None, "-")
        if kind is None and not unnamed:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            yield f"{name}: skipped (not UTF-8)"
            continue
        if kind is None:
            kind = "shell"
            yield STDIN_AS_SHELL
        if kind == "compose":
            yield from _dotenv_note(name, noted)
        yield name, kind, text


def _dotenv_note(compose: str, noted: set[str]) -> Iterator[str]:
    """The note for the ``.env`` beside a compose file that vlint could not read (whole), once."""
    from vlint.extract.compose import dotenv_beside

    env, dotenv = dotenv_beside(compose)
    if dotenv.problem is not None and env not in noted:
        noted.add(env)
        yield f"{env}: {dotenv.problem}"


# The fewest launching files a worker gets when the number is chosen: a second process costs
# about 0.1 s of CPU (the fork, a cold catalog and caches, sending the findings back), about
# what 30-40 such files take to lint, so with 64 each the split pays where the CPUs are free
# (on a machine already busy it gains nothing; ``--jobs 1`` then saves that CPU).
FILES_PER_WORKER = 64
# What the workers lint: the files, and each group's target, policies and time budget.
_GroupWork: TypeAlias = "tuple[Sequence[Version] | None, Sequence[Policy], float | None]"
_WORK: tuple[list[_File], list[_GroupWork]] | None = None


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


def _in_parallel(entries: list[_Entry], requested: int, groups: list[_Group]) -> Iterator[_Entry]:
    """``entries`` with each file linted by a worker, in the same order (so the report is the
    one a single process makes); contiguous chunks, several per worker to even out their load."""
    global _WORK
    from dataclasses import replace

    files = [entry for entry in entries if not isinstance(entry, str)]
    jobs = _workers(requested, len(files))
    if jobs <= 1:
        yield from entries
        return
    import multiprocessing

    size = -(-len(files) // (jobs * 4))
    chunks = [(start, min(start + size, len(files))) for start in range(0, len(files), size)]
    _WORK = (files, [(g.releases, g.settings.policies, g.settings.time_budget) for g in groups])
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            parts = (part for chunk in pool.imap(_lint_chunk, chunks) for part in chunk)
            for entry in entries:
                yield entry if isinstance(entry, str) else replace(entry, part=next(parts))
    finally:
        _WORK = None


def _lint_chunk(bounds: tuple[int, int]) -> list[Report]:
    """In a worker: each file of the chunk linted into a report of its own."""
    assert _WORK is not None
    files, groups = _WORK
    parts = []
    for file in files[bounds[0] : bounds[1]]:
        releases, policies, budget = groups[file.group]
        part = Report()
        part.findings = lint_text(file.name, file.kind, file.text, releases, part, policies,
                                  budget)
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
    """The files of ``paths``, each once however often it is given (twice, as ``./x`` and
    ``x``, or by a folder that holds it): the first spelling wins."""
    import os

    from vlint.discover import walk

    excluded = _excluded(settings)
    seen: set[str] = set()
    for path in dict.fromkeys(paths):
        for each in [path] if path == "-" else walk([path], excluded):
            key = each if each == "-" else os.path.normpath(os.path.abspath(each))
            if key not in seen:
                seen.add(key)
                yield each


def _excluded(settings: Settings) -> PathMatcher | None:
    """Whether a walked path is excluded: by the ``exclude`` of the settings of the folder it is
    in, with ``per_file``."""
    per_file = settings.per_file
    if per_file is None:
        return _exclude_matcher(settings.config_dir or ".", settings.exclude)

    def excluded(path: str | Path, is_dir: bool) -> bool:
        own = per_file(str(path))
        match = _exclude_matcher(own.config_dir or ".", own.exclude)
        return match is not None and match(path, is_dir)

    return excluded


_MATCHERS: dict[tuple[str, tuple[str, ...]], PathMatcher] = {}


def _exclude_matcher(root: str, patterns: tuple[str, ...]) -> PathMatcher | None:
    from vlint.syntax.globs import matcher

    if not patterns:
        return None
    if (root, patterns) not in _MATCHERS:
        _MATCHERS[root, patterns] = matcher(root, patterns)
    return _MATCHERS[root, patterns]


class _Failed(Exception):
    """An error inside vlint while it linted one file, with the stage (and rule) it came from."""

    def __init__(self, stage: str, error: Exception, rule: str | None = None) -> None:
        super().__init__(stage)
        self.stage, self.error, self.rule = stage, error, rule


class _Overran(BaseException):
    """A file's time budget ran out.  Not an Exception, so that no ``except Exception`` in the
    pipeline takes it for an error of its own and carries on."""


def lint_text(
    path: str,
    kind: str,
    text: str,
    user_target: Sequence[Version] | None,
    report: Report,
    policies: Sequence[Policy] = (),
    budget: float | None = None,
    *,
    reraise: bool = False,
) -> list[Finding]:
    """The findings of one file, before the filter stage.  An error inside vlint while linting
    it, or running past ``budget`` seconds (None: FILE_TIME_BUDGET), gives one VL003 finding
    instead, and the run goes on; ``reraise`` raises the error (tests looking for vlint's bugs).
    """
    from vlint.checks import internal_error

    limit = FILE_TIME_BUDGET if budget is None else budget
    try:
        with _time_budget(limit):
            return _lint_file(path, kind, text, user_target, report, policies)
    except _Overran:
        return [internal_error.overran(path, limit)]
    except Exception as error:
        failure = error if isinstance(error, _Failed) else _Failed("lint", error)
        if reraise:
            raise failure.error from None
        return [internal_error.crashed(path, failure.stage, failure.error, failure.rule)]


@contextmanager
def _time_budget(seconds: float) -> Iterator[None]:
    """Raise _Overran in the block after ``seconds``; where SIGALRM cannot be used (another
    thread, Windows) the block runs unbounded."""
    import signal
    import threading

    if (seconds <= 0 or not hasattr(signal, "setitimer")
            or threading.current_thread() is not threading.main_thread()):
        yield
        return

    def overran(signum: int, frame: object) -> None:
        raise _Overran

    previous = signal.signal(signal.SIGALRM, overran)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _lint_file(
    path: str,
    kind: str,
    text: str,
    user_target: Sequence[Version] | None,
    report: Report,
    policies: Sequence[Policy],
) -> list[Finding]:
    from vlint.extract import extractor
    from vlint.errors import Unparsable
    from vlint.fix.apply import agreed_fixes

    findings: list[Finding] = []
    try:
        invocations = extractor(kind).extract(path, text)
        _note_config_refs(path, kind, invocations, report)
    except Unparsable as problem:
        return [_unparsable(path, kind, problem)]
    except Exception as error:
        raise _Failed("extract", error) from error
    for invocation in invocations:
        report.invocations += 1
        try:
            releases = _releases_for(invocation, user_target, report)
        except Exception as error:
            raise _Failed("target", error) from error
        report.targets.update(releases)
        report.launches.append((invocation, tuple(releases)))
        checked = check_invocation(invocation, releases, policies)
        try:
            findings.extend(agreed_fixes(checked, releases))
        except Exception as error:
            raise _Failed("fix", error) from error
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
    """Lint each vLLM --config file an invocation names, once, as that invocation's config.

    A config may name any path (``/proc/self/environ``, ``../../secrets.yaml``, a FIFO, a
    symlink out): only regular files inside the linted roots are read; any other is skipped
    with a note, and a path that does not exist is left to vLLM.
    """
    import os

    from vlint.discover import Refused, confined_read, linted_roots
    from vlint.extract.vllm_config import KIND, referenced_by

    done: set[str] = set()
    while len(done) < len(report.config_refs):
        config, invocation = next(i for i in report.config_refs.items() if i[0] not in done)
        done.add(config)
        if os.path.normpath(config) in report.configs_linted or not os.path.lexists(config):
            continue
        roots = report.roots or linted_roots([invocation.path])
        try:
            text = confined_read(config, roots, settings.max_file_size).decode("utf-8")
        except Refused as refused:
            _note_once(report, f"{config}: skipped ({refused.reason})")
            continue
        except UnicodeDecodeError:
            _note_once(report, f"{config}: skipped (not UTF-8)")
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
    from vlint.target import pinned_specifier

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
    from vlint.normalise.resolution import resolve

    findings: list[Finding] = []
    for version in releases:
        try:
            resolution = resolve(invocation, catalog.load(version))
        except Exception as error:
            raise _Failed("normalise", error) from error
        context = Context(resolution)
        code = None  # the rule running
        try:
            if resolution.parser is None:
                from vlint.checks.flag_not_yet_available import RULE, missing_entry

                code = RULE.code
                findings.extend(missing_entry(context))
                continue
            for rule in all_rules():
                code = rule.RULE.code
                findings.extend(rule.check(context))
        except Exception as error:
            raise _Failed("check", error, code) from error
        if policies:
            from vlint.policy.evaluate import evaluate

            try:
                findings.extend(evaluate(policies, resolution))
            except Exception as error:
                raise _Failed("policy", error) from error
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
        label = "vLLM " + release_list(versions)
        merged.append(
            replace(
                group[0],
                message=message.replace("\0", label),
                help=help_text.replace("\0", label),
                vllm_versions=tuple(versions),
            )
        )
    return merged


def release_list(versions: Sequence[str]) -> str:
    """``0.31.0 and 0.32.0``, ``0.30.0 to 0.33.0`` (every known release between), or a list."""
    if len(versions) <= 2:
        return " and ".join(versions)
    known = [str(v) for v in catalog.known_releases()]
    first, last = known.index(versions[0]), known.index(versions[-1])
    if known[first : last + 1] == list(versions):
        return f"{versions[0]} to {versions[-1]}"
    return ", ".join(versions)

