"""The filter stage: which findings are reported, and at which severity.

Order: inline suppressions (which add VL001 for the unused ones), then codes selected
(``select`` + ``extend-select``, minus ``ignore`` and the file's ``per-file-ignores``), then
severity overrides.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from vlint.globs import PathMatcher, matcher
from vlint.model import Finding
from vlint.suppress import Selected, apply

if TYPE_CHECKING:
    from vlint.lint import Settings
    from vlint.policy import Policy

EVERY = "ALL"
# Longer words are no misspelt code (and a suppression comment may hold any text).
_SUGGESTED_LENGTH = 32


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


class UnknownCode(ValueError):
    """A code, prefix or rule name that names nothing vlint or the run's policies report; the
    message quotes it and, where one is close, what was probably meant."""

    def __init__(self, written: str, meant: str | None) -> None:
        hint = f" (did you mean '{meant}'?)" if meant else " (`vlint rules` lists them)"
        shown = written[:_SUGGESTED_LENGTH] + ("..." if len(written) > _SUGGESTED_LENGTH else "")
        super().__init__(f"unknown code '{shown}'{hint}")
        self.written, self.meant, self.shown = written, meant, shown


class Known:
    """What a selection or suppression may name: ``ALL``, vlint's codes and their prefixes
    (VL, VL1, VL10, VL101), its rule names (unknown-flag), the built-in policies' ids (VLP001)
    and the ids or prefixes of the run's ``policies`` (ORG001, ORG).  ``policies=None``: they
    are not known yet, so any id outside vlint's ``VL`` family passes (checked again later)."""

    def __init__(self, policies: Iterable[Policy] | None) -> None:
        self.deferred = policies is None
        self.ids = frozenset(policy.id for policy in policies or ())

    def code(self, written: str) -> str:
        """The code ``written`` means (a rule name becomes its code); UnknownCode if none."""
        code = written.strip().upper()
        names = _rule_names()
        if written.strip().lower() in names:
            return names[written.strip().lower()]
        if code == EVERY or len(code) >= 2 and any(c.startswith(code) for c in self._codes(code)):
            return code
        if self.deferred and not code.startswith("VL") and _looks_like_id(code):
            return code
        raise UnknownCode(written.strip(), _closest(written.strip(), self.ids))

    def codes(self, written: Iterable[str]) -> tuple[str, ...]:
        return tuple(self.code(each) for each in written)

    def _codes(self, code: str) -> Iterable[str]:
        if not code.startswith("VL"):
            return self.ids
        return (*_rule_codes(), *(_builtin_ids() if "VLP".startswith(code[:3]) else ()))


@lru_cache(maxsize=1024)
def _closest(written: str, ids: frozenset[str]) -> str | None:
    from difflib import SequenceMatcher

    if len(written) > _SUGGESTED_LENGTH:
        return None
    candidates = [*_rule_codes(), *_builtin_ids(), *sorted(ids)]
    scored = [(SequenceMatcher(None, written.upper(), c).ratio(), c) for c in candidates]
    scored += [(SequenceMatcher(None, written.lower(), n).ratio(), n) for n in _rule_names()]
    score, best = max(scored, default=(0.0, ""))
    return best if score >= 0.6 else None


def rule_code(written: str) -> str:
    """The code a rule name means (``unknown-flag``: VL101); anything else upper-cased."""
    return _rule_names().get(written.strip().lower(), written.strip().upper())


def _looks_like_id(code: str) -> bool:
    return code[:2].isalpha() and all(c.isalnum() or c == "_" for c in code)


@cache
def _rule_codes() -> tuple[str, ...]:
    from vlint.checks import MODULES

    return tuple(sorted(MODULES))


@cache
def _rule_names() -> dict[str, str]:
    # Rule modules are named after their rules (a test checks that they agree).
    from vlint.checks import MODULES

    return {module.replace("_", "-"): code for code, module in MODULES.items()}


@cache
def _builtin_ids() -> tuple[str, ...]:
    from vlint.presets import PRESETS, combine

    return tuple(sorted({policy.id for policy in combine(list(PRESETS)).policies}))

