"""vlint's import graph, read from its source with ``ast``: layers import only downward, no module
imports itself through others, and a function-level import says why it is lazy.

A module's layer is its first name under ``vlint`` (``vlint.checks.base`` is in ``checks``); it
may import at run time only from its own layer and the layers before it in ``LAYERS``.  Imports
in the body of ``if TYPE_CHECKING:`` are exempt: they never run.  A string that names a module
(``"vlint.render.full"``, for ``importlib``) imports it by name, and counts as an import too.
A function-level import of a vlint or third-party module must end with ``# lazy: <why>`` (a
heavy library, a module only some runs need); the standard library's are free.
"""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "linter" / "vlint"
LAYERS = (
    "model", "errors", "settings", "knowledge", "syntax", "discover", "extract", "target",
    "normalise", "checks", "policy", "config", "filter", "fix", "engine", "render", "confirm",
    "commands", "cli", "__main__",
)
LAZY = re.compile(r"#\s*lazy:\s*\S")


@dataclass(frozen=True)
class Import:
    """One run-time import: a statement's target, or a module named in a string."""

    source: str  # the importing module
    target: str  # the imported module (the package itself for ``from package import name``)
    line: int
    in_function: bool
    lazy: bool  # it carries ``# lazy: <why>``
    by_name: bool = False  # a string naming the module, for importlib

    def __str__(self) -> str:
        where = ("by name" if self.by_name
                 else "function-level" if self.in_function else "module-level")
        return f"{self.source}:{self.line} imports {self.target} ({where})"


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules(root: Path) -> dict[str, Path]:
    return {_module_name(path, root): path for path in sorted(root.rglob("*.py"))}


def _lazy_lines(text: str) -> set[int]:
    """The lines that end with a ``# lazy: <why>`` comment (a real comment, not in a string)."""
    if "lazy:" not in text:
        return set()
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return {token.start[0] for token in tokens
            if token.type == tokenize.COMMENT and LAZY.match(token.string)}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
            or isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _statements(
    nodes: Iterable[ast.AST], in_function: bool
) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement that runs, with whether it is inside a function."""
    for node in nodes:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, in_function
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _statements(node.orelse, in_function)
        else:
            inner = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            yield from _statements(ast.iter_child_nodes(node), inner)


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool,
             known: set[str]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        base = ".".join(package[: len(package) - node.level + 1])
        name = f"{base}.{node.module}" if node.module else base
    else:
        name = node.module or ""
    # ``from package import submodule`` imports the submodule; ``from m import value``, m.
    submodules = [f"{name}.{alias.name}" for alias in node.names if f"{name}.{alias.name}" in known]
    return submodules if len(submodules) == len(node.names) else [name, *submodules]


def imports(root: Path) -> list[Import]:
    """Every run-time import of the package at ``root``: its import statements, and the strings
    that name one of its modules (other than the root and the module itself)."""
    modules = _modules(root)
    known = set(modules)
    found = []
    for module, path in modules.items():
        text = path.read_text("utf-8")
        lazy = _lazy_lines(text)
        tree = ast.parse(text, str(path))
        for node, in_function in _statements(tree.body, False):
            lines = set(range(node.lineno, (node.end_lineno or node.lineno) + 1))
            for target in _targets(node, module, path.name == "__init__.py", known):
                found.append(Import(module, target, node.lineno, in_function, bool(lines & lazy)))
        for constant in ast.walk(tree):
            if (isinstance(constant, ast.Constant) and isinstance(constant.value, str)
                    and constant.value in known - {root.name, module}):
                found.append(Import(module, constant.value, constant.lineno, False, True, True))
    return found


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None  # None: the root package, vlint itself


def _ours(target: str, root: Path) -> bool:
    return target == root.name or target.startswith(f"{root.name}.")


def upward(found: list[Import], root: Path) -> list[str]:
    wrong = []
    for item in found:
        if not _ours(item.target, root):
            continue
        source, target = _layer(item.source), _layer(item.target)
        if source is None:
            wrong.append(f"{item}: the root package imports nothing of its own")
        elif target is not None and LAYERS.index(target) > LAYERS.index(source):
            wrong.append(f"{item}: layer {source} imports the later layer {target}")
    return wrong


def cycles(found: list[Import], root: Path) -> list[list[str]]:
    """The import cycles: each strongly connected component of more than one module, and each
    module that imports itself (Tarjan's algorithm, iterative)."""
    graph: dict[str, set[str]] = {}
    for item in found:
        if _ours(item.target, root):
            graph.setdefault(item.source, set()).add(item.target)
            graph.setdefault(item.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1 or node in graph[node]:
                        components.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return sorted(components)


def unexplained_lazy(found: list[Import], root: Path) -> list[str]:
    return [str(item) for item in found
            if item.in_function and not item.lazy
            and (_ours(item.target, root)
                 or item.target.split(".")[0] not in sys.stdlib_module_names)]


# ------------------------------------------------------------------------------ vlint itself


@cache
def _vlint() -> list[Import]:
    return imports(SOURCE)


def test_every_module_is_in_a_layer() -> None:
    layers = {layer for module in _modules(SOURCE) if (layer := _layer(module)) is not None}
    assert sorted(layers - set(LAYERS)) == [], "add the new layer to LAYERS and to DESIGN.md"


def test_no_layer_imports_a_later_one() -> None:
    wrong = upward(_vlint(), SOURCE)
    assert not wrong, "\n".join(wrong)


def test_no_import_cycle() -> None:
    found = cycles(_vlint(), SOURCE)
    assert not found, "\n".join(" <-> ".join(component) for component in found)


def test_every_function_level_import_says_why_it_is_lazy() -> None:
    wrong = unexplained_lazy(_vlint(), SOURCE)
    assert not wrong, "hoist these to module level, or end each with '# lazy: <why>':\n" + (
        "\n".join(wrong))


# ---------------------------------------------------------- the checks, on a made-up package


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "vlint"
    for name, text in {"__init__.py": "", **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, "utf-8")
    return root


def test_an_upward_import_is_found_at_module_and_function_level(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "model/__init__.py": "from vlint.engine import lint\n",
        "engine/__init__.py": "",
        "engine/lint.py": "from vlint.model import Pos\n",
        "errors.py": "def f():\n    from vlint.render import full  # lazy: only some runs\n",
        "render/full.py": "",
    })
    assert upward(imports(root), root) == [
        "vlint.errors:2 imports vlint.render.full (function-level): "
        "layer errors imports the later layer render",
        "vlint.model:1 imports vlint.engine.lint (module-level): "
        "layer model imports the later layer engine",
    ]


def test_type_checking_imports_are_exempt_but_their_else_is_not(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "model.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                    "    from vlint.engine import Report\nelse:\n    import vlint.cli\n",
        "engine.py": "", "cli.py": "",
    })
    assert [str(i) for i in imports(root)] == [
        "vlint.model:1 imports typing (module-level)", "vlint.model:5 imports vlint.cli "
        "(module-level)",
    ]


