"""Evaluating policies on one invocation as one release resolves it.

A policy states what must hold: a row or an expression that is false is a finding.  A row whose
setting is neither written nor given a certain default by the release does not apply (except
``exists``, ``absent``, ``requires`` and ``conflicts``, which are about what is written), and
an expression that needs such a setting does not apply either (CEL evaluates it to an error).

An expression CEL cannot evaluate for any other reason (its iteration budget ran out on a launch
with thousands of arguments, a type or conversion error, an overflow) is a finding of that
policy at the invocation, saying so: a policy a file can make unevaluable would otherwise be a
policy the file can get past.  The run goes on.  A ``matches`` row runs RE2 (through CEL's own
``matches``), in time linear in the value; a value longer than ``compile.MAX_MATCHED`` characters
fails the row.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import cache
from typing import Any

from packaging.specifiers import SpecifierSet

from vlint.knowledge.images import is_server_image
from vlint.model import Finding, Span
from vlint.normalise.resolution import Resolution, Setting
from vlint.policy.compile import environment, parser_dest
from vlint.policy.policies import Policy, Row
from vlint.syntax.globs import matcher

_COMPARE: Mapping[str, Callable[[Any, Any], bool]] = {
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
    "gt": operator.gt, "ge": operator.ge,
}
_INT64 = 2**63


def evaluate(policies: Sequence[Policy], resolution: Resolution) -> Iterator[Finding]:
    applicable = [policy for policy in policies if _in_scope(policy, resolution)]
    activation: list[Any] = []
    for policy in applicable:
        if policy.expr is None:
            span = _rows_fail(policy.rows, resolution)
            if span is not None:
                yield _finding(policy, resolution, span)
            continue
        if not activation:
            activation.append(_activation(resolution, _needed(applicable)))
        outcome = _expression_outcome(policy, activation[0])
        if outcome == _FALSE:
            yield _finding(policy, resolution, resolution.invocation.anchor)
        elif outcome is not None:
            yield _not_evaluated(policy, resolution, outcome)


def _finding(policy: Policy, resolution: Resolution, span: Span) -> Finding:
    return Finding(
        code=policy.id,
        name=policy.name,
        severity=policy.severity,
        message=policy.message,
        help=policy.help,
        path=resolution.invocation.path,
        span=span,
        vllm_versions=(str(resolution.release),),
    )


def _not_evaluated(policy: Policy, resolution: Resolution, reason: str) -> Finding:
    return Finding(
        code=policy.id,
        name=policy.name,
        severity=policy.severity,
        message=f"policy {policy.id} could not be evaluated on this launch: {reason}",
        help=f"{policy.help} (a policy vlint cannot evaluate counts as failing)",
        path=resolution.invocation.path,
        span=resolution.invocation.anchor,
        vllm_versions=(str(resolution.release),),
    )


def _in_scope(policy: Policy, resolution: Resolution) -> bool:
    scope, invocation = policy.scope, resolution.invocation
    if scope.kinds and invocation.kind not in scope.kinds:
        return False
    if scope.images and not any(fnmatchcase(invocation.image or "", p) for p in scope.images):
        return False
    if scope.vllm is not None and resolution.release.version not in _specifier(scope.vllm):
        return False
    return not scope.paths or _path_matcher(policy.root, scope.paths)(invocation.path)


@cache
def _specifier(text: str) -> SpecifierSet:
    return SpecifierSet(text, prereleases=True)


@cache
def _path_matcher(root: str, patterns: tuple[str, ...]) -> Callable[[str], bool]:
    match = matcher(root, list(patterns))
    return lambda path: match(path, False)


# -- declarative rows -------------------------------------------------------------------------


def dest_for(resolution: Resolution, name: str) -> str:
    """The destination a setting name means: ``--max-num-seqs``, ``max_num_seqs``,
    ``max-num-seqs`` and a unique abbreviation (``--max-num-se``) are the same setting."""
    return parser_dest(resolution.release.parser("serve"), name)


def _rows_fail(rows: Sequence[Row], resolution: Resolution) -> Span | None:
    for row in rows:
        span = _row_fails(row, resolution)
        if span is not None:
            return span
    return None


def _row_fails(row: Row, resolution: Resolution) -> Span | None:
    anchor = resolution.invocation.anchor
    setting = resolution.settings.get(dest_for(resolution, row.setting))
    written = setting is not None and setting.span is not None
    where = setting.span if setting is not None and setting.span is not None else anchor
    if row.op == "exists":
        return None if written else anchor
    if row.op == "absent":
        return where if written else None
    if row.op in ("requires", "conflicts"):
        if not written:
            return None
        other = resolution.settings.get(dest_for(resolution, str(row.value)))
        other_written = other is not None and other.span is not None
        return where if other_written == (row.op == "conflicts") else None
    value = _known(setting)
    if value is _UNKNOWN:
        return None
    return None if _holds(row, value) else where


_UNKNOWN = object()


def _known(setting: Setting | None) -> Any:
    if setting is None or not setting.certain or setting.value is None:
        return _UNKNOWN
    return setting.value


def _holds(row: Row, value: Any) -> bool:
    if row.op == "matches":
        assert row.pattern is not None
        return value is not None and row.pattern.search(_text(value))
    if row.op in ("in", "not_in"):
        inside = any(_equal(value, item) for item in row.value)
        return inside == (row.op == "in")
    if row.op in ("eq", "ne"):
        return _equal(value, row.value) == (row.op == "eq")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return True  # an ordering of a non-number does not apply
    return _COMPARE[row.op](value, row.value)


def _equal(value: Any, wanted: Any) -> bool:
    if isinstance(value, bool) or isinstance(wanted, bool):
        return isinstance(value, bool) and isinstance(wanted, bool) and value == wanted
    if isinstance(value, (int, float)) and isinstance(wanted, (int, float)):
        return value == wanted
    return _text(value) == _text(wanted)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# -- CEL --------------------------------------------------------------------------------------


_FALSE = ""
_STATUS = re.compile(r"[A-Z_]{3,40}(?=:)")


def _activation(resolution: Resolution, needed: frozenset[str] | None) -> Any:
    try:
        return environment().Activation(_variables(resolution, needed))
    except Exception as error:  # noqa: BLE001 - cel-expr-python's own errors, whatever they are
        return _Broken(_reason(error))


@dataclass(frozen=True)
class _Broken:
    """An activation CEL refused: every expression on the launch is unevaluable."""

    reason: str


def _expression_outcome(policy: Policy, activation: Any) -> str | None:
    """None when the expression holds or does not apply, ``_FALSE`` when it is false, else why
    CEL could not evaluate it."""
    from cel_expr_python import cel  # lazy: the CEL runtime; only expression policies need it

    if isinstance(activation, _Broken):
        return activation.reason
    try:
        result = policy.expr.eval(activation)
    except Exception as error:  # noqa: BLE001 - the budget is a RuntimeError; others may come
        return _reason(error)
    kind = result.type()
    if kind == cel.Type.BOOL:
        return None if result.value() else _FALSE
    if kind == cel.Type.ERROR:
        text = str(result.value())
        # A missing setting: the policy does not apply (see the module's documentation).
        return None if text.startswith("NOT_FOUND") else _reason(text)
    return None  # not a bool: does not apply


def _reason(error: object) -> str:
    """Why CEL failed, in words of vlint's own: CEL's text may quote the file's values."""
    text = str(error)
    if "budget" in text.lower():
        return "CEL's iteration budget ran out"
    status = _STATUS.match(text)
    return f"CEL error {status.group().lower()}" if status else f"CEL error ({type(error).__name__})"


