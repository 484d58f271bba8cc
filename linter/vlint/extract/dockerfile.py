"""Dockerfiles (and Containerfiles): what the built image runs, and ``RUN`` lines that start vLLM.

The instructions are read line by line: parser directives (``# escape=``), comments, line
continuations (a comment line inside a continuation is dropped, as Docker drops it) and heredocs
(``RUN <<EOF``).  Every character of a joined instruction keeps its file position.

The last stage is the image that runs.  Its command is joined as Docker joins it: an exec-form
``ENTRYPOINT`` followed by ``CMD``; a shell-form ``ENTRYPOINT`` ignores ``CMD``; an
``ENTRYPOINT`` resets a ``CMD`` inherited from an earlier stage; with no ``ENTRYPOINT`` and a
vLLM server base image, the ``CMD`` words are the server's arguments.  ``ARG`` and ``ENV``
values interpolate ``FROM`` and ``ENV``; a resolved ``${VAR}`` keeps the position of the
expression.  Interpolation is bounded: once the values substituted in one file pass
``MAX_EXPANDED`` characters (``ARG B=$A$A``, ``ARG C=$B$B``, ... doubles at every line), the file
is unparsable (VL002) rather than expanded.  White space is what Docker splits on (spaces and
tabs), never the other characters Python calls white space (``\x1c``, ``\x85``, ``\u2028``).  Shell-form commands go to the shell extractor (no variable is resolved there: the
shell does that when the container starts).  A malformed exec form (``CMD ["vllm", "serve"``)
raises Unparsable: Docker would run it through ``/bin/sh`` as written, which fails.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from vlint.extract.compose import Chars, interpolate, split_words
from vlint.model import Invocation, Pos, Span, Token

KIND = "dockerfile"
_DIRECTIVE = re.compile(r"#[ \t]*([A-Za-z]+)[ \t]*=[ \t]*([^ \t]*)[ \t]*$")
_HEREDOC = re.compile(r"(?<!<)<<(?!<)(-?)([\"']?)([A-Za-z0-9_.-]+)\2")
_HEREDOC_KEYWORDS = frozenset({"RUN", "COPY", "ADD"})
_INSTRUCTION = re.compile(r"[ \t]*([A-Za-z]+)")
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ash"})
_BLANKS = " \t"
_REFERENCE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
# No Dockerfile substitutes a megabyte of variable values; a doubling chain of 40 ARGs would
# substitute a terabyte.
MAX_EXPANDED = 1 << 20
_JSON_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
                 "t": "\t"}


@dataclass(frozen=True)
class Instruction:
    """One instruction: its keyword (upper case), its arguments, and its heredoc bodies."""

    keyword: str
    args: Chars
    heredocs: tuple[Chars, ...]
    start: Pos


@dataclass(frozen=True)
class Command:
    """A ``CMD``/``ENTRYPOINT`` value: exec-form words, or shell-form text."""

    words: tuple[Token, ...] | None
    shell: Chars | None


class _Budget:
    """The characters variable substitution may still produce in one file."""

    def __init__(self) -> None:
        self.left = MAX_EXPANDED

    def spend(self, chars: Chars, variables: Mapping[str, str]) -> None:
        """Charge the most that interpolating ``chars`` can substitute, before doing it."""
        from vlint.errors import Unparsable

        if "$" not in chars.text:
            return
        most = sum(len(variables.get(m.group(1), "")) for m in _REFERENCE.finditer(chars.text))
        self.left -= most
        if self.left < 0:
            raise Unparsable(
                f"ARG and ENV values expand to more than {MAX_EXPANDED:,} characters",
                chars.locate(0),
            )


@dataclass
class _Stage:
    base: str | None
    base_span: Span
    entrypoint: Command | None = None
    cmd: Command | None = None
    cmd_set: bool = False
    variables: dict[str, str] = field(default_factory=dict)
    env: dict[str, Token] = field(default_factory=dict)


def extract(path: str, text: str) -> list[Invocation]:
    """The command the image runs (when it launches vLLM) and every ``RUN`` that launches it."""
    instructions = parse(text)
    global_args: dict[str, str] = {}
    stages: dict[str, _Stage] = {}
    stage: _Stage | None = None
    found: list[Invocation] = []
    budget = _Budget()
    for instruction in instructions:
        keyword, args = instruction.keyword, instruction.args
        if keyword == "FROM":
            stage = _from(args, global_args, stages, budget)
        elif keyword == "ARG":
            scope = global_args if stage is None else stage.variables
            _arg(args, scope, global_args, stage, budget)
        elif stage is None:
            continue
        elif keyword == "ENV":
            for name, value in _assignments(args, stage.variables, budget):
                stage.env[name] = value
                stage.variables[name] = value.text
        elif keyword == "ENTRYPOINT":
            stage.entrypoint = _command(args)
            if not stage.cmd_set:
                stage.cmd = None
        elif keyword == "CMD":
            stage.cmd = _command(args)
            stage.cmd_set = True
        elif keyword == "RUN":
            # A RUN is a build step, not the image's server: no image, only its release.
            found.extend(replace(i, image=None) for i in _finish(_run(path, instruction), stage))
    if stage is not None:
        found.extend(_finish(_runs(path, stage), stage))
    return sorted(found, key=lambda invocation: invocation.anchor.start)


# --- reading instructions -------------------------------------------------------------------


def parse(text: str) -> list[Instruction]:
    """The instructions of a Dockerfile, continuations joined, with per-character positions."""
    lines = text.split("\n")
    escape = _escape_directive(lines)
    instructions: list[Instruction] = []
    index = 0
    while index < len(lines):
        line = _content(lines[index])
        if not line.strip(_BLANKS) or line.lstrip(_BLANKS).startswith("#"):
            index += 1
            continue
        chars, index = _logical_line(lines, index, escape)
        match = _INSTRUCTION.match(chars.text)
        if match is None:
            continue
        rest = len(match.group(0))
        while rest < len(chars.text) and chars.text[rest] in _BLANKS:
            rest += 1
        args = _slice(chars, rest, len(chars.text))
        bodies: list[Chars] = []
        heredocs = _HEREDOC.finditer(args.text) if match.group(1).upper() in _HEREDOC_KEYWORDS \
            else ()
        for heredoc in heredocs:
            body, index = _heredoc(lines, index, heredoc.group(3), heredoc.group(1) == "-")
            bodies.append(body)
        instructions.append(
            Instruction(match.group(1).upper(), args, tuple(bodies), chars.positions[0])
        )
    return instructions


def _content(line: str) -> str:
    return line[:-1] if line.endswith("\r") else line


def _escape_directive(lines: Sequence[str]) -> str:
    escape = "\\"
    for line in lines:
        match = _DIRECTIVE.match(_content(line))
        if match is None:
            break
        if match.group(1).lower() == "escape" and match.group(2) in ("\\", "`"):
            escape = match.group(2)
    return escape


def _logical_line(lines: Sequence[str], index: int, escape: str) -> tuple[Chars, int]:
    """One instruction from line ``index``: continuation lines joined, comment lines dropped."""
    text: list[str] = []
    positions: list[Pos] = []
    end = Pos(index + 1, 1)
    while index < len(lines):
        line = _content(lines[index])
        index += 1
        stripped = line.rstrip(_BLANKS)
        continued = stripped.endswith(escape)
        stop = len(stripped) - 1 if continued else len(line)
        for column in range(stop):
            text.append(line[column])
            positions.append(Pos(index, column + 1))
        end = Pos(index, stop + 1)
        if not continued:
            break
        # Comment and empty lines inside a continuation are skipped.
        while index < len(lines) and (
            not _content(lines[index]).strip(_BLANKS)
            or lines[index].lstrip(_BLANKS).startswith("#")
        ):
            index += 1
    return Chars("".join(text), (*positions, end), (True,) * len(text)), index


def _heredoc(lines: Sequence[str], index: int, word: str, strip_tabs: bool) -> tuple[Chars, int]:
    text: list[str] = []
    positions: list[Pos] = []
    while index < len(lines):
        line = _content(lines[index])
        index += 1
        skip = len(line) - len(line.lstrip("\t")) if strip_tabs else 0
        if line[skip:] == word:
            return Chars("".join(text), (*positions, Pos(index, 1)), (True,) * len(text)), index
        for column in range(skip, len(line)):
            text.append(line[column])
            positions.append(Pos(index, column + 1))
        text.append("\n")
        positions.append(Pos(index, len(line) + 1))
    end = Pos(len(lines), len(_content(lines[-1])) + 1) if lines else Pos(1, 1)
    return Chars("".join(text), (*positions, end), (True,) * len(text)), index


def _slice(chars: Chars, start: int, end: int) -> Chars:
    return Chars(chars.text[start:end], chars.positions[start : end + 1], chars.literal[start:end])


def _strip(chars: Chars) -> Chars:
    text = chars.text
    start = len(text) - len(text.lstrip(_BLANKS))
    return _slice(chars, start, max(start, len(text.rstrip(_BLANKS))))


# --- instructions ---------------------------------------------------------------------------


def _interpolate(chars: Chars, variables: Mapping[str, str], budget: _Budget) -> Chars:
    """Docker's ``${VAR}``/``$VAR`` substitution; ``\\$`` is a literal dollar sign."""
    budget.spend(chars, variables)
    parts: list[Chars] = []
    start = 0
    for escaped in re.finditer(r"\\\$", chars.text):
        parts.append(interpolate(_slice(chars, start, escaped.start()), variables))
        parts.append(_slice(chars, escaped.start() + 1, escaped.end()))
        start = escaped.end()
    parts.append(interpolate(_slice(chars, start, len(chars.text)), variables))
    return Chars(
        "".join(part.text for part in parts),
        (*(p for part in parts for p in part.positions[:-1]), chars.positions[-1]),
        tuple(flag for part in parts for flag in part.literal),
    )


