"""Docker compose files: every service that launches vLLM.

A service runs vLLM when its image is a vLLM server image (whose own entrypoint starts the
server, so ``command:`` holds the server's arguments) or when its ``entrypoint:``/``command:``
starts vLLM itself.  Values are interpolated as compose does, from the ``.env`` file beside the
compose file (never from this process's environment); every character keeps its file position.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

from vlint.discover import Refused, confined_read, linted_roots
from vlint.extract import deployment, shell
from vlint.extract.argv import recognise_all
from vlint.knowledge.images import image_entry, is_server_image, release_from_image
from vlint.model import (
    Deployment, EnvVar, GpuCount, Invocation, Located, Mount, Port, Pos, Probe, Span, Token,
)
from vlint.syntax import yamlpos
from vlint.syntax.lines import Chars

if TYPE_CHECKING:
    from vlint.extract.nested import ExtractContext
    from ruamel.yaml.nodes import Node

    from vlint.syntax.yamlpos import SourceIndex

KIND = "compose"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD_BREAKS = " \t\r\n"
_URL = re.compile(r"https?://[^\s'\"]+")


def is_vllm_image(image: str | None) -> bool:
    """Whether ``image`` names a vLLM server image (one matcher, shared with argv)."""
    return image is not None and is_server_image(image)


def extract(
    path: str,
    text: str,
    context: ExtractContext | None = None,
    *,
    variables: Mapping[str, str] | None = None,
) -> list[Invocation]:
    """Every vLLM launch in a compose file; raises Unparsable when it is not valid YAML.

    ``variables`` replaces the ``.env`` file beside ``path`` as the source of interpolation.
    """
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
            from dotenv import dotenv_values  # lazy: ~6 ms a run; plain .env files skip it

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
    source: SourceIndex, node: Node | None, variables: Mapping[str, str]
) -> dict[str, EnvVar]:
    """The service's ``environment:``, a list of ``NAME=VALUE`` entries or a mapping."""
    if node is None:
        return {}
    found: list[EnvVar | None] = []
    for item in yamlpos.sequence_items(node):
        chars = _scalar_chars(source, item, variables)
        if chars is not None:
            found.append(deployment.assignment(chars.token()))
    if yamlpos.mapping_node(node) is not None:
        for key, value in yamlpos.mapping_items(node):
            chars = _scalar_chars(source, value, variables)
            if chars is None:
                continue
            key_chars = _scalar_chars(source, key, {})
            if key_chars is not None and key_chars.text == str(key.value):
                found.append(deployment.named(key_chars.token(), chars.token()))
            else:
                found.append(EnvVar(str(key.value), chars.token()))
    return deployment.environment(found)


def _deployment(
    source: SourceIndex, service: Node, variables: Mapping[str, str], image_chars: Chars | None
) -> Deployment:
    """What a service states about its container, besides its command (``image_chars``: its
    ``image:``, read already)."""

    def scalar(node: Node | None) -> Token | None:
        chars = None if node is None else _scalar_chars(source, node, variables)
        return None if chars is None else chars.token()

    def get(node: Node | None, *keys: str) -> Node | None:
        for key in keys:
            if node is None or yamlpos.mapping_node(node) is None:
                return None
            node = yamlpos.mapping_get(node, key)
        return node

    image = None if image_chars is None else image_chars.token()
    ipc = scalar(get(service, "ipc"))
    shm = scalar(get(service, "shm_size"))
    return Deployment(
        image=None if image is None else deployment.image(image),
        env=_environment(source, get(service, "environment"), variables),
        env_complete=get(service, "env_file") is None,
        gpus=_gpus(service, scalar, get),
        ipc=None if ipc is None else deployment.at(ipc, ipc.text if ipc.literal else None),
        shm_size=None if shm is None else deployment.at(
            shm, deployment.docker_bytes(shm.text) if shm.literal else None),
        ports=_ports(service, scalar, get),
        probes=_healthcheck(source, service, scalar, get),
        volumes=_volumes(service, scalar, get),
    )


_Scalar = Callable[["Node | None"], "Token | None"]
_Get = Callable[..., "Node | None"]


