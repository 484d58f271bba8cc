"""Random launches written in each task-runner kind: the argv read back is the argv written,
and every character of every literal argument sits, in the file, where the extractor says."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import pytest

from tests.robustness.robust_support import offset, random_argv, shell_command
from vlint.extract import justfile, procfile, supervisord, taskfile
from vlint.model import Invocation


def _quoted(rng: random.Random, word: str) -> str:
    return rng.choice([word, f"'{word}'", f'"{word}"'])


def _justfile(rng: random.Random, argv: Sequence[str]) -> str:
    body = shell_command(rng, ["vllm", "serve", *argv], indent="    ")
    sigil = rng.choice(["", "@", "-", "@-"])
    return f'model := "m"\n\n# serve it\nserve port="8000": deps\n    {sigil}{body}\n'


def _procfile(rng: random.Random, argv: Sequence[str]) -> str:
    command = " ".join(_quoted(rng, word) for word in ["vllm", "serve", *argv])
    return f"# processes\nweb: {command}\nworker: celery worker\n"


def _supervisord(rng: random.Random, argv: Sequence[str]) -> str:
    words = [_quoted(rng, word) for word in ["/opt/venv/bin/vllm", "serve", *argv]]
    command = "".join(word + rng.choice([" ", " ", "\n    ", "   ; note\n  "]) for word in words)
    return f"[program:vllm]\ncommand={command.rstrip()}\nautorestart=true\n"


def _taskfile(rng: random.Random, argv: Sequence[str]) -> str:
    command = shell_command(rng, ["vllm", "serve", *argv], indent="        ")
    return f"version: '3'\ntasks:\n  serve:\n    cmds:\n      - |\n        {command}\n"


HOSTS: dict[str, tuple[Callable[[random.Random, Sequence[str]], str], Callable[..., object]]] = {
    "justfile": (_justfile, justfile.extract),
    "procfile": (_procfile, procfile.extract),
    "supervisord": (_supervisord, supervisord.extract),
    "taskfile": (_taskfile, taskfile.extract),
}


@pytest.mark.parametrize("kind", sorted(HOSTS))
def test_every_literal_character_is_where_it_was_written(kind: str) -> None:
    write, extract = HOSTS[kind]
    rng = random.Random(kind)
    for _ in range(40):
        argv = random_argv(rng, rng.randrange(1, 6), None)
        text = write(rng, argv)
        found = extract("f", text)
        assert isinstance(found, list) and len(found) == 1, text
        (invocation,) = found
        assert isinstance(invocation, Invocation)
        assert [token.text for token in invocation.args] == argv, text
        for token in invocation.args:
            assert token.literal, (text, token)
            for index, char in enumerate(token.text):
                assert text[offset(text, token.pos(index))] == char, (text, token.text, index)
