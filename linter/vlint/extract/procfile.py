"""Procfiles (Heroku, foreman, honcho): the vLLM launches among the process types' commands.

A Procfile declares one process type a line, ``<process type>: <command>``
(https://devcenter.heroku.com/articles/procfile).  The line is read as foreman and honcho read
it, ``^([A-Za-z0-9_-]+):\\s*(.+)$`` (ddollar/foreman ``lib/foreman/procfile.rb``, ``parse``;
nickstenning/honcho ``honcho/environ.py``, ``PROCFILE_LINE``); any other line (a comment, a
blank line, an indented one) declares nothing.  The command is a shell command line: honcho
runs it with ``subprocess.Popen(..., shell=True)`` (``honcho/process.py``), foreman with Ruby's
``Process.spawn(env, command)``, which hands a command line to ``/bin/sh``
(``lib/foreman/process.rb``, ``run``), and Heroku's own examples use the shell's variables
(``web: bundle exec rails server -p $PORT``, "The web process type").  So the command is read
as shell: ``$PORT``, which the platform or foreman sets for each process, stays an unresolved
value.  The environment is the app's config vars (Heroku) or the ``.env`` beside the Procfile
(foreman's and honcho's default): vlint reads neither, so it is never complete.
"""

from __future__ import annotations

import re

from vlint.extract import deployment, shell
from vlint.extract.nested import ExtractContext
from vlint.model import Deployment, Invocation, Locator, Pos

KIND = "procfile"
_PROCESS = re.compile(r"([A-Za-z0-9_-]+):\s*(.+)")
_AROUND = Deployment(env_complete=False)


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    context = context or ExtractContext((KIND,))
    locate = context.locator(text)
    found: list[Invocation] = []
    start = 0
    for raw in text.split("\n"):
        line = raw.removesuffix("\r")
        process = _PROCESS.fullmatch(line)
        # Each command is a shell of its own; one that never names vLLM (any case) launches
        # nothing vlint recognises, and is not parsed (a file of 100,000 processes stays fast).
        if process is not None and "vllm" in line.lower():
            command = line[process.start(2):]
            inner = context.inner(shell.KIND, _shifted(locate, start + process.start(2)))
            found.extend(deployment.enclosed(invocation, KIND, _AROUND)
                         for invocation in shell.extract(path, command, inner))
        start += len(raw) + 1
    return found


def _shifted(locate: Locator, start: int) -> Locator:
    """The locator of a command that starts at offset ``start`` of the file's text."""

    def at(offset: int) -> Pos:
        return locate(start + offset)

    return at
