"""What every rule module shares: its metadata shape and the context it checks."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, Protocol

from vlint.model import Finding, Fix, Severity, Span
from vlint.normalise.resolution import Resolution

FixSafety = Literal["safe", "unsafe", "none"]


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: Severity
    since: str
    fix: FixSafety = "none"


class RuleModule(Protocol):
    """A module under ``vlint.checks``: user docs in ``__doc__``, ``RULE`` and ``check``."""

    __doc__: str | None
    RULE: Rule

    def check(self, context: Context) -> Iterable[Finding]: ...


@dataclass(frozen=True)
class Context:
    """One invocation as resolved by one release, and the way to report on it."""

    resolution: Resolution

    @property
    def release(self) -> str:
        return str(self.resolution.release)

    @property
    def path(self) -> str:
        return self.resolution.invocation.path

    def finding(
        self,
        rule: Rule,
        span: Span,
        message: str,
        help: str,
        *,
        severity: Severity | None = None,
        fix: Fix | None = None,
        alternative: Fix | None = None,
        redact: tuple[Span, ...] = (),
    ) -> Finding:
        return rule_finding(
            rule,
            self.path,
            span,
            message,
            help,
            severity=severity,
            vllm_versions=(self.release,),
            fix=fix,
            alternative=alternative,
            redact=redact,
        )


def rule_finding(
    rule: Rule,
    path: str,
    span: Span,
    message: str,
    help: str,
    *,
    severity: Severity | None = None,
    vllm_versions: tuple[str, ...] = (),
    fix: Fix | None = None,
    alternative: Fix | None = None,
    redact: tuple[Span, ...] = (),
) -> Finding:
    """A finding of ``rule``; the pipeline uses it directly for the rules only it can report."""
    return Finding(
        code=rule.code,
        name=rule.name,
        severity=severity or rule.severity,
        message=_bounded(message),
        help=_bounded(help),
        path=path,
        span=span,
        vllm_versions=vllm_versions,
        fix=fix,
        alternative=alternative,
        redact=redact,
    )


# A message or help line quotes what was written, which can be as long as the file: past this
# many characters it is elided (a rule quoting a value should elide it itself, more tightly).
TEXT_MAX = 1000


def _bounded(text: str) -> str:
    return text if len(text) <= TEXT_MAX else text[: TEXT_MAX - 1] + "…"


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    return _closest(word, tuple(choices))


@lru_cache(maxsize=4096)
def _closest(word: str, choices: tuple[str, ...]) -> str | None:
    # difflib compares the word with every choice (milliseconds); a repo repeats its mistakes.
    import difflib

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.75)
    return close[0] if close else None


CheckFunction = Callable[[Context], Iterator[Finding]]