def test_a_cycle_is_found_through_relative_and_function_level_imports(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "extract/__init__.py": "",
        "extract/argv.py": "from . import shell\n",
        "extract/shell.py": "def f():\n    from .words import split  # lazy: hides a cycle\n",
        "extract/words.py": "from vlint.extract.argv import x\n",
        "extract/alone.py": "import vlint.extract.alone\n",
        "extract/fine.py": "from vlint.extract import argv\n",
    })
    assert cycles(imports(root), root) == [
        ["vlint.extract.alone"],
        ["vlint.extract.argv", "vlint.extract.shell", "vlint.extract.words"],
    ]


def test_a_function_level_import_needs_a_lazy_reason_unless_standard_library(
    tmp_path: Path,
) -> None:
    root = _package(tmp_path, {"model.py": (
        "def f():\n"
        "    import json\n"
        "    import pydantic  # lazy: heavy, only for configuration files\n"
        "    from vlint import errors\n"
        "    import yaml  # lazy:\n"
        "    from vlint.syntax import (  # lazy: only Dockerfiles\n        words,\n    )\n"
        "    x = '# lazy: in a string'; import click\n"
    ), "errors.py": "", "syntax/words.py": ""})
    assert unexplained_lazy(imports(root), root) == [
        "vlint.model:4 imports vlint.errors (function-level)",
        "vlint.model:5 imports yaml (function-level)",
        "vlint.model:9 imports click (function-level)",
    ]


def test_a_module_named_in_a_string_is_imported_by_name(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "discover.py": 'KINDS = {"helm": "vlint.extract.helm", "self": "vlint.discover"}\n'
                       '"""vlint.extract.helm in a docstring is prose"""\n',
        "extract/helm.py": "",
    })
    assert upward(imports(root), root) == [
        "vlint.discover:1 imports vlint.extract.helm (by name): "
        "layer discover imports the later layer extract",
    ]


@pytest.mark.parametrize("module", ["vlint", "vlint.model"])
def test_the_root_package_imports_nothing_of_its_own(tmp_path: Path, module: str) -> None:
    root = _package(tmp_path, {"__init__.py": f"import {module}\n", "model.py": ""})
    assert len(upward(imports(root), root)) == 1