def _from(
    args: Chars, global_args: Mapping[str, str], stages: dict[str, _Stage], budget: _Budget
) -> _Stage:
    words = [w for w in split_words(args) if not w.text.startswith("--")]
    if not words:
        return _Stage(None, Span(args.positions[0], args.positions[-1]))
    written = words[0]
    image = _interpolate(Chars(written.text, written.positions, (written.literal,) *
                               len(written.text)), global_args, budget)
    span = Span(written.positions[0], written.positions[-1])
    parent = stages.get(image.text.lower())
    if parent is not None:
        stage = _Stage(parent.base, parent.base_span, parent.entrypoint, parent.cmd, False,
                       dict(parent.variables), dict(parent.env))
    else:
        stage = _Stage(image.text, span)
    if len(words) >= 3 and words[1].text.lower() == "as":
        stages[words[2].text.lower()] = stage
    return stage


def _arg(
    args: Chars, scope: dict[str, str], global_args: Mapping[str, str], stage: _Stage | None,
    budget: _Budget,
) -> None:
    for word in split_words(args):
        name, equals, _ = word.text.partition("=")
        if equals:
            chars = Chars(word.text, word.positions, (word.literal,) * len(word.text))
            value = _interpolate(_slice(chars, len(name) + 1, len(word.text)), scope, budget)
            scope[name] = value.text
        elif stage is not None and name in global_args:
            scope[name] = global_args[name]


