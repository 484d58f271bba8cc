"""``{{ ... }}`` templates that a task runner expands in a command before any shell reads it.

go-task expands Go templates (``{{.MODEL}}``, ``{{.CLI_ARGS}}``; https://taskfile.dev/docs/
reference/templating) and just its interpolations (``{{ model }}``, ``{{{{`` for a literal
``{{``; https://just.systems/man/en/ "Recipe Interpolation", casey/just ``src/lexer.rs``,
``INTERPOLATION_ESCAPE``) in a command's text.  vlint resolves neither: it only needs to know
where each one is, so that the characters it stands for are unresolved.

Knows nothing of vLLM.  One pass: each template is the shortest ``{{ ... }}`` from its opening,
and one that is never closed runs to the end of the text (the tool refuses it).
"""

from __future__ import annotations

__all__ = ["template_runs", "unliteral_runs"]

_OPEN, _CLOSE = "{{", "}}"
_ESCAPE = "{{{{"


def template_runs(text: str, *, escape: bool = False) -> list[tuple[int, int]]:
    """The ``(start, end)`` ranges of ``text`` that are templates; with ``escape`` (just), a
    ``{{{{`` is the text ``{{``, no template."""
    runs: list[tuple[int, int]] = []
    index = text.find(_OPEN)
    while index >= 0:
        if escape and text.startswith(_ESCAPE, index):
            index = text.find(_OPEN, index + len(_ESCAPE))
            continue
        close = text.find(_CLOSE, index + len(_OPEN))
        end = len(text) if close < 0 else close + len(_CLOSE)
        runs.append((index, end))
        index = text.find(_OPEN, end)
    return runs


def unliteral_runs(literal: tuple[bool, ...]) -> list[tuple[int, int]]:
    """The ``(start, end)`` runs of characters flagged not literal (a reader's templates)."""
    runs: list[tuple[int, int]] = []
    start = -1
    for index, flag in enumerate((*literal, True)):
        if not flag and start < 0:
            start = index
        elif flag and start >= 0:
            runs.append((start, index))
            start = -1
    return runs
