"""One file linted: extract, choose the releases, normalise, check, agree on fixes, merge.

``lint_file`` gives the findings before the filter stage, as a value: the run (or ``show``,
``confirm``, an editor server) decides what to do with them.  An error inside vlint while
linting the file, or running past its time budget, gives one VL003 finding instead.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING

from packaging.version import Version

from vlint import checks, target
from vlint.checks import (
    flag_not_yet_available, gpu_memory_oversubscribed, internal_error, leaderworkerset_mismatch,
    module_not_shipped, service_link_vllm_port, unparsable_file, unread_launch,
)
from vlint.checks.base import Context, rule_finding
from vlint.discover import Source
from vlint.engine.agree import agreed_fixes
from vlint.engine.merge import merge
from vlint.engine.report import FileResult, Launch
from vlint.errors import Unparsable
from vlint.extract import config_refs, extractor, model_files
from vlint.knowledge import catalog
from vlint.model import Finding, Invocation, Pos, Span
from vlint.normalise import resolution
from vlint.settings import FILE_TIME_BUDGET, LIVENESS_BUDGET, Settings

if TYPE_CHECKING:
    from vlint.policy.policies import Policy


class _Failed(Exception):
    """An error inside vlint while it linted one file, with the stage (and rule) it came from."""

    def __init__(self, stage: str, error: Exception, rule: str | None = None) -> None:
        super().__init__(stage)
        self.stage, self.error, self.rule = stage, error, rule


class _Overran(BaseException):
    """A file's time budget ran out.  Not an Exception, so that no ``except Exception`` in the
    pipeline takes it for an error of its own and carries on."""


def lint_file(
    source: Source,
    settings: Settings,
    releases: Sequence[Version] | None = None,
    *,
    budget: float | None = None,
    reraise: bool = False,
) -> FileResult:
    """The findings of one file before the filter stage, and what the run learns from it.

    ``releases``: the user's target, resolved (None: ``settings.target``'s, if any); ``budget``:
    seconds before the file is given up as VL003 (None: the settings' time budget, else
    FILE_TIME_BUDGET); ``reraise`` raises an error inside vlint (tests looking for its bugs).
    """
    notes: tuple[str, ...] = ()
    if releases is None and settings.target:
        chosen = target.user_target(settings.target)
        releases, notes = chosen.releases, chosen.notes
    if budget is None:
        budget = FILE_TIME_BUDGET if settings.time_budget is None else settings.time_budget
    result = _guarded(source, releases, settings, budget, reraise)
    return replace(result, notes=notes + result.notes) if notes else result


def _guarded(source: Source, releases: Sequence[Version] | None, settings: Settings,
             budget: float, reraise: bool) -> FileResult:
    done = _Progress(source.path)
    try:
        with _time_budget(budget):
            return _lint(source, releases, settings, done)
    except _Overran:
        return done.result((internal_error.overran(source.path, budget),))
    except Exception as error:
        failure = error if isinstance(error, _Failed) else _Failed("lint", error)
        if reraise:
            raise failure.error from None
        finding = internal_error.crashed(source.path, failure.stage, failure.error, failure.rule)
        return done.result((finding,))


class _Progress:
    """What linting one file has learnt so far: a file that fails keeps its notes, targets and
    invocations, as the findings it had are replaced by one VL003."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.invocations = 0
        self.launch_kinds: list[str] = []
        self.launches: list[Launch] = []
        self.notes: list[str] = []
        self.defaulted = False
        self.config_refs: dict[str, Invocation] = {}
        self.config_linted: str | None = None

    def result(self, findings: Sequence[Finding]) -> FileResult:
        return FileResult(
            self.path, tuple(findings), tuple(self.launches), self.invocations,
            tuple(self.notes), tuple(self.config_refs.items()),
            frozenset(v for _, releases in self.launches for v in releases), self.defaulted,
            self.config_linted, tuple(self.launch_kinds))