def _gpus(service: Node, scalar: _Scalar, get: _Get) -> Located[GpuCount | None] | None:
    """``deploy.resources.reservations.devices`` entries that ask for GPUs, or ``gpus:``."""
    gpus = get(service, "gpus")
    written = scalar(gpus)
    if written is not None:
        return deployment.at(written, deployment.gpu_count(written.text) if written.literal
                             else None)
    devices = get(service, "deploy", "resources", "reservations", "devices")
    entries = [*yamlpos.sequence_items(devices)] if devices is not None else []
    entries += [*yamlpos.sequence_items(gpus)] if gpus is not None else []
    for entry in entries:
        capabilities = get(entry, "capabilities")
        names = [scalar(item) for item in yamlpos.sequence_items(capabilities)] \
            if capabilities is not None else []
        if gpus is None and not any(n is not None and n.text == "gpu" for n in names):
            continue
        count = scalar(get(entry, "count"))
        if count is not None:
            return deployment.at(count, deployment.gpu_count(count.text) if count.literal
                                 else None)
        ids = get(entry, "device_ids")
        if ids is not None:
            listed = [scalar(item) for item in yamlpos.sequence_items(ids)]
            tokens = [t for t in listed if t is not None]
            if tokens:
                known = len(tokens) == len(listed) and all(t.literal for t in tokens)
                return Located(len(tokens) if known else None,
                               Span(tokens[0].span.start, tokens[-1].sub_span(0).end))
        if entry is not None and count is None and ids is None:
            # A GPU reservation without count or device_ids takes every GPU.
            key = next((n for n in names if n is not None), None)
            if key is not None:
                return Located("all", key.sub_span(0))
    return None


def _ports(service: Node, scalar: _Scalar, get: _Get) -> tuple[Port, ...]:
    """The container side of ``ports:`` (short ``[HOST:]PUBLISHED:TARGET[/PROTO]`` or long
    ``target:``/``published:``) and ``expose:`` entries."""
    found: list[Port] = []
    for key in ("ports", "expose"):
        listed = get(service, key)
        for item in yamlpos.sequence_items(listed) if listed is not None else []:
            if yamlpos.mapping_node(item) is not None:
                target = scalar(get(item, "target"))
                published = scalar(get(item, "published"))
                if target is not None:
                    found.append(Port(
                        deployment.at(target, deployment.port_number(target.text)
                                      if target.literal else None),
                        None,
                        None if published is None else deployment.at(
                            published, published.text if published.literal else None),
                    ))
                continue
            token = scalar(item)
            if token is not None:
                found.append(_short_port(token))
    return tuple(found)


def _short_port(token: Token) -> Port:
    text = token.text
    end = text.find("/") if "/" in text else len(text)
    start = text.rfind(":", 0, end) + 1
    number = deployment.port_number(text[start:end]) if token.literal else None
    container = Located(number, token.sub_span(start, end))
    published = None
    if start > 0:
        host = text[: start - 1]
        published = Located(host if token.literal else None, token.sub_span(0, start - 1))
    return Port(container, None, published)


def _healthcheck(
    source: SourceIndex, service: Node, scalar: _Scalar, get: _Get
) -> tuple[Probe, ...]:
    """A ``healthcheck:`` whose ``test`` fetches an HTTP URL: its port and path."""
    check = get(service, "healthcheck")
    if check is None or yamlpos.mapping_node(check) is None:
        return ()
    test = get(check, "test")
    words: list[Token] = []
    if test is not None and yamlpos.is_scalar(test):
        chars = _scalar_chars(source, test, {})
        words = split_words(chars) if chars is not None else []
    elif test is not None:
        words = [t for t in (scalar(item) for item in yamlpos.sequence_items(test)) if t]
    key = next(k for k, v in yamlpos.mapping_items(service) if v is check)
    span = Span(source.pos(key.start_mark.index), source.pos(key.end_mark.index))
    port: Located[int | str | None] | None = None
    path: Located[str | None] | None = None
    for word in words:
        # (A ``CMD-SHELL`` test is one word: ``curl -f http://localhost:8000/health || exit 1``.)
        url = _URL.search(word.text) if word.literal else None
        found = deployment.url_port_path(url.group()) if url is not None else None
        if url is not None and found is not None:
            where = word.sub_span(url.start(), url.end())
            port, path = Located(found[0], where), Located(found[1], where)
            break
    return (Probe("healthcheck", span, "exec", port, path),)


