"""Makefiles: the vLLM launches in rule recipes, read as the shell that Make runs them in.

``vlint.syntax.makefile`` gives each rule's recipe with the Make layer removed (the ``@``, ``-``
and ``+`` prefixes, ``$$`` as ``$``, continuations as Make passes them); the shell extractor
reads it.  Make's own references (``$(MODEL)``, ``${PORT}``, ``$(shell ...)``, ``$@``) are
unresolved values: Make variables are not resolved, and a flag whose value is one is checked
no further than a shell variable would be.  ``define`` blocks are not recipes.  Variables the
makefile exports (``export NAME = value``) are the environment of every recipe's launches.
"""

from __future__ import annotations

from collections.abc import Sequence

from vlint.extract import shell
from vlint.extract.deployment import enclosed, named
from vlint.extract.expansions import hold, unresolving
from vlint.extract.nested import ExtractContext
from vlint.model import Deployment, EnvVar, Invocation
from vlint.syntax.lines import Chars
from vlint.syntax.makefile import read

KIND = "makefile"
MAX_VARIABLES = 200  # distinct exported names; a makefile exports a few


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    context = context or ExtractContext((KIND,))
    makefile = read(text, context.locator(text))
    around = Deployment(env=_exported(makefile.exports))
    found: list[Invocation] = []
    for recipe in makefile.recipes:
        script = recipe.script
        held = hold(script, _runs(script.literal))
        unresolved = unresolving(held, script.text)
        for invocation in shell.extract(path, held.text, context.inner(shell.KIND, held.locate)):
            found.append(enclosed(unresolved(invocation), KIND, around))
    return found


def _exported(exports: Sequence[tuple[Chars, Chars]]) -> dict[str, EnvVar]:
    """The exported variables, the last of a name winning; at most ``MAX_VARIABLES`` names
    (every launch carries them all: a hostile makefile must not cost their product)."""
    env: dict[str, EnvVar] = {}
    for name, value in exports:
        if name.text in env or len(env) < MAX_VARIABLES:
            env[name.text] = named(name.token(), value.token())
    return env


def _runs(literal: tuple[bool, ...]) -> list[tuple[int, int]]:
    """The ``(start, end)`` runs of characters that are not literal (Make's references)."""
    runs: list[tuple[int, int]] = []
    start = -1
    for index, flag in enumerate((*literal, True)):
        if not flag and start < 0:
            start = index
        elif flag and start >= 0:
            runs.append((start, index))
            start = -1
    return runs
