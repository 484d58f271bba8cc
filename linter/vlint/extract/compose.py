"""Docker compose files: every service that launches vLLM.

A service runs vLLM when its image is a vLLM server image (whose own entrypoint starts the
server, so ``command:`` holds the server's arguments) or when its ``entrypoint:``/``command:``
starts vLLM itself.  Values are interpolated as compose does, from the ``.env`` file beside the
compose file (never from this process's environment); every character keeps its file position.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

from vlint.model import Invocation, Pos, Span, Token

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

    from vlint.syntax.yamlpos import SourceIndex

KIND = "compose"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD_BREAKS = " \t\r\n"


@dataclass(frozen=True)
class Chars:
    """A text whose every character has a file position (plus the end) and a literal flag."""

    text: str
    positions: tuple[Pos, ...]
    literal: tuple[bool, ...]

    def token(self, start: int = 0, end: int | None = None) -> Token:
        stop = len(self.text) if end is None else end
        return Token(
            self.text[start:stop],
            self.positions[start : stop + 1],
            all(self.literal[start:stop]),
        )

    def locate(self, offset: int) -> Pos:
        return self.positions[max(0, min(offset, len(self.positions) - 1))]


def is_vllm_image(image: str | None) -> bool:
    """Whether ``image`` names a vLLM server image (one matcher, shared with argv)."""
    from vlint.extract.argv import is_server_image

    return image is not None and is_server_image(image)


def extract(
    path: str, text: str, *, variables: Mapping[str, str] | None = None
) -> list[Invocation]:
    """Every vLLM launch in a compose file; raises Unparsable when it is not valid YAML.

    ``variables`` replaces the ``.env`` file beside ``path`` as the source of interpolation.
    """
    from vlint.syntax import yamlpos

    documents = yamlpos.parse_documents(text)
    if variables is None:
        variables = _Budgeted(dotenv_beside(path)[1].variables, MAX_INTERPOLATED)
    source = yamlpos.SourceIndex(text)
    found: list[Invocation] = []
    for document in documents:
        services = yamlpos.mapping_node(yamlpos.mapping_get(document, "services"))
        if services is None:
            continue
        for _, service in yamlpos.mapping_items(services):
            found.extend(_service(path, source, service, variables))
    return found


MAX_DOTENV_VALUE = 16_384  # characters
# All values together: a small file whose lines each name a long value would otherwise expand
# to gigabytes (and take minutes).
MAX_DOTENV_TOTAL = 262_144  # characters
MAX_DOTENV_SIZE = 2 * 2**20  # bytes, as vlint's default maximum file size
_REFERENCE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


# The characters the variables of one compose file may put into it: ``${X}`` written 100,000
# times with X 16 KiB long would otherwise make gigabytes.  Past it a variable is unknown.
MAX_INTERPOLATED = 1_048_576


class _Budgeted(Mapping[str, str]):
    """``variables`` that stop answering (a variable is then unknown, and stays as written)
    once their values have been asked for ``budget`` characters in all."""

    def __init__(self, variables: Mapping[str, str], budget: int) -> None:
        self._variables = variables
        self._left = budget

    def __getitem__(self, name: str) -> str:
        value = self._variables[name]
        if len(value) > self._left:
            raise KeyError(name)
        self._left -= len(value)
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._variables)

    def __len__(self) -> int:
        return len(self._variables)


@dataclass(frozen=True)
class Dotenv:
    """A ``.env`` file's variables, and why some or all are unknown (a note's words), if so."""

    variables: Mapping[str, str]
    problem: str | None = None


def dotenv_beside(path: str) -> tuple[str, Dotenv]:
    """The ``.env`` file beside the compose file ``path``, and what vlint read of it.

    It is read only inside the compose file's repository (``discover.confined_read``): a
    symlink out of it, a FIFO or a ``/proc`` file gives no variables and a ``problem``.  Each
    file is read and interpolated once per content (a run with many compose files shares it).
    """
    env = os.path.join(os.path.dirname(path), ".env")
    try:
        status = os.stat(env)
        identity = (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)
    except OSError:
        identity = None
    if identity is None and not os.path.lexists(env):
        return env, Dotenv({})
    return env, _dotenv(os.path.abspath(env), identity)


@lru_cache(maxsize=64)
def _dotenv(env: str, identity: tuple[int, int, int, int] | None) -> Dotenv:
    from vlint.discover import Refused, confined_read, linted_roots

    try:
        data = confined_read(env, linted_roots([env]), MAX_DOTENV_SIZE)
        # Universal newlines, as python-dotenv reads a file.
        text = data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except Refused as refused:
        return Dotenv({}, f"skipped ({refused.reason})")
    except UnicodeDecodeError:
        return Dotenv({}, "skipped (not UTF-8)")
    try:
        raw = _simple_dotenv_text(text)
        if raw is None:
            import io

            from dotenv import dotenv_values

            raw = dotenv_values(stream=io.StringIO(text), interpolate=False)
    except ValueError:
        return Dotenv({})
    return _resolved(raw)


def _resolved(raw: Mapping[str, str | None]) -> Dotenv:
    """The values interpolated among themselves, within the size limits: a value that would
    be longer than MAX_DOTENV_VALUE, or come after MAX_DOTENV_TOTAL characters, is left unset
    (unknown), so that growth stops there and nothing is guessed."""
    resolved: dict[str, str] = {}
    total = 0
    over = False
    for name, value in raw.items():
        if value is None:
            continue
        # An upper bound, from the text alone: each reference expands at most once.
        bound = len(value) + sum(len(resolved.get(m.group(1), ""))
                                 for m in _REFERENCE.finditer(value))
        if bound > MAX_DOTENV_VALUE or total + bound > MAX_DOTENV_TOTAL:
            over = True
            resolved.pop(name, None)
            continue
        text = interpolate(_plain_chars(value), resolved).text
        total += len(text)
        resolved[name] = text
    if not over:
        return Dotenv(resolved)
    return Dotenv(resolved, f"values expand to more than {MAX_DOTENV_VALUE:,} characters "
                            f"each or {MAX_DOTENV_TOTAL:,} in all; those are left unresolved")


# A line python-dotenv reads as a comment or as NAME=VALUE with VALUE verbatim: no quote, space,
# ``#`` or backslash, which its parser treats specially.
_SIMPLE_DOTENV_LINE = re.compile(r"#.*|[A-Za-z_][A-Za-z0-9_]*=[^\s#'\"\\]*|")


def simple_dotenv(path: str) -> dict[str, str | None] | None:
    """What python-dotenv reads (uninterpolated) from a ``.env`` file of only empty lines,
    comments and plain ``NAME=VALUE`` lines, without importing it (it and the logging it imports
    cost a one-file run about 6 ms); None for any other file."""
    with open(path, encoding="utf-8") as stream:  # universal newlines, as python-dotenv reads
        return _simple_dotenv_text(stream.read())


def _simple_dotenv_text(text: str) -> dict[str, str | None] | None:
    values: dict[str, str | None] = {}
    for line in text.split("\n"):
        if not _SIMPLE_DOTENV_LINE.fullmatch(line):
            return None
        if line[:1] not in ("", "#"):
            name, _, value = line.partition("=")
            values[name] = value
    return values


def _plain_chars(text: str) -> Chars:
    return Chars(text, tuple(Pos(1, 1) for _ in range(len(text) + 1)), (True,) * len(text))


def _scalar_chars(source: SourceIndex, node: Node, variables: Mapping[str, str]) -> Chars | None:
    from vlint.syntax import yamlpos

    if not yamlpos.is_scalar(node) or yamlpos.is_null(node):
        return None
    value = yamlpos.scalar_value(node)
    written = Chars(value, yamlpos.scalar_positions(source, node), (True,) * len(value))
    return interpolate(written, variables)


class _Builder:
    def __init__(self) -> None:
        self.text: list[str] = []
        self.positions: list[Pos] = []
        self.literal: list[bool] = []

    def add(self, chars: Chars, start: int, end: int, at: Pos | None = None) -> None:
        for index in range(start, end):
            self.text.append(chars.text[index])
            self.positions.append(chars.positions[index] if at is None else at)
            self.literal.append(chars.literal[index])

    def done(self, end: Pos) -> Chars:
        return Chars("".join(self.text), (*self.positions, end), tuple(self.literal))


# Defaults nested deeper than this (``${A:-${B:-...}}``) are left unresolved: no real file
# comes near it, and each level copies the text inside it.
MAX_NESTED_DEFAULTS = 32


def interpolate(chars: Chars, variables: Mapping[str, str], depth: int = 0) -> Chars:
    """Compose interpolation: ``${VAR}``, ``${VAR:-default}``, ``${VAR-default}``, ``$VAR``, ``$$``.

    A resolved expression's characters all sit at the start of the expression; an unresolved
    one stays as written and is not literal.
    """
    text = chars.text
    out = _Builder()
    index = 0
    while index < len(text):
        dollar = text.find("$", index)
        if dollar < 0:
            out.add(chars, index, len(text))
            break
        out.add(chars, index, dollar)
        index = _expression(chars, dollar, variables, out, depth)
    return out.done(chars.positions[-1])


def _expression(
    chars: Chars, dollar: int, variables: Mapping[str, str], out: _Builder, depth: int
) -> int:
    """Interpolate the expression at ``dollar`` into ``out``; return the index after it."""
    text = chars.text
    after = text[dollar + 1 : dollar + 2]
    if after == "$":
        out.add(chars, dollar, dollar + 1)
        return dollar + 2
    if after == "{":
        close = _closing_brace(text, dollar + 2)
        if close < 0:
            out.add(chars, dollar, len(text))
            out.literal[-(len(text) - dollar) :] = [False] * (len(text) - dollar)
            return len(text)
        end = close + 1
        inner = Chars(
            text[dollar + 2 : close],
            chars.positions[dollar + 2 : close + 1],
            chars.literal[dollar + 2 : close],
        )
        resolved = _braced(inner, variables, depth) if depth < MAX_NESTED_DEFAULTS else None
    else:
        name = _NAME.match(text, dollar + 1)
        if name is None:
            out.add(chars, dollar, dollar + 1)
            return dollar + 1
        end = name.end()
        value = variables.get(name.group())
        resolved = None if value is None else _plain_chars(value)
    if resolved is None:
        out.add(chars, dollar, end)
        out.literal[-(end - dollar) :] = [False] * (end - dollar)
    else:
        out.add(resolved, 0, len(resolved.text), at=chars.positions[dollar])
    return end


def _closing_brace(text: str, start: int) -> int:
    depth = 1
    for index in range(start, len(text)):
        if text[index] == "{" and text[index - 1] == "$":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return index
    return -1


def _braced(inner: Chars, variables: Mapping[str, str], depth: int) -> Chars | None:
    """The value of ``${inner}``, or None when it cannot be resolved statically."""
    name = _NAME.match(inner.text)
    if name is None:
        return None
    value = variables.get(name.group())
    rest = inner.text[name.end() :]
    operator = next((op for op in (":-", ":?", ":+", "-", "?", "+") if rest.startswith(op)), "")
    if rest and not operator:
        return None
    word_start = name.end() + len(operator)
    word = Chars(inner.text[word_start:], inner.positions[word_start:], inner.literal[word_start:])
    is_set = value is not None
    is_nonempty = bool(value)
    if operator in (":-", "-"):
        use_value = is_nonempty if operator == ":-" else is_set
        return _plain_chars(value or "") if use_value else interpolate(word, variables, depth + 1)
    if operator in (":+", "+"):
        use_word = is_nonempty if operator == ":+" else is_set
        return interpolate(word, variables, depth + 1) if use_word else _plain_chars("")
    return _plain_chars(value) if value is not None else None


def split_words(chars: Chars) -> list[Token]:
    """Split a string into words as compose does for a string ``command:``/``entrypoint:``.

    Compose does not run a shell: it splits with shell-like quoting (single quotes, double
    quotes with backslash escapes, backslash outside quotes) and nothing else.
    """
    text = chars.text
    words: list[Token] = []
    index = 0
    while index < len(text):
        if text[index] in _WORD_BREAKS:
            index += 1
            continue
        word = _Builder()
        quote = ""
        while index < len(text):
            char = text[index]
            if quote == "'":
                if char == "'":
                    quote = ""
                else:
                    word.add(chars, index, index + 1)
            elif quote == '"':
                if char == '"':
                    quote = ""
                elif char == "\\" and text[index + 1 : index + 2] in ('"', "\\", "$", "`"):
                    index += 1
                    word.add(chars, index, index + 1)
                else:
                    word.add(chars, index, index + 1)
            elif char in _WORD_BREAKS:
                break
            elif char in "'\"":
                quote = char
            elif char == "\\" and index + 1 < len(text):
                index += 1
                word.add(chars, index, index + 1)
            else:
                word.add(chars, index, index + 1)
            index += 1
        built = word.done(chars.positions[index])
        words.append(Token(built.text, built.positions, all(built.literal)))
    return words


@dataclass(frozen=True)
class _Argv:
    """A ``command:``/``entrypoint:`` value: a list of words, or a string."""

    words: tuple[Token, ...]
    string: Chars | None
    anchor: Span


def _argv(source: SourceIndex, node: Node | None, variables: Mapping[str, str]) -> _Argv | None:
    from vlint.syntax import yamlpos

    if node is None or yamlpos.is_null(node):
        return None
    anchor = Span(source.pos(node.start_mark.index), source.pos(node.end_mark.index))
    if yamlpos.is_scalar(node):
        chars = _scalar_chars(source, node, variables)
        return None if chars is None else _Argv(tuple(split_words(chars)), chars, anchor)
    words: list[Token] = []
    for item in yamlpos.sequence_items(node):
        chars = _scalar_chars(source, item, variables)
        if chars is not None:
            words.append(chars.token())
    return _Argv(tuple(words), None, anchor)


def _environment(
    source: SourceIndex,
    node: Node | None,
    variables: Mapping[str, str],
    names: dict[str, Span] | None = None,
) -> dict[str, Token]:
    """The service's ``environment:``; ``names`` receives where each name is written."""
    from vlint.syntax import yamlpos

    env: dict[str, Token] = {}
    names = {} if names is None else names
    if node is None:
        return env
    for item in yamlpos.sequence_items(node):
        chars = _scalar_chars(source, item, variables)
        if chars is not None and "=" in chars.text:
            cut = chars.text.index("=")
            env[chars.text[:cut]] = chars.token(cut + 1)
            names[chars.text[:cut]] = chars.token().sub_span(0, cut)
    if yamlpos.mapping_node(node) is not None:
        for key, value in yamlpos.mapping_items(node):
            chars = _scalar_chars(source, value, variables)
            if chars is not None:
                env[str(key.value)] = chars.token()
                key_chars = _scalar_chars(source, key, {})
                if key_chars is not None and key_chars.text == str(key.value):
                    names[key_chars.text] = key_chars.token().sub_span(0)
    return env


