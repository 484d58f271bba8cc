"""justfiles (casey/just): the vLLM launches in recipe bodies, read as the shell that runs them.

``vlint.syntax.justfile`` gives each recipe's body with just's layer removed (the indentation,
the ``@`` and ``-`` sigils, continuations joined as just joins them, ``{{{{`` as ``{{``); the
shell extractor reads it.  just's interpolations (``{{ model }}``, ``{{ MODEL }}``) are
unresolved values, kept as written, as Make's references are in a makefile
(``vlint.extract.makefile``).  A linewise recipe is read when ``set shell`` is a POSIX-style
shell (``sh -cu`` by default), a script recipe (``#!/usr/bin/env bash``, ``[script("bash")]``)
when its interpreter is one; a recipe run by another interpreter (``python3``, ``nu``,
PowerShell) is not read, and a launch in it is reported as unread (VL004).

Variables the justfile exports (``export NAME := "value"``, or every variable under
``set export``) are the environment of every recipe's launches; a value other than a plain
string is unknown.  https://just.systems/man/en/ ("Settings", "Exporting just Variables",
"Shebang Recipes", "Script Recipes").
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from vlint.extract import shell
from vlint.extract.deployment import enclosed, named
from vlint.extract.expansions import hold, unresolving
from vlint.extract.nested import ExtractContext
from vlint.model import Deployment, EnvVar, Invocation
from vlint.syntax.justfile import Recipe, read
from vlint.syntax.lines import Chars
from vlint.syntax.templates import unliteral_runs

KIND = "justfile"
MAX_VARIABLES = 200  # distinct exported names; every launch carries them all
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash", "mksh"})


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    context = context or ExtractContext((KIND,))
    justfile = read(text, context.locator(text))
    around = Deployment(env=_exported(justfile.exports))
    linewise = _is_shell(justfile.shell)
    found: list[Invocation] = []
    for recipe in justfile.recipes:
        if not (_is_shell(recipe.script) if recipe.script is not None else linewise):
            continue
        found.extend(enclosed(invocation, KIND, around) for invocation in _launches(path, recipe,
                                                                                  context))
    return found


def _launches(path: str, recipe: Recipe, context: ExtractContext) -> list[Invocation]:
    body = recipe.body
    held = hold(body, unliteral_runs(body.literal))
    unresolved = unresolving(held, body.text)
    inner = context.inner(shell.KIND, held.locate)
    return [unresolved(invocation) for invocation in shell.extract(path, held.text, inner)]


def _is_shell(words: Sequence[str] | None) -> bool:
    """Whether an interpreter's words run a POSIX-style shell (``/usr/bin/env bash``
    included)."""
    if not words:
        return False
    names = [os.path.basename(word) for word in words]
    if names[0] == "env":
        names = [name for name in names[1:] if not name.startswith("-")]
    return bool(names) and names[0] in _SHELLS


def _exported(exports: Sequence[tuple[Chars, Chars]]) -> dict[str, EnvVar]:
    """The exported variables, the last of a name winning; at most ``MAX_VARIABLES`` names."""
    env: dict[str, EnvVar] = {}
    for name, value in exports:
        if name.text in env or len(env) < MAX_VARIABLES:
            env[name.text] = named(name.token(), value.token())
    return env

