"""systemd service units: the ``ExecStart=`` lines of ``[Service]`` that launch vLLM.

Lines ending in a backslash continue on the next line (the backslash becomes a space, and
comment lines in between are dropped, as systemd reads them).  The prefixes ``-``, ``@``, ``+``,
``!``, ``!!`` and ``:`` are removed (with ``@`` the second word is only ``argv[0]``, so it is
dropped).  ``Environment=`` assignments become the invocation's environment; an empty
``ExecStart=`` or ``Environment=`` resets what came before, as in systemd.  An
``EnvironmentFile=`` is not read: the environment is then incomplete, and since the file's
settings override ``Environment=`` (systemd.exec(5)), the values written there are not known
either (their names are).

The command line is parsed by the shell extractor.  systemd's quoting is close to the shell's
for these purposes but not the same: systemd decodes C escapes (``\\t``) inside and outside
quotes, expands ``%`` specifiers, and passes ``;``, ``|``, ``&&`` and ``>`` to the program as
plain words (vlint reads them as the shell does).  ``$VAR`` and ``${VAR}`` stay unresolved.
"""

from __future__ import annotations

import re
from dataclasses import replace

from vlint.errors import Unparsable
from vlint.extract import deployment, shell
from vlint.extract.compose import split_words
from vlint.extract.nested import ExtractContext
from vlint.model import Deployment, EnvVar, Invocation, LineIndex, Locator
from vlint.syntax.lines import Chars

KIND = "systemd"
_SECTION = re.compile(r"\s*\[([^\]]*)\]")
_KEY = re.compile(r"\s*([A-Za-z0-9_-]+)\s*=\s*")
_PREFIXES = "-@+!:"


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    section = ""
    exec_starts: list[Chars] = []
    env: dict[str, EnvVar] = {}
    env_files = False
    for line in _logical_lines(text, context.locate if context else None):
        header = _SECTION.match(line.text)
        if header is not None and not line.text[header.end() :].strip():
            section = header.group(1)
            continue
        key = _KEY.match(line.text)
        if section != "Service" or key is None:
            continue
        value = line.slice(key.end(), len(line.text.rstrip()))
        if key.group(1) == "ExecStart":
            exec_starts = [value] if value.text else []
        elif key.group(1) == "Environment":
            if not value.text:
                env = {}
            env.update(deployment.environment(map(deployment.assignment, split_words(value))))
        elif key.group(1) == "EnvironmentFile":
            env_files = bool(value.text)
    if env_files:
        env = {name: replace(variable, value=variable.value.with_text(variable.value.text, False))
               for name, variable in env.items()}
    found: list[Invocation] = []
    for command in exec_starts:
        command, drop_argv0 = _without_prefixes(command)
        _check_quotes(command)
        if drop_argv0:
            command = _drop_second_word(command)
        for invocation in shell.extract(path, command.text, command.locate):
            found.append(deployment.enclosed(
                invocation, KIND, Deployment(env=env, env_complete=not env_files)))
    return found


def _logical_lines(text: str, locate: Locator | None) -> list[Chars]:
    index_table = LineIndex.of(text)
    starts, locate = index_table.starts, locate or index_table.locate
    lines = text.split("\n")
    result: list[Chars] = []
    index = 0
    while index < len(lines):
        chars: list[str] = []
        offsets: list[int] = []
        end = starts[index]
        while index < len(lines):
            line = lines[index].removesuffix("\r")
            start = starts[index]
            index += 1
            if chars and line.lstrip().startswith(("#", ";")):
                continue
            # A continuation's backslash becomes a space, in its place.
            chars.append(line[:-1] + " " if line.endswith("\\") else line)
            offsets.extend(range(start, start + len(line)))
            end = start + len(line)
            if not line.endswith("\\"):
                break
        text_line = "".join(chars)
        if not text_line.lstrip().startswith(("#", ";")):
            result.append(Chars.at(text_line, (*offsets, end), locate))
    return result


def _check_quotes(command: Chars) -> None:
    """systemd refuses a command line with an unterminated quote (and does not start)."""
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
        raise Unparsable("unterminated quote in ExecStart=", command.pos(quote_at))


def _without_prefixes(command: Chars) -> tuple[Chars, bool]:
    index = 0
    while index < len(command.text) and command.text[index] in _PREFIXES:
        index += 1
    return command.slice(index, len(command.text)), "@" in command.text[:index]


def _drop_second_word(command: Chars) -> Chars:
    """``@/usr/bin/vllm name serve ...``: ``name`` is only argv[0]; the program is the first."""
    match = re.match(r"(\s*\S+)(\s+\S+)", command.text)
    if match is None:
        return command
    start, cut = match.end(1), match.end(2)
    kept = (*range(start), *range(cut, len(command.text) + 1))
    return Chars.at(
        command.text[:start] + command.text[cut:],
        [command.offset(index) for index in kept],
        command.locator,
        command.literal[:start] + command.literal[cut:],
    )