def _assignments(
    args: Chars, variables: Mapping[str, str], budget: _Budget
) -> list[tuple[str, Token]]:
    """``ENV A=1 B="x y"`` or the legacy ``ENV A x y``; values interpolated."""
    words = split_words(args)
    if not words:
        return []
    if "=" not in words[0].text:
        stripped = _strip(args)
        cut = len(words[0].text)
        value = _strip(_slice(stripped, cut, len(stripped.text)))
        return [(words[0].text, _interpolate(value, variables, budget).token())]
    # Every value of one ENV instruction sees the variables from before it, as in Docker.
    found: list[tuple[str, Token]] = []
    for word in words:
        name, equals, _ = word.text.partition("=")
        if not equals:
            continue
        chars = Chars(word.text, word.positions, (word.literal,) * len(word.text))
        value = _slice(chars, len(name) + 1, len(word.text))
        token = _interpolate(value, variables, budget).token()
        found.append((name, token))
    return found


def _command(args: Chars) -> Command:
    stripped = _strip(args)
    words = exec_form(stripped)
    return Command(words, None) if words is not None else Command(None, stripped)


def exec_form(chars: Chars) -> tuple[Token, ...] | None:
    """The words of a JSON exec form, or None for a shell form.

    Text that starts like a JSON array of strings but is not one raises Unparsable.
    """
    from vlint.errors import Unparsable

    text = chars.text
    if not re.match(r"\[[ \t\r\n]*[\"'\]]", text):
        return None
    words: list[Token] = []
    index = _skip_space(text, 1)
    if text[index] == "]":
        return _after_array(chars, index)
    while True:
        if index >= len(text):
            raise Unparsable("unterminated exec form: missing ']'", chars.positions[0])
        if text[index] != '"':
            raise Unparsable(
                "exec form is not a JSON array of double-quoted strings; Docker would run it "
                "with /bin/sh as written", chars.locate(index)
            )
        word, index = _json_string(chars, index)
        words.append(word)
        index = _skip_space(text, index)
        if index < len(text) and text[index] == ",":
            index = _skip_space(text, index + 1)
        elif index < len(text) and text[index] == "]":
            _after_array(chars, index)
            return tuple(words)
        elif index >= len(text):
            raise Unparsable("unterminated exec form: missing ']'", chars.positions[0])
        else:
            raise Unparsable("exec form: expected ',' or ']'", chars.locate(index))


