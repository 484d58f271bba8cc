"""What a release's API server guards with ``--api-key``, read from its own sources.

vLLM's authentication middleware lets a request through without the key unless its path starts
with one of the guarded prefixes: ``/v1`` from the first release with ``--api-key`` (a function
``authentication`` in ``vllm/entrypoints/openai/api_server.py``, ``startswith(f"{root_path}/v1")``),
then a class ``AuthenticationMiddleware`` (``startswith("/v1")``), and later a module-level
``GUARDED_PREFIX`` tuple (``("/v1", "/v2", "/inference", ...)``).  The prefixes are read from
the syntax tree of every module under ``vllm/entrypoints`` that defines that middleware, without
importing anything.  Stdlib only: ``introspect.py`` runs it inside the release's interpreter.
"""

from __future__ import annotations

import ast
from pathlib import Path

_MIDDLEWARE = frozenset({"AuthenticationMiddleware", "authentication"})


def guarded_paths(package: Path) -> list[str]:
    """The path prefixes a request needs the API key for, sorted; empty when the release has no
    authentication middleware."""
    found: set[str] = set()
    entrypoints = package / "entrypoints"
    for path in sorted(entrypoints.rglob("*.py")) if entrypoints.is_dir() else []:
        text = path.read_text("utf-8", errors="replace")
        if "startswith" not in text or not any(name in text for name in _MIDDLEWARE):
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        constants = _module_tuples(tree)
        for node in ast.walk(tree):
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    node.name in _MIDDLEWARE:
                found.update(_prefixes(node, constants))
    return sorted(found)


def _module_tuples(tree: ast.Module) -> dict[str, tuple[str, ...]]:
    """Module-level ``NAME = ("a", "b")`` assignments of strings."""
    tuples: dict[str, tuple[str, ...]] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and \
                isinstance(statement.targets[0], ast.Name):
            value = statement.value
            if isinstance(value, (ast.Tuple, ast.List)) and all(
                    isinstance(item, ast.Constant) and isinstance(item.value, str)
                    for item in value.elts):
                tuples[statement.targets[0].id] = tuple(
                    str(item.value) for item in value.elts if isinstance(item, ast.Constant))
    return tuples


def _prefixes(node: ast.AST, constants: dict[str, tuple[str, ...]]) -> set[str]:
    """The prefixes of the ``startswith`` tests in a middleware: a string, the constant tail of
    an f-string (``f"{root_path}/v1"``), a tuple of them or a module-level tuple's name.  A test
    against anything else (``url_path.startswith(app.root_path)``) is not a guard."""
    prefixes: set[str] = set()
    for call in ast.walk(node):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr == "startswith" and len(call.args) == 1):
            continue
        prefixes.update(_strings(call.args[0], constants))
    return {prefix for prefix in prefixes if prefix.startswith("/")}


def _strings(node: ast.expr, constants: dict[str, tuple[str, ...]]) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr) and node.values:
        tail = node.values[-1]
        if isinstance(tail, ast.Constant) and isinstance(tail.value, str):
            return [tail.value]
        return []
    if isinstance(node, ast.Name):
        return list(constants.get(node.id, ()))
    if isinstance(node, ast.Tuple):
        return [text for item in node.elts for text in _strings(item, constants)]
    return []
