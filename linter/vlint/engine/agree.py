"""Which fixes the targeted releases agree on.

A launch checked against several releases gets one finding per release; a fix is kept only where
every release's finding offers the same one, else the help says how the releases disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from packaging.version import Version

from vlint.knowledge.catalog import release_list
from vlint.model import Finding, Fix, Span

# Begins what a finding's help says of a fix the targeted releases disagree on.
NOT_FIXED = "not fixed: "


def agreed_fixes(findings: Sequence[Finding], releases: Sequence[Version]) -> list[Finding]:
    """Keep a fix only where every targeted release's finding offers the same one.

    ``findings`` are one invocation's, checked release by release against ``releases``.
    """
    wanted = {str(release) for release in releases}
    groups: dict[tuple[str, Span], list[Finding]] = {}
    for finding in findings:
        groups.setdefault((finding.code, finding.span), []).append(finding)
    # Per group, not per finding: aliased YAML repeats one token (one span) thousands of times.
    verdicts = {key: _agreement(group, wanted) for key, group in groups.items()}
    why = {key: _disagreement(group, releases) for key, group in groups.items()
           if not verdicts[key][0]}
    agreed: list[Finding] = []
    for finding in findings:
        key = (finding.code, finding.span)
        same_fix, same_alternative = verdicts[key]
        fix = finding.fix if same_fix else None
        alternative = finding.alternative if same_alternative else None
        reason = why.get(key)
        help_text = finding.help if reason is None else f"{finding.help}; {reason}"
        agreed.append(replace(finding, fix=fix, alternative=alternative, help=help_text))
    return agreed


def _disagreement(group: Sequence[Finding], releases: Sequence[Version]) -> str | None:
    """Why no fix is applied where the releases' findings offer different fixes (or only some
    releases have the finding): ``not fixed: 0.31.0 and 0.32.0 spell it '--no-x', 0.33.0
    '--disable-x'; pick one with --target-version``.  None when no release offers a fix."""
    by_fix: dict[Fix | None, list[str]] = {}
    for member in group:
        by_fix.setdefault(member.fix, []).extend(member.vllm_versions)
    if all(fix is None for fix in by_fix):
        return None
    covered = {version for versions in by_fix.values() for version in versions}
    missing = [str(r) for r in releases if str(r) not in covered]
    parts: list[str] = []
    for fix, versions in sorted(by_fix.items(), key=lambda item: min(map(Version, item[1]))):
        named = release_list(sorted(set(versions), key=Version))
        spelling = _spelling(fix)
        if spelling is not None:
            said = any(" spell it " in part for part in parts)
            parts.append(f"{named} {spelling}" if said else f"{named} spell it {spelling}")
        else:
            parts.append(f"{named}: {fix.description}" if fix else f"{named} have no fix")
    if missing:
        parts.append(f"{group[0].code} does not apply to {release_list(missing)}")
    return f"{NOT_FIXED}{', '.join(parts)}; pick one with --target-version"


def _spelling(fix: Fix | None) -> str | None:
    """The text a one-edit fix writes, quoted; None for any other fix."""
    if fix is None or len(fix.edits) != 1 or not fix.edits[0].replacement:
        return None
    return f"'{fix.edits[0].replacement}'"


def _agreement(group: Sequence[Finding], wanted: set[str]) -> tuple[bool, bool]:
    """Whether a group covers every release, and its fixes (its alternatives) are all one."""
    if {v for member in group for v in member.vllm_versions} != wanted:
        return False, False
    first = group[0]
    return (all(m.fix == first.fix for m in group),
            all(m.alternative == first.alternative for m in group))
