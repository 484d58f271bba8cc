"""Jupyter notebooks (``.ipynb``): the vLLM launches in their cells, at exact ``.ipynb`` positions.

``vlint.syntax.notebook`` reads the JSON (a file that is not JSON is VL002, at the place it goes
wrong) and gives every cell's text with each character's offset in the file, through JSON
escapes.  Then, as Jupyter runs them:

- code cells are Python (``LLM(...)``, argv lists, ``subprocess.run(...)``), IPython's magic
  lines masked so that the rest still parses (a cell that does not parse is skipped); the names
  a cell's imports bind are seen by the cells after it (``from vllm import LLM`` in one cell,
  ``LLM(...)`` in a later one), as they share one namespace when run in order;
- ``!cmd`` lines (``!!cmd``, ``x = !cmd``, ``%sx``, ``%system``) and ``%%bash``, ``%%sh``,
  ``%%script bash`` cells are shell; ``%%writefile x.sh`` / ``x.py`` cells are read as that file;
  in a ``!`` line, IPython's ``{expr}`` interpolation is an unresolved value;
- ``%env NAME=VALUE`` / ``%set_env`` set the environment of the launches after them;
- Markdown cells are Markdown (their fences);
- a notebook whose kernel is not Python is read only for its Markdown (a ``bash`` kernel's code
  cells are shell).

Origins are ``("notebook", "python")``, ``("notebook", "shell")``, ``("notebook", "markdown",
...)``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from vlint.errors import Unparsable
from vlint.extract import markdown, python, shell
from vlint.extract.deployment import enclosed, named
from vlint.extract.expansions import hold, unresolving
from vlint.extract.nested import ExtractContext, moved
from vlint.model import Deployment, EnvVar, Invocation, LineIndex, Pos
from vlint.syntax.lines import Chars
from vlint.syntax.notebook import Cell, ipython, parse

KIND = "notebook"
_SHELL_KERNELS = frozenset({"bash", "sh", "shell", "zsh"})
MAX_VARIABLES = 200  # distinct ``%env`` names carried to later launches; a notebook sets a few
# IPython's ``var_expand`` (``IPython/utils/text.py``, ``DollarFormatter``): ``{expr}``.
_INTERPOLATION = re.compile(r"\{\{|\}\}|(\{[^{}\n]*\})")


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    """Every vLLM launch in the notebook; raises Unparsable when it is not a notebook."""
    context = context or ExtractContext((KIND,))
    notebook = parse(text, context.locator(text))
    language = notebook.language
    found: list[Invocation] = []
    env: dict[str, EnvVar] = {}
    imports: dict[str, str] = {}  # the names earlier code cells' imports bound
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            launches = _relocated(cell.source, _markdown(path, cell.source.text, context))
            found.extend(enclosed(invocation, KIND) for invocation in launches)
        elif cell.cell_type != "code":
            continue
        elif language in _SHELL_KERNELS:
            found.extend(_with_env(_shell(path, cell.source, context), env, []))
        elif language is None or language.startswith("python"):
            found.extend(_code(path, cell, context, env, imports))
    return found


def _code(
    path: str,
    cell: Cell,
    context: ExtractContext,
    env: dict[str, EnvVar],
    imports: dict[str, str],
) -> list[Invocation]:
    """A code cell's launches, each with the variables set before it; ``env`` gains the
    cell's own ``%env`` variables, ``imports`` the names its imports bind."""
    code = ipython(cell.source)
    launches: list[Invocation] = []
    if code.python is not None:
        found = _python(path, code.python.text, context, imports)
        launches.extend(_relocated(code.python, found))
    for command in code.shell:
        held = _interpolated(command)
        unresolved = unresolving(held, command.text)
        launches.extend(unresolved(invocation) for invocation in _shell(path, held, context))
    variables = [
        named(name.token(), value.token().with_text(value.text, literal))
        for name, value, literal in code.env
    ]
    return _with_env(launches, env, variables)


def _with_env(
    launches: Sequence[Invocation], env: dict[str, EnvVar], variables: Sequence[EnvVar]
) -> list[Invocation]:
    """Each launch with ``env`` and the ``variables`` written ahead of it; ``env`` gains the
    variables.  One walk in file order; launches between two assignments share one mapping."""
    pending = [variable for variable in variables if variable.name_span is not None]
    pending.sort(key=_start)
    found: list[Invocation] = []
    taken = 0
    shared = dict(env)
    for invocation in sorted(launches, key=lambda launch: launch.anchor.start):
        start = invocation.anchor.start
        before = taken
        while taken < len(pending) and _start(pending[taken]) < start:
            _assign(env, pending[taken])
            taken += 1
        if taken != before:
            shared = dict(env)
        found.append(enclosed(invocation, KIND, Deployment(env=shared)))
    for variable in pending[taken:]:
        _assign(env, variable)
    return found


def _start(variable: EnvVar) -> Pos:
    return variable.name_span.start if variable.name_span else Pos(0, 0)


def _assign(env: dict[str, EnvVar], variable: EnvVar) -> None:
    # Bounded: every launch after it carries the environment, so a hostile notebook setting
    # thousands of names before thousands of launches would cost their product.
    if variable.name in env or len(env) < MAX_VARIABLES:
        env[variable.name] = variable


def _python(
    path: str, text: str, context: ExtractContext, imports: dict[str, str]
) -> list[Invocation]:
    try:
        return python.extract(path, text, context.inner(python.KIND), imports=imports)
    except Unparsable:
        return []  # a cell that is not Python (yet): the others are still read


def _markdown(path: str, text: str, context: ExtractContext) -> list[Invocation]:
    try:
        return markdown.extract(path, text, context.inner(markdown.KIND))
    except Unparsable:
        return []


def _relocated(cell: Chars, found: list[Invocation]) -> list[Invocation]:
    """Launches an extractor positioned in the cell's text alone, at their file positions."""
    index = LineIndex(cell.text)

    def move(pos: Pos) -> Pos:
        return cell.locate(index.offset(pos))

    return [moved(invocation, move) for invocation in found]


def _shell(path: str, command: Chars, context: ExtractContext) -> list[Invocation]:
    return shell.extract(path, command.text, context.inner(shell.KIND, command.locate))


def _interpolated(command: Chars) -> Chars:
    """A ``!`` command with IPython's ``{expr}`` interpolations (one line each; ``{{`` and
    ``}}`` are plain braces) held as unresolved values."""
    ranges = [match.span() for match in _INTERPOLATION.finditer(command.text)
              if match.group(1) is not None]
    return hold(command, ranges)
