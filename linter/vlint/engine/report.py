"""What the engine returns: one file's result, and a run's report."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from packaging.version import Version

from vlint.model import SEVERITY_RANK, Finding, Invocation, Severity

if TYPE_CHECKING:
    from pathlib import Path

# One invocation with the releases it was checked against.
Launch = tuple[Invocation, tuple[Version, ...]]


@dataclass(frozen=True)
class FileResult:
    """One file linted: its findings before the filter stage and what the run learns from it."""

    path: str
    findings: tuple[Finding, ...]
    # Every invocation with its releases; empty when a worker linted the file (the parent has
    # no use for the tokens: only ``vlint confirm`` reads them, and it lints in one process).
    launches: tuple[Launch, ...] = ()
    invocations: int = 0
    notes: tuple[str, ...] = ()
    # The vLLM --config files the invocations name, each with the first naming invocation.
    config_refs: tuple[tuple[str, Invocation], ...] = ()
    targets: frozenset[Version] = frozenset()
    defaulted_target: bool = False
    # The file's normalised path when it is a vLLM --config file itself.
    config_linted: str | None = None
    # The kind of each invocation's file (``Invocation.kind``), in order: workers send these.
    launch_kinds: tuple[str, ...] = ()


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
    launches: list[Launch] = field(default_factory=list)
    # Each reported file's exit-1 threshold (its settings' ``fail_on``).
    fail_on: dict[str, Severity] = field(default_factory=dict)
    # How many invocations were linted in files of each kind (``compose``, ``shell``...).
    invocations_by_kind: dict[str, int] = field(default_factory=dict)

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def failed(self, threshold: Severity | None = None) -> bool:
        """Whether a finding reaches ``threshold``, or else its own file's threshold."""
        return any(
            SEVERITY_RANK[f.severity]
            >= SEVERITY_RANK[threshold or self.fail_on.get(f.path, "warning")]
            for f in self.findings
        )

    def absorb(self, result: FileResult) -> None:
        """Add what linting one file gave (all but its findings, which wait for the filter)."""
        self.invocations += result.invocations
        for kind in result.launch_kinds:
            self.invocations_by_kind[kind] = self.invocations_by_kind.get(kind, 0) + 1
        self.targets |= result.targets
        self.defaulted_target |= result.defaulted_target
        self.launches.extend(result.launches)
        if result.config_linted is not None:
            self.configs_linted.add(result.config_linted)
        for config, invocation in result.config_refs:
            self.config_refs.setdefault(config, invocation)
        self.note(*result.notes)

    def note(self, *notes: str) -> None:
        """Add each note not already made."""
        for note in notes:
            if note not in self.notes:
                self.notes.append(note)


def kinds_by_count(counts: dict[str, int]) -> list[tuple[str, int]]:
    """Each kind with its count, the most frequent first (then by name)."""
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def sort_findings(findings: Sequence[Finding]) -> list[Finding]:
    """The order every output lists findings in."""
    return sorted(findings, key=lambda f: (f.path, f.span.start, f.code, f.message))
