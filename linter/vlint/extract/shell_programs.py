"""A shell script: the launches of its commands (``vlint.extract.shell``) and of the Python
programs it feeds an interpreter through here-documents.

``python3 <<'EOF' ... EOF`` (also ``python - <<EOF``, ``python -u``) runs the body as a
program read from standard input (https://docs.python.org/3/using/cmdline.html: "``-``: read
commands from standard input"; with no script argument the same), as Slurm jobs and runbooks
write ``LLM(model=...)`` inline.  The body is read as Python, every character at its place in
the file.  A body the shell expands (an unquoted delimiter) is read only when it holds no
expansion: ``$MODEL`` there would be a value vlint does not know inside the program's text.
``python -c``/``-m`` or a script argument means the body is that program's input, not code.

This module sits above the shell reader so that the shell reader, which the Python reader uses
for ``subprocess`` command lines, never imports the Python reader.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import replace

from vlint.errors import Unparsable
from vlint.extract import python, shell
from vlint.extract.argv import PYTHON, PYTHON_SWITCHES
from vlint.extract.nested import ExtractContext, moved
from vlint.model import Invocation, LineIndex, Locator, Pos
from vlint.syntax.heredoc import Heredoc, heredocs
from vlint.syntax.shell import ShellCommand, iter_commands

KIND = shell.KIND
# Interpreter words that leave the program on standard input: ``-`` and the options that take
# no value (``-c``, ``-m``, ``-W x``, ``-X x`` or a script's name put the program elsewhere).
_STDIN_WORDS = PYTHON_SWITCHES | {"-"}


def extract(path: str, text: str, context: ExtractContext | Locator | None = None,
            *, unknown: Sequence[tuple[int, int]] = ()) -> list[Invocation]:
    """The launches of the script's commands and of its Python here-documents."""
    found = shell.extract(path, text, context, unknown=unknown)
    if isinstance(context, ExtractContext):
        locate, origin = context.locator(text), context.origin or (KIND,)
    else:
        locate, origin = context or LineIndex.of(text).locate, (KIND,)
    found.extend(python_heredocs(path, text, locate, origin))
    return found


def python_heredocs(path: str, text: str, locate: Locator,
                    origin: tuple[str, ...]) -> list[Invocation]:
    """The launches of the Python programs ``text`` runs from here-documents, positioned
    through ``locate`` (offsets of ``text``), their origin ``origin`` then Python."""
    if "<<" not in text or "python" not in text:
        return []
    bodies = [body for body in heredocs(text)
              if "vllm" in body.text.lower() and (body.quoted or not body.expanded)]
    if not bodies:
        return []
    index = LineIndex.of(text)
    commands = list(iter_commands(text, index.locate))
    starts = [index.offset(command.span.start) for command in commands]
    found: list[Invocation] = []
    for body in bodies:
        number = bisect_right(starts, body.redirect) - 1
        if number < 0 or body.redirect >= commands[number].end \
                or not _reads_program(commands[number]):
            continue
        try:
            inside = python.extract(path, body.text)
        except Unparsable:
            continue
        move = _mover(body, locate)
        found.extend(replace(moved(invocation, move), origin=(*origin, *invocation.origin))
                     for invocation in inside)
    return found


def _reads_program(command: ShellCommand) -> bool:
    """Whether the command is a Python interpreter reading its program from standard input."""
    words = [word.text for word in command.words]
    if not words or not PYTHON.match(words[0].rsplit("/", 1)[-1]):
        return False
    return all(word in _STDIN_WORDS for word in words[1:])


def _mover(body: Heredoc, locate: Locator) -> Callable[[Pos], Pos]:
    """Maps a position in the body alone to its place in the file."""
    lines = LineIndex.of(body.text)

    def move(pos: Pos) -> Pos:
        offset = min(max(lines.offset(pos), 0), len(body.text))
        return locate(body.offsets[offset])

    return move
