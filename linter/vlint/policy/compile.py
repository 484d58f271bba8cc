"""What a policy file compiles to: CEL expressions, RE2 patterns (``matches`` rows), and the
destination a setting name means.  Policy loading (``policies``) and evaluation (``evaluate``)
both use them.

The CEL runtime (``cel_expr_python``) is imported only where a policy needs it: a run with no
expression and no ``matches`` row never loads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

# A ``matches`` row fails on a value longer than this (RE2 runs in linear time, but a value can
# be as long as the file).
MAX_MATCHED = 1 << 16


@cache
def environment() -> Any:
    """The CEL environment policy expressions compile and evaluate in."""
    from cel_expr_python import cel  # lazy: the CEL runtime; only expression policies need it

    dyn, string = cel.Type.DYN, cel.Type.STRING
    return cel.NewEnv(variables={
        "settings": cel.Type.Map(string, dyn),
        "args": cel.Type.List(string),
        "env": cel.Type.Map(string, string),
        "file": cel.Type.Map(string, dyn),
    })


def compile_expression(text: str) -> Any:
    """A compiled CEL expression; ValueError with CEL's ``<input>:line:col: message``."""
    from cel_expr_python import cel  # lazy: the CEL runtime; only expression policies need it

    try:
        compiled = environment().compile(text)
    except RuntimeError as error:
        raise ValueError(str(error)) from None
    kind = compiled.return_type()
    if kind != cel.Type.BOOL and kind != cel.Type.DYN:
        raise ValueError(f"<input>:1:1: the expression must be a bool, not {kind.name().lower()}")
    return compiled


@dataclass(frozen=True)
class Pattern:
    """A ``matches`` row's regular expression, run by RE2 (CEL's ``matches``): linear time."""

    text: str

    def search(self, value: str) -> bool:
        """Whether the pattern occurs in ``value``; False for a value too long to search."""
        from cel_expr_python import cel  # lazy: the CEL runtime; only matches rows need it

        if len(value) > MAX_MATCHED:
            return False
        result = _matcher().eval(_matcher_environment().Activation({"value": value,
                                                                   "pattern": self.text}))
        return result.type() == cel.Type.BOOL and bool(result.value())


def compile_pattern(text: str) -> Pattern:
    """A ``matches`` pattern; ValueError with RE2's reason when RE2 cannot run it."""
    from cel_expr_python import cel  # lazy: the CEL runtime; only matches rows need it

    result = _matcher().eval(_matcher_environment().Activation({"value": "", "pattern": text}))
    if result.type() == cel.Type.ERROR:
        reason = str(result.value()).split("invalid regular expression: ", 1)[-1]
        raise ValueError(reason)
    return Pattern(text)


@cache
def _matcher_environment() -> Any:
    from cel_expr_python import cel  # lazy: the CEL runtime; only matches rows need it

    string = cel.Type.STRING
    return cel.NewEnv(variables={"value": string, "pattern": string})


@cache
def _matcher() -> Any:
    return _matcher_environment().compile("value.matches(pattern)")


@cache
def parser_dest(parser: Any, name: str) -> str:
    """The destination ``name`` means to ``parser`` (the name in underscores when unknown)."""
    bare = name.lstrip("-")
    plain = bare.replace("-", "_")
    if parser is None or plain in parser.by_dest:
        return plain
    flag = "--" + bare.replace("_", "-")
    if flag in parser.by_string:
        return str(parser.by_string[flag].dest)
    found = {parser.by_string[s].dest for s in parser.long_strings if s.startswith(flag)}
    return str(found.pop()) if len(found) == 1 else plain
