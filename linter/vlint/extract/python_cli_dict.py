"""A dict of vLLM's command-line options handed to vLLM's own parser: ``build_app({"model": m,
"tensor-parallel-size": 2})``.

Serve applications (KubeRay's vLLM sample, ``ray-operator/config/samples/vllm/serve.py``, and
the many copied from it) take the server's options as a dict, turn each entry into ``--KEY
VALUE`` and parse them with the OpenAI server's parser (``make_arg_parser`` of
``vllm.entrypoints.openai.cli_args``, or ``FlexibleArgumentParser``).  A function is such a
builder when it loops over its parameter's ``items()`` writing ``f"--{key}"`` (with
``append``/``extend``/``+=``), or hands its parameter to a builder, and the module uses one of
vLLM's parsers; each call of it given
a dict literal (or a name bound to one) is a launch of the API server's parser with those
options: the flag is the key, ``--`` unwritten before it (no fix edits the key into a flag),
the value at its place (not literal unless a string constant).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping

_PARSERS = frozenset({
    "vllm.entrypoints.openai.cli_args.make_arg_parser",
    "vllm.utils.FlexibleArgumentParser",
    "vllm.utils.argparse_utils.FlexibleArgumentParser",
})
MAX_ENTRIES = 512


def builders(tree: ast.Module, names: Mapping[str, str]) -> frozenset[str]:
    """The module-level functions that turn a dict parameter into vLLM's command line; none
    when the module imports none of vLLM's parsers."""
    if not any(name in _PARSERS for name in names.values()):
        return frozenset()
    functions = [s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    found = {function.name for function in functions if _builds(function)}
    # A function handing its parameter on to a builder (``build_app(cli_args)`` calling
    # ``parse_vllm_args(cli_args)``) is one too; each round adds one, at most one per function.
    for _ in range(len(functions)):
        more = {function.name for function in functions
                if function.name not in found and _passes_on(function, found)}
        if not more:
            break
        found |= more
    return frozenset(found)


def _passes_on(function: ast.FunctionDef | ast.AsyncFunctionDef, builders: set[str]) -> bool:
    parameters = {argument.arg for argument in function.args.args}
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        and node.func.id in builders and node.args and isinstance(node.args[0], ast.Name)
        and node.args[0].id in parameters
        for node in ast.walk(function)
    )


def _builds(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``for K, V in PARAM.items():`` in the function writes ``f"--{K}"``."""
    parameters = {argument.arg for argument in function.args.args}
    for node in ast.walk(function):
        if not isinstance(node, (ast.For, ast.AsyncFor)):
            continue
        target, iterated = node.target, node.iter
        if not (isinstance(target, ast.Tuple) and len(target.elts) == 2
                and isinstance(target.elts[0], ast.Name)):
            continue
        if not (isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Attribute)
                and iterated.func.attr == "items" and isinstance(iterated.func.value, ast.Name)
                and iterated.func.value.id in parameters):
            continue
        key = target.elts[0].id
        if any(_flag_of(inner, key) for inner in ast.walk(node)):
            return True
    return False


def _flag_of(node: ast.AST, key: str) -> bool:
    """``f"--{key}"``."""
    if not isinstance(node, ast.JoinedStr) or len(node.values) != 2:
        return False
    head, field = node.values
    return (isinstance(head, ast.Constant) and head.value == "--"
            and isinstance(field, ast.FormattedValue) and isinstance(field.value, ast.Name)
            and field.value.id == key)


def entries(node: ast.expr) -> Iterator[tuple[ast.Constant, ast.expr]]:
    """The string-keyed entries of a dict literal (at most ``MAX_ENTRIES``)."""
    if not isinstance(node, ast.Dict):
        return
    for count, (key, value) in enumerate(zip(node.keys, node.values, strict=True)):
        if count >= MAX_ENTRIES:
            return
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            yield key, value
