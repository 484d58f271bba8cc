"""The release merge: one finding per problem, listing every targeted release it applies to."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from packaging.version import Version

from vlint.checks.base import RELEASES
from vlint.knowledge.catalog import release_list
from vlint.model import Finding, Severity, Span

__all__ = ["merge"]


def merge(findings: Sequence[Finding]) -> list[Finding]:
    """Findings that differ only by their release are one problem.

    A rule checks each targeted release on its own and writes the release it was checked
    against as a placeholder (``vlint.checks.base.RELEASES``); the merged finding names its
    releases there (``vLLM 0.31.0 and 0.32.0``).  The order is that of each problem's first
    finding.
    """
    groups: dict[tuple[str, Span, Severity, str, str], list[Finding]] = {}
    for finding in findings:
        key = (finding.code, finding.span, finding.severity, finding.message, finding.help)
        groups.setdefault(key, []).append(finding)
    merged: list[Finding] = []
    for (_, _, _, message, help_text), group in groups.items():
        versions = sorted({v for f in group for v in f.vllm_versions}, key=Version)
        label = release_list(versions)
        merged.append(
            replace(
                group[0],
                message=message.replace(RELEASES, label),
                help=help_text.replace(RELEASES, label),
                vllm_versions=tuple(versions),
            )
        )
    return merged
