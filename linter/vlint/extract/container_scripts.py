"""A container that runs a script from the repository: the script's launches as the
container's.

``ENTRYPOINT ["/start.sh"]`` after ``COPY start.sh /start.sh`` (a Dockerfile), or compose's
``entrypoint: ["/usr/local/bin/serve"]`` with ``./serve.sh:/usr/local/bin/serve`` mounted: the
container starts the script, and what the script launches is the container's launch.  The
script is read from the repository (confined to it, at most ``MAX_SCRIPT_SIZE`` bytes) by the
Python reader (``python3 /app/serve.py``, a ``.py`` file) or the shell reader; it is a file
vlint lints too, so its own words are placed at ``BORROWED`` (``Invocation.borrowed_at``) and
reported there only.  The arguments the container gives the
script (``CMD`` after an ``ENTRYPOINT``, compose's ``command:``) take the place of its ``"$@"``
at their places in the file that writes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from vlint.discover import Refused, confined_read, linted_roots
from vlint.errors import Unparsable
from vlint.extract import python, shell
from vlint.extract.argv import PYTHON, PYTHON_SWITCHES, SHELLS, forwarded
from vlint.extract.nested import moved
from vlint.model import BORROWED, Invocation, Token

MAX_SCRIPT_SIZE = 1 << 20


def script_launches(path: str, kind: str, words: Sequence[Token],
                    host_path: str | None) -> list[Invocation]:
    """The launches of the script ``words`` run (its path first, or after a shell: ``bash
    /app/run.sh``), read at ``host_path`` (None: not known), anchored at its word in ``path``,
    the words after it in place of its ``"$@"``."""
    if host_path is None:
        return []
    try:
        text = confined_read(host_path, linted_roots([path]), MAX_SCRIPT_SIZE).decode("utf-8")
    except (Refused, OSError, UnicodeDecodeError):
        return []
    if "vllm" not in text.lower():
        return []
    try:
        inside = (python.extract(host_path, text) if host_path.endswith(".py")
                  else shell.extract(host_path, text))
    except Unparsable:
        return []
    at = script_at(words)
    given = tuple(words[at + 1:])
    return [replace(forwarded(moved(invocation, lambda _: BORROWED), given), path=path,
                    anchor=words[at].span, origin=(kind, *invocation.origin),
                    borrowed_at=BORROWED)
            for invocation in inside]


def script_at(words: Sequence[Token]) -> int:
    """The index of the script's path among the command's words: after a shell, or after a
    Python interpreter and its ``-u``-like options (``python3 -u /app/serve.py``)."""
    if not words:
        return 0
    program = words[0].text.rsplit("/", 1)[-1]
    if program in SHELLS:
        return 1
    if PYTHON.match(program):
        at = 1
        while at < len(words) and words[at].text in PYTHON_SWITCHES:
            at += 1
        return at
    return 0
