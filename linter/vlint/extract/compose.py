"""Docker compose files: every service that launches vLLM.

A service runs vLLM when its image is a vLLM server image (whose own entrypoint starts the
server, so ``command:`` holds the server's arguments) or when its ``entrypoint:``/``command:``
starts vLLM itself.  Values are interpolated as compose does, from the ``.env`` file beside the
compose file (never from this process's environment); every character keeps its file position.

A service with ``build:`` runs the image compose builds from a Dockerfile (read confined, see
``_Dockerfiles``; ``dockerfile_inline:`` too, ``build.args`` replacing ``ARG`` defaults,
``build.target`` choosing the stage): the Dockerfile gives the entry point (its own ENTRYPOINT,
else its base image's) and the target (its base image's tag, or the ``pip install vllm==X`` it
runs), and ``image:`` beside ``build:`` is only the name of the built image (except with
``pull_policy: always``, where compose runs the pulled ``image:``).  A service that writes
neither ``entrypoint:`` nor ``command:`` runs the image's own CMD/ENTRYPOINT: when that starts
vLLM, the service is a launch at its ``build:`` whose words stay the Dockerfile's
(``_image_command`` says what is checked where).  A Dockerfile vlint cannot read leaves the
entry point and the target unknown: only a command that starts vLLM itself is a launch then.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from vlint.discover import Refused, confined_read, linted_roots
from vlint.errors import Unparsable
from vlint.extract import deployment, dotenv_files, shell
from vlint.extract.argv import recognise_all
from vlint.extract.container_scripts import script_at, script_launches
from vlint.extract.dotenv_files import Dotenv
from vlint.knowledge.images import image_entry, is_server_image, release_from_image, runs_server
from vlint.model import (
    Deployment, Entry, EnvVar, GpuCount, Invocation, Located, Mount, Port, Probe, Span,
    Token,
)
from vlint.syntax import yamlpos
from vlint.syntax.interpolation import interpolate as interpolate, plain_chars
from vlint.syntax.interpolation import split_words as split_words
from vlint.syntax.lines import Chars

if TYPE_CHECKING:
    from vlint.extract.dockerfile import BuiltImage
    from vlint.extract.nested import ExtractContext
    from ruamel.yaml.nodes import Node

    from vlint.syntax.yamlpos import SourceIndex

KIND = "compose"
_URL = re.compile(r"https?://[^\s'\"]+")
_EXPANSION = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


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
    # A compose text inside another file (a Markdown fence) builds from a checkout the text
    # describes, not from the folder of the file that holds it: its Dockerfiles are not read.
    builds = _Dockerfiles(path, readable=context is None or context.origin in ((), (KIND,)))
    for document in documents:
        services = yamlpos.mapping_node(yamlpos.mapping_get(document, "services"))
        if services is None:
            continue
        built_names = _built_image_names(source, services, variables)
        for name, service in yamlpos.mapping_items(services):
            found.extend(_service(path, source, service, variables, builds, built_names,
                                  str(name.value)))
    return found


def _built_image_names(
    source: SourceIndex, services: Node, variables: Mapping[str, str]
) -> dict[str, Node]:
    """The ``image:`` names that services of this file build (``image:`` beside ``build:``),
    each with its ``build:`` value: another service that only names the same image runs the
    image compose built for the first (``docker compose up`` builds it once and tags it)."""
    names: dict[str, Node] = {}
    for _, service in yamlpos.mapping_items(services):
        if yamlpos.mapping_node(service) is None:
            continue
        build = yamlpos.mapping_get(service, "build")
        image = yamlpos.mapping_get(service, "image")
        if build is None or yamlpos.is_null(build) or image is None:
            continue
        chars = _scalar_chars(source, image, variables)
        if chars is not None and chars.text:
            names.setdefault(chars.text, build)
    return names


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


def dotenv_beside(path: str) -> tuple[str, Dotenv]:
    """The ``.env`` file beside the compose file ``path`` (``dotenv_files.dotenv_beside``), its
    values interpolated among themselves as compose does."""
    return dotenv_files.dotenv_beside(path, _interpolated_text)


def _interpolated_text(text: str, variables: Mapping[str, str]) -> str:
    return interpolate(plain_chars(text), variables).text


def _scalar_chars(source: SourceIndex, node: Node, variables: Mapping[str, str]) -> Chars | None:
    if not yamlpos.is_scalar(node) or yamlpos.is_null(node):
        return None
    value = yamlpos.scalar_value(node)
    written = Chars(value, yamlpos.scalar_positions(source, node), (True,) * len(value))
    return interpolate(written, variables)


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
    gpus, devices = _gpus(service, scalar, get)
    return Deployment(
        image=None if image is None else deployment.image(image),
        env=_environment(source, get(service, "environment"), variables),
        env_complete=get(service, "env_file") is None,
        gpus=gpus,
        devices=devices,
        ipc=None if ipc is None else deployment.at(ipc, ipc.text if ipc.literal else None),
        shm_size=None if shm is None else deployment.at(
            shm, deployment.docker_bytes(shm.text) if shm.literal else None),
        ports=() if _host_network(service, scalar, get) else _ports(service, scalar, get),
        probes=_healthcheck(source, service, scalar, get),
        volumes=_volumes(service, scalar, get),
    )


_Scalar = Callable[["Node | None"], "Token | None"]
_Get = Callable[..., "Node | None"]


def _gpus(
    service: Node, scalar: _Scalar, get: _Get
) -> tuple[Located[GpuCount | None] | None, Located[tuple[str, ...]] | None]:
    """``deploy.resources.reservations.devices`` entries that ask for GPUs, or ``gpus:``: how
    many, and which (``device_ids``, when all literal)."""
    gpus = get(service, "gpus")
    written = scalar(gpus)
    if written is not None:
        return deployment.at(written, deployment.gpu_count(written.text) if written.literal
                             else None), None
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
                                 else None), None
        ids = get(entry, "device_ids")
        if ids is not None:
            listed = [scalar(item) for item in yamlpos.sequence_items(ids)]
            tokens = [t for t in listed if t is not None]
            if tokens:
                known = len(tokens) == len(listed) and all(t.literal for t in tokens)
                span = Span(tokens[0].span.start, tokens[-1].sub_span(0).end)
                listed_ids = Located(tuple(t.text for t in tokens), span) if known else None
                return Located(len(tokens) if known else None, span), listed_ids
        if entry is not None and count is None and ids is None:
            # A GPU reservation without count or device_ids takes every GPU.
            key = next((n for n in names if n is not None), None)
            if key is not None:
                return Located("all", key.sub_span(0)), None
    return None, None


def _host_network(service: Node, scalar: _Scalar, get: _Get) -> bool:
    """``network_mode: host``: the service's ``ports`` are not published (compose file
    reference, ``network_mode``)."""
    mode = scalar(get(service, "network_mode"))
    return mode is not None and mode.literal and mode.text == "host"


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
                found.append(deployment.short_port(token))
    return tuple(found)


# A request header a health check sends with its key (``curl -H "Authorization: Bearer ..."``).
_AUTHORIZATION = "authorization:"


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
        found = deployment.url_parts(url.group()) if url is not None else None
        if url is not None and found is not None:
            start = url.start()
            port_at = word.sub_span(start + found.port_at[0], start + found.port_at[1])
            path_at = word.sub_span(start + found.path_at[0], start + found.path_at[1])
            # (A URL to another host probes that host: nothing of this container's.)
            port = Located(found.port if found.local else None, port_at)
            path = Located(found.path if found.local else None, path_at)
            break
    authorized = any(_AUTHORIZATION in word.text.lower() for word in words)
    return (Probe("healthcheck", span, "exec", port, path, authorized=authorized,
                  status_checked=_status_checked(words)),)


def _status_checked(words: list[Token]) -> bool:
    """Whether the test fails on an HTTP error status: curl only with ``-f``/``--fail``
    (``curl --help all``; ``-sf``, ``-fsS`` combine it), wget and the others always."""
    texts = [word.text for word in words]
    if not any(text.rsplit("/", 1)[-1] == "curl" for text in texts):
        return True
    return any(text in ("--fail", "--fail-with-body")
               or (text.startswith("-") and not text.startswith("--") and "f" in text)
               for text in texts)


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
    path: str, source: SourceIndex, service: Node, variables: Mapping[str, str],
    builds: _Dockerfiles, built_names: Mapping[str, Node], name: str = "",
) -> list[Invocation]:
    if yamlpos.mapping_node(service) is None:
        return []
    entrypoint = _argv(source, yamlpos.mapping_get(service, "entrypoint"), variables)
    command = _argv(source, yamlpos.mapping_get(service, "command"), variables)
    image_node = yamlpos.mapping_get(service, "image")
    image_chars = None if image_node is None else _scalar_chars(source, image_node, variables)
    facts = _deployment(source, service, variables, image_chars)
    build = yamlpos.mapping_get(service, "build")
    if build is not None and not yamlpos.is_null(build) and not _pulls_image(source, service):
        built = builds.read(source, build, variables)
        at = _key_span(source, service, build)
        # ``image:`` names the image compose builds; without it, a Dockerfile that keeps its
        # base image's entry point runs as that image does (shown at ``build:``).
        if facts.image is None and built is not None and built.base is not None \
                and built.entrypoint is None:
            facts = replace(facts, image=Located(built.base, at))
        return _built_service(path, at, built, entrypoint, command, facts)
    image = image_chars.text if image_chars is not None else None
    shared = built_names.get(image) if image is not None and image_node is not None else None
    if shared is not None and image_node is not None and not _pulls_image(source, service):
        return _built_service(path, _key_span(source, service, image_node),
                              builds.read(source, shared, variables), entrypoint, command, facts)
    vllm_image = is_vllm_image(image)
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
                        entry=image_entry(target), entry_from_image=True,
                    )
                ]
            return []
        named = None if image is None else _named(image, image_chars, name)
        if vllm_image or named is not None and runs_server(named, command.words):
            return finish(recognise_all(command.words, path=path, kind=KIND, image=named))
        if command.string is not None:
            return finish(_shell(path, command.string))
        return finish(recognise_all(command.words, path=path, kind=KIND))
    return finish(_entrypoint_launches(path, entrypoint, command, facts))


def _named(image: str, chars: Chars | None, service: str) -> str:
    """The image reference a decision on the service's words goes by: one compose cannot know
    (``${IMAGE}``, from an env file given at run time) is named by its service as well
    (``services: {vllm: {image: ${IMAGE}, command: [--model, ...]}}``:
    ``knowledge.images.runs_server``, a name that says vLLM and only vLLM's options)."""
    if chars is None or all(chars.literal):
        return image
    return f"{service}/{image}"


def _entrypoint_launches(path: str, entrypoint: _Argv, command: _Argv | None,
                         facts: Deployment) -> list[Invocation]:
    """The launches of a service with an explicit ``entrypoint:``: it replaces the image's,
    and compose appends the command's words to it.  A script the service mounts from the
    repository (``./serve.sh:/usr/local/bin/serve``) launches what the script launches
    (``vlint.extract.container_scripts``)."""
    command_words = command.words if command is not None else ()
    if entrypoint.string is not None and command is None:
        return _shell(path, entrypoint.string)
    words = (*entrypoint.words, *command_words)
    found = recognise_all(words, path=path, kind=KIND)
    if not found and command_words:
        # Entrypoint scripts commonly end with `exec "$@"`, running the command as given.
        found = recognise_all(command_words, path=path, kind=KIND)
    at = script_at(words)
    if not found and at < len(words) and words[at].literal:
        host = deployment.mounted(facts.volumes, words[at].text)
        if host is not None and not os.path.isabs(host):
            host = os.path.join(os.path.dirname(os.path.abspath(path)), host)
        found = script_launches(path, KIND, words, host)
    return found


def _shell(path: str, chars: Chars) -> list[Invocation]:

    # Compose splits a string into words without a shell: a line break ends nothing there.
    return shell.extract(path, chars.text, chars.locate, shell=False)


# --- services built from a Dockerfile -------------------------------------------------------

# A Dockerfile is a few kilobytes; a compose file reads at most this many distinct builds.
MAX_DOCKERFILE_SIZE = 1 << 20  # bytes
MAX_DOCKERFILES = 16
_REMOTE_CONTEXT = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://|^git@|^github\.com/")


def _pulls_image(source: SourceIndex, service: Node) -> bool:
    """Whether ``pull_policy: always`` makes compose run the pulled ``image:`` rather than the
    image ``build:`` makes (docker/compose#9730); with any other policy, compose builds the
    service (when its image is missing, or always with ``--build``) and tags the result with
    ``image:``, which is then only the built image's name."""
    policy = yamlpos.mapping_get(service, "pull_policy")
    chars = None if policy is None else _scalar_chars(source, policy, {})
    return chars is not None and chars.text.strip() == "always"


def _key_span(source: SourceIndex, service: Node, value: Node) -> Span:
    key = next(k for k, v in yamlpos.mapping_items(service) if v is value)
    return Span(source.pos(key.start_mark.index), source.pos(key.end_mark.index))


class _Dockerfiles:
    """The Dockerfiles the services of one compose file are built from, each read once.

    A Dockerfile is read relative to the compose file (``context``, then ``dockerfile``
    inside it), through ``discover.confined_read`` within the compose file's repository and
    under MAX_DOCKERFILE_SIZE: a symlink out of the repository, a FIFO or an oversized file
    gives no image (the service's target is then unknown, never guessed).  A remote context
    (a URL, ``git@...``) is not read.  ``dockerfile_inline:`` is read as written.
    """

    def __init__(self, path: str, readable: bool = True) -> None:
        self.path = path
        self.readable = readable
        self.texts: dict[str, str | None] = {}
        self.built: dict[tuple[str, tuple[tuple[str, str], ...], str | None],
                         BuiltImage | None] = {}

    def read(self, source: SourceIndex, build: Node, variables: Mapping[str, str]
             ) -> BuiltImage | None:
        """The image the ``build:`` value ``build`` makes, or None when it cannot be read."""
        if not self.readable:
            return None
        def text_of(key: str) -> str | None:
            node = yamlpos.mapping_get(build, key) if yamlpos.mapping_node(build) else None
            chars = None if node is None else _scalar_chars(source, node, variables)
            return None if chars is None else chars.text if all(chars.literal) else "$"

        if yamlpos.is_scalar(build):
            chars = _scalar_chars(source, build, variables)
            context = None if chars is None or not all(chars.literal) else chars.text
            dockerfile, inline, target = "Dockerfile", None, None
        else:
            context = text_of("context") or "."
            dockerfile = text_of("dockerfile") or "Dockerfile"
            inline, target = text_of("dockerfile_inline"), text_of("target")
        args = _build_args(source, build, variables)
        if context is None or "$" in context or "$" in dockerfile or (target and "$" in target):
            return None
        if inline is not None:
            name = "inline:" + inline
        elif _REMOTE_CONTEXT.match(context):
            return None
        else:
            name = os.path.normpath(os.path.join(os.path.dirname(self.path), context, dockerfile))
        key = (name, tuple(sorted(args.items())), target)
        if key not in self.built:
            if len(self.built) >= MAX_DOCKERFILES:
                return None
            text = inline if inline is not None else self._text(name)
            self.built[key] = None if text is None else _parse_built(text, args, target)
        return self.built[key]

    def _text(self, name: str) -> str | None:
        if name not in self.texts:
            self.texts[name] = _confined_text(name, self.path)
        return self.texts[name]


def _confined_text(name: str, compose: str) -> str | None:
    if not os.path.lexists(name):
        return None
    try:
        data = confined_read(name, linted_roots([compose]), MAX_DOCKERFILE_SIZE)
        return data.decode("utf-8")
    except (Refused, UnicodeDecodeError):
        return None


def _parse_built(text: str, args: Mapping[str, str], target: str | None) -> BuiltImage | None:
    from vlint.extract import dockerfile  # lazy: dockerfile imports this module's interpolation

    try:
        return dockerfile.built_image(text, args, target)
    except Unparsable:
        return None


def _build_args(source: SourceIndex, build: Node, variables: Mapping[str, str]
                ) -> dict[str, str]:
    """``build.args``, a mapping or a list of ``NAME=VALUE``; a name without a value (taken
    from the environment compose runs in) or with an unresolved one is left out."""
    node = yamlpos.mapping_get(build, "args") if yamlpos.mapping_node(build) else None
    found: dict[str, str] = {}
    if node is None:
        return found
    for item in yamlpos.sequence_items(node):
        chars = _scalar_chars(source, item, variables)
        if chars is not None and all(chars.literal) and "=" in chars.text:
            name, _, value = chars.text.partition("=")
            found[name] = value
    if yamlpos.mapping_node(node) is not None:
        for key, given in yamlpos.mapping_items(node):
            chars = _scalar_chars(source, given, variables)
            if chars is not None and all(chars.literal):
                found[str(key.value)] = chars.text
    return found


def _built_service(
    path: str, build_span: Span, built: BuiltImage | None, entrypoint: _Argv | None,
    command: _Argv | None, facts: Deployment,
) -> list[Invocation]:
    """The launches of a service built from a Dockerfile (``built``; None when it could not be
    read): its entry point and target come from the Dockerfile.  The words of the image's own
    launch (its ENTRYPOINT with a CMD that has arguments) are the Dockerfile's, checked when
    vlint lints the Dockerfile; here are the launches whose arguments this compose file writes,
    and, for a service with no command of its own, the image's launch around this service
    (``_image_command``)."""
    release = None if built is None else built.release

    def finish(found: Sequence[Invocation]) -> list[Invocation]:
        return [deployment.enclosed(invocation, KIND, facts, release) for invocation in found]

    if entrypoint is not None:
        return finish(_entrypoint_launches(path, entrypoint, command, facts))
    server = _server_entry(built)
    if command is None:
        if built is None:
            return []
        if server is not None and built.cmd is None:
            return [Invocation(path, (KIND,), "cli", build_span, entry=server, deployment=facts,
                               target=release)]
        return _image_command(path, build_span, built.launches, facts, release)
    if built is not None and built.entrypoint is not None:
        if built.entrypoint.words is None:
            return []  # a shell-form ENTRYPOINT ignores the command
        if server is not None:
            # (A repeated ``vllm serve`` is reported against the image's name, when known.)
            return finish(_after_entrypoint(path, built.entrypoint.words, command,
                                            facts.image is not None))
    elif built is not None and built.base is not None and is_server_image(built.base):
        found = recognise_all(command.words, path=path, kind=KIND, image=built.base)
        return finish([replace(invocation, target=release) for invocation in found])
    elif built is None and facts.image is not None \
            and runs_server(facts.image.value, command.words):
        # The Dockerfile is not here to say (built elsewhere, outside the repository), but the
        # image's name says vLLM and every option of the command is vLLM's
        # (``knowledge.images.runs_server``): the words are its server's arguments.
        found = recognise_all(command.words, path=path, kind=KIND, image=facts.image.value)
        return finish([replace(invocation, target=None) for invocation in found])
    if command.string is not None:
        return finish(_shell(path, command.string))
    return finish(recognise_all(command.words, path=path, kind=KIND))


def _image_command(
    path: str, build_span: Span, launches: Sequence[Invocation], facts: Deployment,
    release: str | None,
) -> list[Invocation]:
    """The launches of a service that writes no ``entrypoint:`` nor ``command:``: its container
    runs the built image's own CMD/ENTRYPOINT (``launches``, found in the Dockerfile), with the
    service's environment, GPUs, shared memory, ports and probes around it.

    What is checked where: the command's words are in the Dockerfile, and every rule on them
    reports there, once, at their own characters (the Dockerfile's launch, found when vlint lints
    it).  The service's launch, anchored at ``build:``, holds none of those words: it carries the
    service's Deployment facet for the rules on what surrounds the command, and says that its
    command has arguments this file does not show (``args_complete``), so that no rule reads an
    option as absent from it.  The image's ``ENV`` may set variables beside the service's
    ``environment:``, so the service's environment is not complete either; a variable of the
    service's that the command expands (``vllm serve ${MODEL_NAME}``) is an input of those
    words, in use there, and is left out of the service's launch (a rule on the variables a
    launch sets but vLLM does not read would otherwise report it).  The origin is
    ``compose`` then the kinds the command was found through (``dockerfile``, ``shell`` for a
    shell-form CMD).
    """
    found: list[Invocation] = []
    for launch in launches:
        has_arguments = bool(launch.args or launch.keywords or launch.has_unpacked_kwargs)
        expanded = {match.group(1) for token in launch.args
                    for match in _EXPANSION.finditer(token.text)}
        env = {name: variable for name, variable in facts.env.items() if name not in expanded}
        found.append(Invocation(
            path, (KIND, *launch.origin), launch.style, build_span, entry=launch.entry,
            callee=launch.callee, deployment=replace(facts, env=env, env_complete=False),
            target=release if release is not None else launch.target,
            args_complete=launch.args_complete and not has_arguments,
        ))
    return found


def _server_entry(built: BuiltImage | None) -> Entry | None:
    """The server the built image's entry point starts with no argument of its own (its base
    server image's, or its own bare ``ENTRYPOINT ["vllm", "serve"]``), if it is one."""
    if built is None:
        return None
    if built.entrypoint is None:
        if built.base is not None and is_server_image(built.base):
            return image_entry(built.release)
        return None
    if built.entrypoint.words is None:
        return None
    found = recognise_all(built.entrypoint.words, path="", kind=KIND)
    if len(found) == 1 and not found[0].args and not found[0].deployment.env:
        return found[0].entry
    return None


def _after_entrypoint(
    path: str, entrypoint: Sequence[Token], command: _Argv, keep_repeated: bool
) -> list[Invocation]:
    """The compose ``command:`` words as the arguments of the Dockerfile's bare server
    ENTRYPOINT; the launch is placed at the command (the entry point's words are in another
    file).  With ``keep_repeated``, leading words that repeat the entry point (``vllm serve``
    or ``serve``) are kept apart, as argv keeps them for a server image's arguments (VL401)."""
    words = command.words
    repeated = _repeated_entry(words) if keep_repeated else 0
    ours = {id(word) for word in words}
    found = recognise_all((*entrypoint, *words[repeated:]), path=path, kind=KIND)
    return [replace(invocation, anchor=command.anchor, repeated_entry=tuple(words[:repeated]))
            for invocation in found if all(id(arg) in ours for arg in invocation.args)]


def _repeated_entry(words: Sequence[Token]) -> int:
    if len(words) >= 2 and words[0].text.rsplit("/", 1)[-1] == "vllm" and words[1].text == "serve":
        return 2
    return 1 if words and words[0].text == "serve" else 0
