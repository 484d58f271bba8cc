"""Python argv lists built in steps: ``cmd = [...]`` then ``cmd += [...]``, ``cmd.extend([...])``,
``cmd.append(x)``, ``cmd = cmd + [...]``, and lists joined with ``+``.

Launcher scripts build the server's command a piece at a time before ``subprocess.Popen(cmd)``.
For each assignment of a list literal (or of literals joined with ``+``) to a name, the
statements after it in the same body are read in order, nested blocks too (``if``, ``for``,
``while``, ``with``, ``try``, ``match``), never another function's, until the name is given
another value: each step's elements follow the list's, at their own places.  A step inside a
block runs only when the block's test holds, so its words carry that test as their condition
(``Token.condition``: ``if tp > 1``) and say so in any finding.  A loop or a ``starred``
element makes the rest unknown: reading stops there (``args_complete`` stays true only when
every step was read).

Bounded: at most ``MAX_STEPS`` steps per list and ``MAX_ELEMENTS`` elements; each statement is
visited once per list assigned before it in its body.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

MAX_STEPS = 256
MAX_ELEMENTS = 4096
MAX_FOLLOWED = 64
MAX_VISITED = 20_000  # statements looked at (and walked) while following, in one module
_MAX_CONDITION = 60


@dataclass
class Built:
    """A list built in steps: its elements (each with the condition it is added under, None
    when it always is) and the list nodes it consumed (not read again as lists of their own)."""

    elements: list[tuple[ast.expr, str | None]] = field(default_factory=list)
    consumed: set[int] = field(default_factory=set)
    complete: bool = True


def joined(node: ast.expr) -> list[ast.expr] | None:
    """The elements of list literals joined with ``+`` (``["vllm", "serve"] + ["--port", "1"]``);
    None when ``node`` is not one."""
    if isinstance(node, ast.List):
        return list(node.elts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = joined(node.left), joined(node.right)
        if left is not None and right is not None:
            return left + right
    return None


def lists_in(node: ast.expr) -> Iterator[ast.List]:
    """The list literals a ``+`` join is made of."""
    if isinstance(node, ast.List):
        yield node
    elif isinstance(node, ast.BinOp):
        yield from lists_in(node.left)
        yield from lists_in(node.right)


def built_lists(tree: ast.Module) -> dict[int, Built]:
    """Every list assigned to a name and built on after, by the ``id`` of its first list node;
    and every ``+`` join of list literals, by the ``id`` of its ``BinOp``.  At most
    ``MAX_FOLLOWED`` assignments are followed in a module, over at most ``MAX_VISITED``
    statements in all (each reads the statements after it): past them a list is read as
    written, its steps not."""
    found: dict[int, Built] = {}
    followed = 0
    seen = _Seen()
    for body in _bodies(tree):
        for index, statement in enumerate(body):
            if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                    and isinstance(statement.targets[0], ast.Name)):
                continue
            elements = joined(statement.value)
            if elements is None:
                continue
            if not _names_a_program(elements) or followed >= MAX_FOLLOWED:
                continue  # (a list that starts no program is no argv; reading on costs time)
            followed += 1
            name = statement.targets[0].id
            built = Built([(element, None) for element in elements])
            built.consumed.update(id(n) for n in lists_in(statement.value))
            _follow(name, body[index + 1:], None, built, seen)
            found[id(statement.value)] = built
    return found


def _names_a_program(elements: list[ast.expr]) -> bool:
    """Whether a list could be a command line: its first element is a string, a name or
    ``sys.executable`` (what ``extract.python`` reads as a program)."""
    return bool(elements) and isinstance(elements[0], (ast.Constant, ast.Name, ast.Attribute))


def _bodies(tree: ast.AST) -> Iterator[list[ast.stmt]]:
    """Every statement list of the module: its body, and each block's."""
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                yield body
        for handler in getattr(node, "handlers", ()):
            yield handler.body
        for case in getattr(node, "cases", ()):
            yield case.body


