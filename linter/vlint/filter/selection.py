"""The filter stage: which findings are reported, and at which severity.

Order: inline suppressions (which add VL001 for the unused ones), then codes selected
(``select`` + ``extend-select``, minus ``ignore`` and the file's ``per-file-ignores``), then
severity overrides.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING

from vlint.syntax.globs import PathMatcher, matcher
from vlint.model import Finding
# The codes a selection or suppression may name (vlint.config.codes), re-exported.
from vlint.config.codes import EVERY, Known, UnknownCode, rule_code
from vlint.filter.suppress import Selected, apply

__all__ = ["EVERY", "Known", "UnknownCode", "filter_findings", "matches", "rule_code", "selector"]

if TYPE_CHECKING:
    from vlint.settings import Settings



def filter_findings(
    findings: list[Finding], sources: Mapping[str, str], settings: Settings
) -> list[Finding]:
    selected = selector(settings)
    known = Known(settings.policies)
    kept = [f for f in apply(findings, sources, selected, known) if selected(f.path, f.code)]
    return [_with_severity(f, settings) for f in kept]


def matches(code: str, prefixes: Iterable[str]) -> bool:
    return any(prefix == "ALL" or code.startswith(prefix) for prefix in prefixes)


def selector(settings: Settings) -> Selected:
    """Whether a code (or a code prefix) is reported for a path under ``settings``."""
    per_file = [
        (_glob(settings.config_dir or ".", pattern), codes)
        for pattern, codes in settings.per_file_ignores
    ]

    def selected(path: str, code: str) -> bool:
        if settings.select and not matches(code, settings.select + settings.extend_select):
            return False
        if matches(code, settings.ignore):
            return False
        return not any(matches(code, codes) and match(path, False) for match, codes in per_file)

    return selected


@cache
def _glob(root: str, pattern: str) -> PathMatcher:
    return matcher(root, [pattern])


def _with_severity(finding: Finding, settings: Settings) -> Finding:
    overrides = [(code, level) for code, level in settings.severity
                 if matches(finding.code, [code])]
    if not overrides:
        if settings.warnings_as_errors and finding.severity == "warning":
            return replace(finding, severity="error")
        return finding
    _, level = max(overrides, key=lambda item: 0 if item[0] == "ALL" else len(item[0]))
    return replace(finding, severity=level)
