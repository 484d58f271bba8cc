"""Makefiles: the vLLM launches in rule recipes, read as the shell that Make runs them in.

``vlint.syntax.makefile`` gives each rule's recipe with the Make layer removed (the ``@``, ``-``
and ``+`` prefixes, ``$$`` as ``$``, continuations as Make passes them); the shell extractor
reads it.  Make's own references (``$(MODEL)``, ``${PORT}``, ``$(shell ...)``, ``$@``) are
unresolved values: Make variables are not resolved, and a flag whose value is one is checked
no further than a shell variable would be.  ``define`` blocks are not recipes.
"""

from __future__ import annotations

from vlint.extract import shell
from vlint.extract.deployment import enclosed
from vlint.extract.expansions import hold, unresolved
from vlint.extract.nested import ExtractContext
from vlint.model import Invocation
from vlint.syntax.makefile import recipes

KIND = "makefile"


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    context = context or ExtractContext((KIND,))
    found: list[Invocation] = []
    for recipe in recipes(text, context.locator(text)):
        script = recipe.script
        held = hold(script, _runs(script.literal))
        for invocation in shell.extract(path, held.text, context.inner(shell.KIND, held.locate)):
            found.append(enclosed(unresolved(invocation, held, script.text), KIND))
    return found


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
