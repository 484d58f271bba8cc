"""Cross-field scheduler bounds, from the curated ``vlint_rules/curated/bounds.toml``.

Each bound holds for a range of releases and names the vLLM source it rests on; the
differential tests check every one against real vLLM.  A bound is evaluated only on values that
are written or certain for the release: a default that depends on the GPU or the model is never
guessed, so a missing side makes the bound not apply.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vlint.knowledge.curated import Bound, bounds
from vlint.model import Span
from vlint.normalise.resolution import Resolution, Setting, number

OPERATORS: Mapping[str, Callable[[int, int], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
}


@dataclass(frozen=True)
class Violation:
    """A bound that does not hold: ``left`` and ``right`` are its two sides' values, ``span``
    the first written setting of the bound, ``written`` the names of the written settings and
    ``related`` the other written ones (the other side of the mismatch), each with its span."""

    bound: Bound
    left: int
    right: int
    span: Span
    written: Sequence[str]
    related: tuple[tuple[str, Span], ...] = ()


def _condition_holds(resolution: Resolution, when: Mapping[str, Any]) -> bool:
    """Each condition holds on the resolved setting: a plain value is equality with a certain
    value; a table compares (``{">" = 1}``) or asks that the user left it unset
    (``{unset = true}``: not written, no certain value but None)."""
    settings = resolution.settings
    for name, expected in when.items():
        setting = settings.get(name)
        if isinstance(expected, Mapping):
            if not all(_test(resolution, name, setting, op, bound)
                       for op, bound in expected.items()):
                return False
        elif setting is None or not setting.certain or setting.value != expected:
            return False
    return True


def _test(resolution: Resolution, name: str, setting: Setting | None, op: str,
          bound: Any) -> bool:
    if op == "unset":
        unset = resolution.written(name) is None and (setting is None or setting.value is None)
        return unset is bool(bound)
    value = number(setting)
    return value is not None and OPERATORS[op](value, int(bound))


def violations(resolution: Resolution, code: str) -> Iterator[Violation]:
    version = resolution.release.version
    settings = resolution.settings
    for bound in bounds(code):
        if not bound.holds_in(version):
            continue
        if not _condition_holds(resolution, bound.when):
            continue
        left = _size(settings.get(bound.left))
        rights = [_size(settings.get(name)) for name in bound.right]
        if left is None or any(value is None for value in rights):
            continue
        product = 1
        for value in rights:
            assert value is not None
            product *= value
        if OPERATORS[bound.op](left, product):
            continue
        names = [bound.left, *bound.right]
        written = [name for name in names if resolution.written(name) is not None]
        if not written:
            continue  # both sides are defaults: nothing the user wrote is wrong
        anchor = resolution.written(written[0])
        assert anchor is not None and anchor.span is not None
        related = tuple((name, span) for name in written[1:]
                        if (span := _span(resolution, name)) is not None)
        yield Violation(bound, left, product, anchor.span, written, related)


def _span(resolution: Resolution, name: str) -> Span | None:
    setting = resolution.written(name)
    return setting.span if setting is not None else None


MAX_SIZE = 10**100


def _size(setting: Setting | None) -> int | None:
    """A certain, positive size; ``-1``/``auto`` ("from the model") and invalid values are
    unknown, and a bound on an unknown value does not apply."""
    value = number(setting)
    # Beyond any machine: products of such numbers would not even print (int -> str limit).
    return value if value is not None and 0 < value < MAX_SIZE else None
