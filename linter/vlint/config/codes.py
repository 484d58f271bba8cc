"""The codes a selection, a suppression or a severity override may name, and the words a code
may be written as (a rule's name: ``unknown-flag`` is VL101).

The rule registry gives vlint's own codes and names, the presets the built-in policies' ids, and
the run's configuration its policies' ids.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from vlint.checks import MODULES

if TYPE_CHECKING:
    from vlint.policy.policies import Policy

EVERY = "ALL"
# Longer words are no misspelt code (and a suppression comment may hold any text).
_SUGGESTED_LENGTH = 32


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
    from difflib import SequenceMatcher  # lazy: only for a code no rule has (a usage error)

    if len(written) > _SUGGESTED_LENGTH:
        return None
    candidates = [*_rule_codes(), *_builtin_ids(), *sorted(ids)]
    upper = written.upper()
    # A letter typed for a digit (``VL1O1``, ``VLl01``) means the code it reads as.
    as_digits = upper[:2] + upper[2:].translate(_LOOKALIKE_DIGITS)
    if as_digits in candidates:
        return as_digits
    scored = [(SequenceMatcher(None, upper, c).ratio(), -i, c) for i, c in enumerate(candidates)]
    scored += [(SequenceMatcher(None, written.lower(), n).ratio(), -len(scored) - i, n)
               for i, n in enumerate(_rule_names())]
    score, _, best = max(scored, default=(0.0, 0, ""))  # ties: the earliest candidate
    return best if score >= 0.6 else None


_LOOKALIKE_DIGITS = str.maketrans({"O": "0", "I": "1", "L": "1"})


def rule_code(written: str) -> str:
    """The code a rule name means (``unknown-flag``: VL101); anything else upper-cased."""
    return _rule_names().get(written.strip().lower(), written.strip().upper())


def _looks_like_id(code: str) -> bool:
    return code[:2].isalpha() and all(c.isalnum() or c == "_" for c in code)


@cache
def _rule_codes() -> tuple[str, ...]:
    return tuple(sorted(MODULES))


@cache
def _rule_names() -> dict[str, str]:
    # Rule modules are named after their rules (a test checks that they agree).
    return {module.replace("_", "-"): code for code, module in MODULES.items()}


@cache
def _builtin_ids() -> tuple[str, ...]:
    from vlint.config.presets import PRESETS, combine  # lazy: only when a VLP id is named

    return tuple(sorted({policy.id for policy in combine(list(PRESETS)).policies}))