def _service(
    path: str, source: SourceIndex, service: Node, variables: Mapping[str, str]
) -> list[Invocation]:
    from vlint.syntax import yamlpos
    from vlint.extract.argv import image_entry, recognise_all, release_from_image

    if yamlpos.mapping_node(service) is None:
        return []
    image_node = yamlpos.mapping_get(service, "image")
    image_chars = None if image_node is None else _scalar_chars(source, image_node, variables)
    image = image_chars.text if image_chars is not None else None
    image_span = image_chars.token().sub_span(0) if image_chars is not None else None
    env_unknown = yamlpos.mapping_get(service, "env_file") is not None
    vllm_image = is_vllm_image(image)
    entrypoint = _argv(source, yamlpos.mapping_get(service, "entrypoint"), variables)
    command = _argv(source, yamlpos.mapping_get(service, "command"), variables)
    env_names: dict[str, Span] = {}
    env = _environment(source, yamlpos.mapping_get(service, "environment"), variables, env_names)
    target = release_from_image(image) if image else None

    def finish(found: Sequence[Invocation]) -> list[Invocation]:
        return [
            replace(
                invocation,
                kind=KIND,
                env={**env, **invocation.env},
                image=image,
                image_span=image_span,
                env_unknown=env_unknown or invocation.env_unknown,
                target=invocation.target or target,
                env_names={**env_names, **invocation.env_names},
            )
            for invocation in found
        ]

    if entrypoint is None:
        if command is None:
            if vllm_image and image_chars is not None:
                anchor = Span(image_chars.positions[0], image_chars.positions[-1])
                return [
                    Invocation(
                        path, KIND, "cli", anchor, env=env, image=image, target=target,
                        image_span=image_span, env_unknown=env_unknown, env_names=env_names,
                        entry=image_entry(target),
                    )
                ]
            return []
        if vllm_image:
            return finish(recognise_all(command.words, path=path, kind=KIND, env=env, image=image))
        if command.string is not None:
            return finish(_shell(path, command.string))
        return finish(recognise_all(command.words, path=path, kind=KIND, env=env))
    # An explicit entrypoint replaces the image's; compose appends the command's words to it.
    command_words = command.words if command is not None else ()
    if entrypoint.string is not None and command is None:
        return finish(_shell(path, entrypoint.string))
    found = recognise_all((*entrypoint.words, *command_words), path=path, kind=KIND, env=env)
    if not found and command_words:
        # Entrypoint scripts commonly end with `exec "$@"`, running the command as given.
        found = recognise_all(command_words, path=path, kind=KIND, env=env)
    return finish(found)


def _shell(path: str, chars: Chars) -> list[Invocation]:
    from vlint.extract import shell

    # Compose splits a string into words without a shell: a line break ends nothing there.
    return shell.extract(path, chars.text, chars.locate, shell=False)