def _volumes(service: Node, scalar: _Scalar, get: _Get) -> tuple[Mount, ...]:
    """``volumes:`` (short ``SOURCE:TARGET[:MODE]`` or long) and ``tmpfs:`` mounts."""
    found: list[Mount] = []
    listed = get(service, "volumes")
    for item in yamlpos.sequence_items(listed) if listed is not None else []:
        if yamlpos.mapping_node(item) is not None:
            target = scalar(get(item, "target"))
            origin = scalar(get(item, "source"))
            kind = scalar(get(item, "type"))
            if target is not None:
                found.append(Mount(
                    deployment.at(target, target.text if target.literal else None),
                    None if origin is None else deployment.at(
                        origin, origin.text if origin.literal else None),
                    kind is not None and kind.text == "tmpfs",
                ))
            continue
        token = scalar(item)
        if token is None:
            continue
        parts = token.text.split(":")
        if len(parts) == 1:
            found.append(Mount(deployment.at(token, token.text if token.literal else None)))
            continue
        cut = len(parts[0])
        stop = cut + 1 + len(parts[1])
        found.append(Mount(
            Located(parts[1] if token.literal else None, token.sub_span(cut + 1, stop)),
            Located(parts[0] if token.literal else None, token.sub_span(0, cut)),
        ))
    tmpfs = get(service, "tmpfs")
    items = [tmpfs] if tmpfs is not None and yamlpos.is_scalar(tmpfs) else \
        yamlpos.sequence_items(tmpfs) if tmpfs is not None else []
    for item in items:
        token = scalar(item)
        if token is not None:
            where = token.text.split(":", 1)[0]
            found.append(Mount(Located(where if token.literal else None,
                                       token.sub_span(0, len(where))), None, True))
    return tuple(found)


def _service(
    path: str, source: SourceIndex, service: Node, variables: Mapping[str, str]
) -> list[Invocation]:
    if yamlpos.mapping_node(service) is None:
        return []
    image_node = yamlpos.mapping_get(service, "image")
    image_chars = None if image_node is None else _scalar_chars(source, image_node, variables)
    image = image_chars.text if image_chars is not None else None
    facts = _deployment(source, service, variables, image_chars)
    vllm_image = is_vllm_image(image)
    entrypoint = _argv(source, yamlpos.mapping_get(service, "entrypoint"), variables)
    command = _argv(source, yamlpos.mapping_get(service, "command"), variables)
    target = release_from_image(image) if image else None

    def finish(found: Sequence[Invocation]) -> list[Invocation]:
        return [deployment.enclosed(invocation, KIND, facts, target) for invocation in found]

    if entrypoint is None:
        if command is None:
            if vllm_image and image_chars is not None:
                anchor = Span(image_chars.positions[0], image_chars.positions[-1])
                return [
                    Invocation(
                        path, (KIND,), "cli", anchor, deployment=facts, target=target,
                        entry=image_entry(target),
                    )
                ]
            return []
        if vllm_image:
            return finish(recognise_all(command.words, path=path, kind=KIND, image=image))
        if command.string is not None:
            return finish(_shell(path, command.string))
        return finish(recognise_all(command.words, path=path, kind=KIND))
    # An explicit entrypoint replaces the image's; compose appends the command's words to it.
    command_words = command.words if command is not None else ()
    if entrypoint.string is not None and command is None:
        return finish(_shell(path, entrypoint.string))
    found = recognise_all((*entrypoint.words, *command_words), path=path, kind=KIND)
    if not found and command_words:
        # Entrypoint scripts commonly end with `exec "$@"`, running the command as given.
        found = recognise_all(command_words, path=path, kind=KIND)
    return finish(found)


def _shell(path: str, chars: Chars) -> list[Invocation]:

    # Compose splits a string into words without a shell: a line break ends nothing there.
    return shell.extract(path, chars.text, chars.locate, shell=False)