def _after_array(chars: Chars, index: int) -> tuple[Token, ...]:
    from vlint.errors import Unparsable

    if chars.text[index + 1 :].strip(" \t\r\n"):
        raise Unparsable("exec form: text after ']'", chars.locate(index + 1))
    return ()


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


def _json_string(chars: Chars, start: int) -> tuple[Token, int]:
    """The JSON string opening at ``start``: its token and the index after its closing quote."""
    from vlint.errors import Unparsable

    text = chars.text
    out: list[str] = []
    positions: list[Pos] = []
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == '"':
            return Token("".join(out), (*positions, chars.positions[index])), index + 1
        if char != "\\":
            out.append(char)
            positions.append(chars.positions[index])
            index += 1
            continue
        escape = text[index + 1 : index + 2]
        if escape in _JSON_ESCAPES:
            out.append(_JSON_ESCAPES[escape])
            positions.append(chars.positions[index])
            index += 2
        elif escape == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[index + 2 : index + 6]):
            code = int(text[index + 2 : index + 6], 16)
            width = 6
            low = re.fullmatch(r"\\u([dD][c-fC-F][0-9a-fA-F]{2})", text[index + 6 : index + 12])
            if 0xD800 <= code < 0xDC00 and low:
                code = 0x10000 + ((code - 0xD800) << 10) + (int(low.group(1), 16) - 0xDC00)
                width = 12
            out.append(chr(code))
            positions.append(chars.positions[index])
            index += width
        else:
            raise Unparsable("exec form: invalid JSON escape", chars.locate(index))
    raise Unparsable("unterminated exec form: missing '\"'", chars.locate(start))


# --- what runs ------------------------------------------------------------------------------


def _shell(path: str, chars: Chars) -> list[Invocation]:
    from vlint.extract import shell

    return shell.extract(path, chars.text, chars.locate)


def _made_up(text: str, at: Pos) -> Token:
    return Token(text, (at,) * (len(text) + 1))


def _run(path: str, instruction: Instruction) -> list[Invocation]:
    from vlint.extract.argv import recognise_all

    args = _strip(instruction.args)
    words = exec_form(args)
    if words is not None:
        return recognise_all(words, path=path, kind=KIND)
    # Drop the RUN options (--mount=..., --network=...) before the command.
    command = args
    while command.text.startswith("--"):
        space = re.search(r"[ \t]", command.text)
        command = _strip(_slice(command, space.start(), len(command.text))) if space else \
            _slice(command, 0, 0)
    found = _shell(path, command)
    first = re.split(r"[ \t]+", command.text, maxsplit=1)[0]
    if command.text.startswith("<<") or first.rsplit("/", 1)[-1] in _SHELLS:
        for body in instruction.heredocs:
            found.extend(_shell(path, body))
    return found


def _runs(path: str, stage: _Stage) -> list[Invocation]:
    """What the last stage's container runs, when that launches vLLM."""
    from vlint.extract.argv import is_server_image, recognise_all

    entrypoint, cmd = stage.entrypoint, stage.cmd
    image = stage.base
    if entrypoint is not None and entrypoint.shell is not None:
        return _shell(path, entrypoint.shell)
    cmd_words: tuple[Token, ...] = ()
    if cmd is not None and cmd.words is not None:
        cmd_words = cmd.words
    elif cmd is not None and cmd.shell is not None:
        if entrypoint is None:
            return _shell(path, cmd.shell)
        at = cmd.shell.positions[0]
        cmd_words = (_made_up("/bin/sh", at), _made_up("-c", at), cmd.shell.token())
    if entrypoint is not None and entrypoint.words is not None:
        return recognise_all((*entrypoint.words, *cmd_words), path=path, kind=KIND)
    if image is not None and is_server_image(image):
        if not cmd_words:
            from vlint.extract.argv import image_entry, release_from_image

            entry = image_entry(release_from_image(image))
            return [Invocation(path, KIND, "cli", stage.base_span, entry=entry)]
        return recognise_all(cmd_words, path=path, kind=KIND, image=image)
    return recognise_all(cmd_words, path=path, kind=KIND)


def _finish(found: Sequence[Invocation], stage: _Stage) -> list[Invocation]:
    from vlint.extract.argv import is_server_image, release_from_image

    # Only a vLLM image's tag is a vLLM release (``nvidia/cuda:12.4.1`` is not).
    server = stage.base is not None and is_server_image(stage.base)
    target = release_from_image(stage.base) if stage.base and server else None
    return [
        replace(
            invocation,
            kind=KIND,
            env={**stage.env, **invocation.env},
            image=stage.base,
            target=invocation.target or target,
        )
        for invocation in found
    ]
