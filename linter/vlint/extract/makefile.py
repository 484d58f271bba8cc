"""Makefiles: the vLLM launches in rule recipes, read as the shell that Make runs them in.

``vlint.syntax.makefile`` gives each rule's recipe with the Make layer removed (the ``@``, ``-``
and ``+`` prefixes, ``$$`` as ``$``, continuations as Make passes them); the shell extractor
reads it.  A variable the makefile assigns once with a plain value (``IMAGE =
vllm/vllm-openai``, ``PORT ?= 8000``) is read in its references, each character at its place in
the assignment, as the default a ``make`` run without overrides expands; Make's other references
(``$(shell ...)``, ``$@``, a variable assigned twice or with ``+=``) are unresolved values,
checked no further than a shell variable would be.  ``define`` blocks are not recipes.
Variables the makefile exports (``export NAME = value``) are the environment of every recipe's
launches.
"""

from __future__ import annotations

from collections.abc import Sequence

from vlint.extract import shell
from vlint.extract.deployment import enclosed, named
from vlint.extract.expansions import hold, map_tokens, unresolving
from vlint.extract.nested import ExtractContext
from vlint.model import Deployment, EnvVar, Invocation, Pos, Token
from vlint.syntax.lines import Chars
from vlint.syntax.makefile import expanded, read
from vlint.syntax.templates import unliteral_runs

KIND = "makefile"
MAX_VARIABLES = 200  # distinct exported names; a makefile exports a few


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    context = context or ExtractContext((KIND,))
    makefile = read(text, context.locator(text))
    around = Deployment(env=_exported(makefile.exports))
    found: list[Invocation] = []
    values = {pos for value in makefile.variables.values() for pos in value.positions[:-1]}
    for recipe in makefile.recipes:
        script = expanded(recipe.script, makefile.variables)
        held = hold(script, unliteral_runs(script.literal))
        unresolved = unresolving(held, script.text)
        for invocation in shell.extract(path, held.text, context.inner(shell.KIND, held.locate)):
            invocation = enclosed(unresolved(invocation), KIND, around)
            found.append(map_tokens(invocation, lambda t: _ended_in_value(t, values)))
    return found


def _ended_in_value(token: Token, values: set[Pos]) -> Token:
    """A word whose characters come from a variable's value (``$(MODEL)`` read at ``MODEL =
    org/m``): it ends where its last character does, in the assignment, not where the
    reference ends in the recipe; one gathered from the recipe and a value is ``gathered``."""
    positions = token.positions
    if not token.text or not any(p in values for p in positions[:-1]):
        return token
    last = positions[-2]
    placed = all(p in values for p in positions[:-1])
    end = Pos(last.line, last.column + 1) if last in values else positions[-1]
    return Token(token.text, (*positions[:-1], end), token.literal, token.condition,
                 gathered=token.gathered or not placed, unwritten=token.unwritten)


def _exported(exports: Sequence[tuple[Chars, Chars]]) -> dict[str, EnvVar]:
    """The exported variables, the last of a name winning; at most ``MAX_VARIABLES`` names
    (every launch carries them all: a hostile makefile must not cost their product)."""
    env: dict[str, EnvVar] = {}
    for name, value in exports:
        if name.text in env or len(env) < MAX_VARIABLES:
            env[name.text] = named(name.token(), value.token())
    return env
