"""Presets: named configurations built from the same machinery (``extends = ["strict"]``).

- ``recommended``: vlint's default rule set (every rule);
- ``strict``: every rule, warnings reported as errors, and the built-in policies of
  ``rules/vlint_rules/presets/strict.yaml`` (VLP001: the vLLM image must be pinned);
- ``security``: the security rules only (the ``VL5`` prefix).

Presets combine in order (selections add up); the configuration's own keys (``select``,
``ignore``, ``severity``, ...) apply after them, so a per-rule override still wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vlint.policy.policies import Policy


@dataclass(frozen=True)
class Preset:
    select: tuple[str, ...] | None = None
    warnings_as_errors: bool = False
    policy_files: tuple[str, ...] = ()


PRESETS = {
    "recommended": Preset(select=("ALL",)),
    "strict": Preset(select=("ALL",), warnings_as_errors=True, policy_files=("strict.yaml",)),
    "security": Preset(select=("VL5",)),
}


@dataclass(frozen=True)
class Combined:
    select: list[str] | None
    warnings_as_errors: bool
    policies: tuple[Policy, ...]


def combine(names: Sequence[str]) -> Combined:
    select: list[str] | None = None
    strict = False
    policies: list[Policy] = []
    for name in names:
        preset = PRESETS[name]
        if preset.select is not None:
            select = [*(select or []), *(s for s in preset.select if s not in (select or []))]
        strict = strict or preset.warnings_as_errors
        for file in preset.policy_files:
            policies.extend(_builtin(file))
    return Combined(select, strict, tuple(policies))


@cache
def _builtin(name: str) -> tuple[Policy, ...]:
    import vlint_rules  # lazy: the data package, only for a preset with policies
    from vlint.policy.policies import load_text  # lazy: only a preset with policies

    path = Path(vlint_rules.__file__).parent / "presets" / name
    return tuple(load_text(path.read_text("utf-8"), str(path), ".", builtin=True))
