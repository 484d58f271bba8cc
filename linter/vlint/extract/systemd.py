"""systemd service units: the ``ExecStart=`` lines of ``[Service]`` that launch vLLM.

Lines ending in a backslash continue on the next line (the backslash becomes a space, and
comment lines in between are dropped, as systemd reads them).  The prefixes ``-``, ``@``, ``+``,
``!``, ``!!`` and ``:`` are removed (with ``@`` the second word is only ``argv[0]``, so it is
dropped).  ``Environment=`` assignments become the invocation's environment; an empty
``ExecStart=`` or ``Environment=`` resets what came before, as in systemd.

The command line is parsed by the shell extractor.  systemd's quoting is close to the shell's
for these purposes but not the same: systemd decodes C escapes (``\\t``) inside and outside
quotes, expands ``%`` specifiers, and passes ``;``, ``|``, ``&&`` and ``>`` to the program as
plain words (vlint reads them as the shell does).  ``$VAR`` and ``${VAR}`` stay unresolved.
"""

from __future__ import annotations

import re
from dataclasses import replace

from vlint.extract.compose import Chars, split_words
from vlint.model import Invocation, Pos, Token

KIND = "systemd"
_SECTION = re.compile(r"\s*\[([^\]]*)\]")
_KEY = re.compile(r"\s*([A-Za-z0-9_-]+)\s*=\s*")
_PREFIXES = "-@+!:"


def extract(path: str, text: str) -> list[Invocation]:
    from vlint.extract import shell

    section = ""
    exec_starts: list[Chars] = []
    env: dict[str, Token] = {}
    for line in _logical_lines(text):
        header = _SECTION.match(line.text)
        if header is not None and not line.text[header.end() :].strip():
            section = header.group(1)
            continue
        key = _KEY.match(line.text)
        if section != "Service" or key is None:
            continue
        value = _slice(line, key.end(), len(line.text.rstrip()))
        if key.group(1) == "ExecStart":
            exec_starts = [value] if value.text else []
        elif key.group(1) == "Environment":
            if not value.text:
                env = {}
            for word in split_words(value):
                name, equals, _ = word.text.partition("=")
                if equals:
                    cut = len(name) + 1
                    env[name] = Token(word.text[cut:], word.positions[cut:], word.literal)
    found: list[Invocation] = []
    for command in exec_starts:
        command, drop_argv0 = _without_prefixes(command)
        _check_quotes(command)
        if drop_argv0:
            command = _drop_second_word(command)
        for invocation in shell.extract(path, command.text, command.locate):
            found.append(replace(invocation, kind=KIND, env={**env, **invocation.env}))
    return found


def _logical_lines(text: str) -> list[Chars]:
    lines = text.split("\n")
    result: list[Chars] = []
    index = 0
    while index < len(lines):
        chars: list[str] = []
        positions: list[Pos] = []
        end = Pos(index + 1, 1)
        while index < len(lines):
            line = lines[index].removesuffix("\r")
            index += 1
            if chars and line.lstrip().startswith(("#", ";")):
                continue
            continued = line.endswith("\\")
            for column, char in enumerate(line):
                chars.append(" " if continued and column == len(line) - 1 else char)
                positions.append(Pos(index, column + 1))
            end = Pos(index, len(line) + 1)
            if not continued:
                break
        text_line = "".join(chars)
        if not text_line.lstrip().startswith(("#", ";")):
            result.append(Chars(text_line, (*positions, end), (True,) * len(chars)))
    return result


def _check_quotes(command: Chars) -> None:
    """systemd refuses a command line with an unterminated quote (and does not start)."""
    from vlint.errors import Unparsable

    quote_at = -1
    index = 0
    text = command.text
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if quote_at < 0 and char in "\"'" and (index == 0 or text[index - 1] in " \t"):
            quote_at = index
        elif quote_at >= 0 and char == text[quote_at]:
            quote_at = -1
        index += 1
    if quote_at >= 0:
        raise Unparsable("unterminated quote in ExecStart=", command.positions[quote_at])


def _slice(chars: Chars, start: int, end: int) -> Chars:
    return Chars(chars.text[start:end], chars.positions[start : end + 1], chars.literal[start:end])


def _without_prefixes(command: Chars) -> tuple[Chars, bool]:
    index = 0
    while index < len(command.text) and command.text[index] in _PREFIXES:
        index += 1
    return _slice(command, index, len(command.text)), "@" in command.text[:index]


def _drop_second_word(command: Chars) -> Chars:
    """``@/usr/bin/vllm name serve ...``: ``name`` is only argv[0]; the program is the first."""
    match = re.match(r"(\s*\S+)(\s+\S+)", command.text)
    if match is None:
        return command
    start, cut = match.end(1), match.end(2)
    return Chars(
        command.text[:start] + command.text[cut:],
        command.positions[:start] + command.positions[cut:],
        command.literal[:start] + command.literal[cut:],
    )