def _follow(
    name: str, statements: Sequence[ast.stmt], condition: str | None, built: Built,
    seen: _Seen,
) -> bool:
    """Add the steps on ``name`` among ``statements``; False once the name is given another
    value (reading stops)."""
    for statement in statements:
        if len(built.elements) > MAX_ELEMENTS or len(built.consumed) > MAX_STEPS or \
                seen.visited > MAX_VISITED:
            built.complete = False
            return False
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        seen.visited += 1
        step = _step(name, statement)
        if step is False:
            return False
        if step is not None:
            elements, lists = step
            built.elements.extend((element, condition) for element in elements)
            built.consumed.update(lists)
            continue
        if isinstance(statement, ast.If):
            test = _condition(statement.test)
            if not _follow(name, statement.body, _and(condition, f"if {test}"), built, seen):
                return False
            if not _follow(name, statement.orelse, _and(condition, f"if not {test}"), built, seen):
                return False
        elif isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
            if _touches(name, statement, seen):
                built.complete = False
                return False  # a loop adds words vlint cannot count
        elif isinstance(statement, (ast.With, ast.AsyncWith, ast.Try)):
            if not _follow(name, statement.body, condition, built, seen):
                return False
        elif _touches(name, statement, seen):
            return False
    return True


_Step = tuple[list[ast.expr], list[int]]


def _step(name: str, statement: ast.stmt) -> _Step | Literal[False] | None:
    """What one statement adds to the list ``name``: its elements and list nodes; None when it
    does not touch the list; False when it gives the name another value or changes the list
    in a way not read (``insert``, ``pop``, a starred element)."""
    if isinstance(statement, ast.AugAssign) and _is(statement.target, name) \
            and isinstance(statement.op, ast.Add):
        return _added(statement.value)
    if isinstance(statement, ast.Assign) and any(_is(t, name) for t in statement.targets):
        value = statement.value
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) and _is(value.left, name):
            return _added(value.right)
        return False
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        func = call.func
        if isinstance(func, ast.Attribute) and _is(func.value, name):
            if len(call.args) != 1 or call.keywords:
                return False
            if func.attr == "append":
                return _added(ast.List([call.args[0]], ast.Load()), ())
            if func.attr == "extend":
                return _added(call.args[0])
            return False
    return None


def _added(value: ast.expr, lists: tuple[int, ...] | None = None) -> _Step | Literal[False]:
    """The elements a step adds (``value``: list literals joined with ``+``) and its list nodes;
    False when they cannot be read (a starred element, anything but list literals)."""
    elements = joined(value)
    if elements is None or any(isinstance(e, ast.Starred) for e in elements):
        return False
    return elements, list(lists) if lists is not None else [id(n) for n in lists_in(value)]


def _is(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


@dataclass
class _Seen:
    """What following lists in one module has looked at: each statement's touched names (by
    ``id``: walked once) and how many statements were visited."""

    touched: dict[int, frozenset[str]] = field(default_factory=dict)
    visited: int = 0


def _touches(name: str, statement: ast.stmt, seen: _Seen) -> bool:
    """Whether a statement not read as a step names the list (it may change it): assigns the
    name, or uses an attribute of it."""
    touched = seen.touched.get(id(statement))
    if touched is None:
        touched = frozenset(
            n.id if isinstance(n, ast.Name) else n.value.id  # type: ignore[attr-defined]
            for n in ast.walk(statement)
            if (isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load))
            or (isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)))
        seen.touched[id(statement)] = touched
    return name in touched


def _condition(test: ast.expr) -> str:
    text = ast.unparse(test)
    return text if len(text) <= _MAX_CONDITION else text[: _MAX_CONDITION - 3] + "..."


def _and(outer: str | None, inner: str) -> str:
    return inner if outer is None else f"{outer}, {inner}"


def program_names(tree: ast.Module) -> dict[str, str]:
    """Names the module binds to a program vLLM is run by, and that program's name: ``exe =
    shutil.which("vllm") or "vllm"``, ``VLLM = "/opt/venv/bin/vllm"``, ``py = "python3"``
    (every assignment of the name must agree)."""
    found: dict[str, str] = {}
    refused: set[str] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            continue
        name = node.targets[0].id
        program = _program(node.value)
        if program is None or found.get(name, program) != program:
            refused.add(name)
        else:
            found[name] = program
    return {name: program for name, program in found.items() if name not in refused}


_PROGRAMS = frozenset({"vllm", "python", "python3"})


def _program(value: ast.expr) -> str | None:
    """The program an expression names: a string, ``shutil.which(STRING)``, or ``A or B`` of
    such, all naming the same program."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        base = value.value.rsplit("/", 1)[-1]
        return base if base in _PROGRAMS else None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and value.func.attr == "which" and len(value.args) == 1:
        return _program(value.args[0])
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
        named = {_program(part) for part in value.values}
        return named.pop() if len(named) == 1 else None
    return None
