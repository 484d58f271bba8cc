"""The pipeline: discover, extract, normalise, check, filter.  Pure: no printing, no exits."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from packaging.version import Version

from vlint import catalog

if TYPE_CHECKING:
    from vlint.extract import Unparsable
    from vlint.policy import Policy
from vlint.model import SEVERITY_RANK, Finding, Invocation, Pos, Severity, Span


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
    from vlint.discover import kind_of, prefilter
    from vlint.filtering import filter_findings
    from vlint.suppress import mentions

    user_target = catalog.resolve_target(settings.target) if settings.target else None
    report = Report()
    for path in _expand(paths, settings):
        if path == "-":
            name = settings.stdin_filename or "-"
            data = (settings.stdin_text or "").encode("utf-8")
        else:
            name = path
            try:
                with open(path, "rb") as handle:
                    data = handle.read()
            except OSError as error:
                report.notes.append(f"{path}: skipped ({error.strerror or error})")
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
            report.notes.append(f"{name}: skipped (not UTF-8)")
            continue
        found = lint_text(name, kind, text, user_target, report, settings.policies)
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

    from vlint.extract.vllm_config import KIND, referenced_by

    done: set[str] = set()
    while len(done) < len(report.config_refs):
        config, invocation = next(i for i in report.config_refs.items() if i[0] not in done)
        done.add(config)
        if os.path.normpath(config) in report.configs_linted:
            continue
        try:
            with open(config, encoding="utf-8") as handle:
                text = handle.read()
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
        pinned = Version(invocation.target)
        if pinned in catalog.known_releases():
            return (pinned,)
        # Judging a pinned old release by another release's flags gives false errors.
        report.notes.append(
            f"{invocation.path}:{invocation.anchor.start.line}: image pins vLLM {pinned}, which "
            f"this catalog does not cover ({catalog.known_range()}); not checked (pass "
            "--target-version to check it against a known release)"
        )
        return ()
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
    try:
        return catalog.resolve_target(specifier)
    except catalog.UnknownTarget:
        note = (
            f"{path}: the project pins vllm{specifier}, which this catalog does not cover "
            f"({catalog.known_range()}); not checked (pass --target-version to check it)"
        )
        if note not in report.notes:
            report.notes.append(note)
        return ()


def check_invocation(
    invocation: Invocation, releases: Sequence[Version], policies: Sequence[Policy] = ()
) -> list[Finding]:
    from vlint.checks import all_rules
    from vlint.checks.base import Context
    from vlint.normalise import resolve

    findings: list[Finding] = []
    for version in releases:
        resolution = resolve(invocation, catalog.load(version))
        if resolution.parser is None:
            continue
        context = Context(resolution)
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