def _lint(source: Source, given: Sequence[Version] | None, settings: Settings,
          done: _Progress) -> FileResult:
    path, kind = source.path, source.kind
    try:
        invocations = [model_files.attach(invocation, path)
                       for invocation in extractor(kind).extract(path, source.text)]
        if kind == config_refs.KIND:
            done.config_linted = os.path.normpath(path)
        for invocation in invocations:
            config = config_refs.referenced(invocation, path)
            if config is not None:
                done.config_refs.setdefault(config, invocation)
    except Unparsable as problem:
        return done.result((_unparsable(path, kind, problem),))
    except Exception as error:
        raise _Failed("extract", error) from error
    try:
        whole_file = unread_launch.unread(path, kind, source.text, invocations)
    except Exception as error:
        raise _Failed("extract", error, unread_launch.RULE.code) from error
    try:
        whole_file += service_link_vllm_port.exposed(path, kind, source.text)
    except Exception as error:
        raise _Failed("extract", error, service_link_vllm_port.RULE.code) from error
    findings: list[Finding] = []
    for index, invocation in enumerate(invocations):
        done.invocations += 1
        done.launch_kinds.append(invocation.kind)
        try:
            chosen = target.releases_for(invocation, given)
        except Exception as error:
            raise _Failed("target", error) from error
        done.notes.extend(n for n in chosen.notes if n not in done.notes)
        done.defaulted |= chosen.defaulted
        done.launches.append((invocation, chosen.releases))
        found = check_invocation(invocation, chosen.releases, settings.policies,
                                 settings.liveness_budget)
        checked = [replace(finding, invocation=index) for finding in _own(invocation, found)]
        try:
            findings.extend(agreed_fixes(checked, chosen.releases))
        except Exception as error:
            raise _Failed("fix", error) from error
    across: list[Finding] = []
    for rule, check in ((gpu_memory_oversubscribed.RULE, gpu_memory_oversubscribed.shared),
                        (leaderworkerset_mismatch.RULE, leaderworkerset_mismatch.mismatched)):
        try:
            across.extend(merge(check(path, done.launches)))
        except Exception as error:
            raise _Failed("check", error, rule.code) from error
    return done.result([*merge(findings), *whole_file, *across])


def _own(invocation: Invocation, findings: Sequence[Finding]) -> list[Finding]:
    """The findings this file reports: not those at the place of words another linted file
    holds (``Invocation.borrowed_at``), which that file reports; related places there are
    dropped."""
    borrowed = invocation.borrowed_at
    if borrowed is None:
        return list(findings)
    here = Span(borrowed, borrowed)
    return [
        replace(finding, related=tuple(r for r in finding.related if r.span != here))
        for finding in findings
        if finding.span != here
    ]


@contextmanager
def _time_budget(seconds: float) -> Iterator[None]:
    """Raise _Overran in the block after ``seconds``; where SIGALRM cannot be used (another
    thread, Windows) the block runs unbounded."""
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


def check_invocation(
    invocation: Invocation, releases: Sequence[Version], policies: Sequence[Policy] = (),
    liveness_budget: int = LIVENESS_BUDGET,
) -> list[Finding]:
    """The findings of the rules (and ``policies``) for one invocation, release by release."""
    findings: list[Finding] = []
    for version in releases:
        try:
            resolved = resolution.resolve(invocation, catalog.load(version))
        except Exception as error:
            raise _Failed("normalise", error) from error
        context = Context(resolved, liveness_budget)
        code = None  # the rule running
        try:
            if resolved.parser is None:
                code = flag_not_yet_available.RULE.code
                findings.extend(flag_not_yet_available.missing_entry(context))
                code = module_not_shipped.RULE.code
                findings.extend(module_not_shipped.check(context))
                continue
            for rule in checks.invocation_checks():
                code = rule.RULE.code
                findings.extend(rule.check(context))
        except Exception as error:
            raise _Failed("check", error, code) from error
        if policies:
            from vlint.policy import evaluate  # lazy: only runs whose configuration has policies

            try:
                findings.extend(evaluate.evaluate(policies, resolved))
            except Exception as error:
                raise _Failed("policy", error) from error
    return findings


def _unparsable(path: str, kind: str, problem: Unparsable) -> Finding:
    end = Pos(problem.where.line, problem.where.column + 1)
    return rule_finding(
        unparsable_file.RULE,
        path,
        Span(problem.where, end),
        f"{problem.message}; vlint could not check this {kind} file",
        "fix the syntax; nothing in this file was linted",
    )
