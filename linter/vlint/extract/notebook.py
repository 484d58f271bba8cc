"""Jupyter notebooks (``.ipynb``): the vLLM launches in their cells, at exact ``.ipynb`` positions.

``vlint.syntax.notebook`` reads the JSON (a file that is not JSON is VL002, at the place it goes
wrong) and gives every cell's text with each character's offset in the file, through JSON
escapes.  Then, as Jupyter runs them:

- code cells are Python (``LLM(...)``, argv lists, ``subprocess.run(...)``), IPython's magic
  lines masked so that the rest still parses (a cell that does not parse is skipped);
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

from collections.abc import Sequence

from vlint.errors import Unparsable
from vlint.extract import markdown, python, shell
from vlint.extract.deployment import enclosed, named
from vlint.extract.expansions import hold, unresolved
from vlint.extract.nested import ExtractContext, moved
from vlint.model import Deployment, EnvVar, Invocation, LineIndex, Pos
from vlint.syntax.lines import Chars
from vlint.syntax.notebook import Cell, ipython, parse

KIND = "notebook"
_SHELL_KERNELS = frozenset({"bash", "sh", "shell", "zsh"})


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    """Every vLLM launch in the notebook; raises Unparsable when it is not a notebook."""
    context = context or ExtractContext((KIND,))
    notebook = parse(text, context.locator(text))
    language = notebook.language
    found: list[Invocation] = []
    env: dict[str, EnvVar] = {}
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            launches = _relocated(cell.source, _markdown(path, cell.source.text, context))
            found.extend(enclosed(invocation, KIND) for invocation in launches)
        elif cell.cell_type != "code":
            continue
        elif language in _SHELL_KERNELS:
            found.extend(_with_env(_shell(path, cell.source, context), env, []))
        elif language is None or language.startswith("python"):
            found.extend(_code(path, cell, context, env))
    return found


def _code(
    path: str, cell: Cell, context: ExtractContext, env: dict[str, EnvVar]
) -> list[Invocation]:
    """A code cell's launches, each with the variables set before it; ``env`` gains the
    cell's own ``%env`` variables."""
    code = ipython(cell.source)
    launches: list[Invocation] = []
    if code.python is not None:
        launches.extend(_relocated(code.python, _python(path, code.python.text, context)))
    for command in code.shell:
        held = _interpolated(command)
        launches.extend(
            unresolved(invocation, held, command.text)
            for invocation in _shell(path, held, context)
        )
    variables = [
        named(name.token(), value.token().with_text(value.text, literal))
        for name, value, literal in code.env
    ]
    found = _with_env(sorted(launches, key=lambda i: i.anchor.start), env, variables)
    env.update((variable.name, variable) for variable in variables)
    return found


def _with_env(
    launches: Sequence[Invocation], before: dict[str, EnvVar], variables: Sequence[EnvVar]
) -> list[Invocation]:
    """Each launch with ``before`` and the ``variables`` written ahead of it (in this cell)."""
    found: list[Invocation] = []
    for invocation in launches:
        start = invocation.anchor.start
        env = dict(before)
        env.update((v.name, v) for v in variables if v.name_span and v.name_span.start < start)
        found.append(enclosed(invocation, KIND, Deployment(env=env)))
    return found


def _python(path: str, text: str, context: ExtractContext) -> list[Invocation]:
    try:
        return python.extract(path, text, context.inner(python.KIND))
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
    """A ``!`` command with IPython's ``{expr}`` interpolations held as unresolved values."""
    text = command.text
    ranges: list[tuple[int, int]] = []
    index = text.find("{")
    while index != -1:
        if text.startswith("{{", index):
            index = text.find("{", index + 2)
            continue
        end = text.find("}", index + 1)
        newline = text.find("\n", index + 1)
        if end == -1 or (newline != -1 and newline < end):
            index = text.find("{", index + 1)
            continue
        ranges.append((index, end + 1))
        index = text.find("{", end + 1)
    return hold(command, ranges)