def _needed(policies: Sequence[Policy]) -> frozenset[str] | None:
    """The settings the expressions read (None: all of them); a resolution holds hundreds of
    release defaults, and handing only these to CEL keeps evaluation cheap."""
    needed: set[str] = set()
    for policy in policies:
        if policy.expr is not None:
            if policy.settings_used is None:
                return None
            needed.update(policy.settings_used)
    return frozenset(needed)


def variables(resolution: Resolution) -> dict[str, Any]:
    """What an expression sees: ``settings``, ``args``, ``env`` and ``file``."""
    return _variables(resolution, None)


def _variables(resolution: Resolution, needed: frozenset[str] | None) -> dict[str, Any]:
    invocation = resolution.invocation
    settings = {}
    every = resolution.settings
    pairs = every.items() if needed is None else (
        (dest, every[dest]) for dest in needed if dest in every
    )
    for dest, setting in pairs:
        if setting.certain:
            value = _cel_value(setting.value)
            if value is not _UNKNOWN:
                settings[dest] = value
    if invocation.style == "python":
        args = [keyword.name.text for keyword in invocation.keywords]
    else:
        args = [token.text for token in invocation.args]
    return {
        "settings": settings,
        "args": args,
        "env": {name: token.text for name, token in invocation.env.items()},
        "file": {
            "path": invocation.path,
            "kind": invocation.kind,
            "origin": list(invocation.origin),
            "image": invocation.image or "",
            "server_image": bool(invocation.image and is_server_image(invocation.image)),
            "release": str(resolution.release),
        },
    }


def _cel_value(value: Any) -> Any:
    if value is None or isinstance(value, (bool, str, float)):
        return value
    if isinstance(value, int):
        return value if -_INT64 <= value < _INT64 else _UNKNOWN
    if isinstance(value, (list, tuple)):
        items = [_cel_value(item) for item in value]
        return _UNKNOWN if any(item is _UNKNOWN for item in items) else items
    if isinstance(value, dict):
        pairs = {str(k): _cel_value(v) for k, v in value.items()}
        return _UNKNOWN if any(v is _UNKNOWN for v in pairs.values()) else pairs
    return _UNKNOWN
