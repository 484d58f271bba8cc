"""Container runs: ``docker run``, ``podman run``, ``nerdctl run``, ``kubectl run``,
``apptainer``/``singularity exec|run`` — the image, its run options (the Deployment facet) and
the launch inside it.

``extract.argv.recognise_all`` hands every command whose program is in ``PROGRAMS`` here, with
itself as ``recognise`` so that a command run inside the container is recognised the same way.

The options are read as each tool's parser reads them (``syntax.container_cli``, which cites
their documentation).  The words after the image are, for a vLLM server image
(``knowledge.images.is_server_image``), the arguments of the image's entry point (as vLLM's
deployment guide writes it: ``docker run ... vllm/vllm-openai:TAG --model M``,
https://docs.vllm.ai/en/latest/deployment/docker/); for any other image, the command the
container runs.  ``--entrypoint X`` replaces the image's entry point: the container runs X
followed by those words.  A line whose options vlint cannot read gives no launch: the image
could be any later word.  An expansion among the options (``docker run -it ${GPU_FLAGS}
--ipc=host ... IMAGE``) holds options when the words after it are run options up to an image
that runs vLLM's server with the rest (``knowledge.images.runs_server``); the facts are then
incomplete.

An image held in a variable that a branch or an option loop may reassign (``IMAGE=vllm/vllm-
openai:latest``, then ``-c) IMAGE=vllm-cpu-env ;;``) is not literal: ``syntax.shell`` gives the
script's default, every character unknown.  Whether the run starts vLLM's server is decided as
for any image vlint cannot be sure of, by ``runs_server`` on that text and the words after it;
the tag gives no target (the script may run the other image: the release falls back to the
project's pins), while the default's own reference, written literally where it is assigned,
is still checked there (an unpinned ``:latest``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from vlint.discover import Refused, confined_read, linted_roots
from vlint.extract import deployment
from vlint.extract.dotenv_files import MAX_DOTENV_SIZE
from vlint.knowledge.images import image_entry, is_server_image, release_from_image, runs_server
from vlint.model import (
    Deployment, EnvVar, GpuCount, Invocation, Located, Mount, Port, Span, Token,
)
from vlint.syntax import container_cli
from vlint.syntax.container_cli import Option, OptionTable

__all__ = ["PROGRAMS", "docker_env_file", "recognise"]

PROGRAMS = frozenset({"docker", "podman", "nerdctl", "kubectl", "apptainer", "singularity"})

Recognise = Callable[..., list[Invocation]]

_ENGINES: Mapping[str, tuple[OptionTable, OptionTable]] = {
    "docker": (container_cli.DOCKER_GLOBAL, container_cli.DOCKER_RUN),
    "podman": (container_cli.PODMAN_GLOBAL, container_cli.PODMAN_RUN),
    "nerdctl": (container_cli.NERDCTL_GLOBAL, container_cli.NERDCTL_RUN),
}
# The Container Device Interface names every NVIDIA GPU ``nvidia.com/gpu=all``
# (https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/cdi-support.html,
# the form podman's GPU guide uses: ``--device nvidia.com/gpu=all``).
_CDI_GPU = "nvidia.com/gpu="
# A ``--gpus`` request is CSV: a device list with commas is quoted (``'"device=0,1"'``).
_GPU_DEVICES = re.compile(r'"device=([^"]*)"|(?:^|,)device=([^,"]*)')
_GPU_COUNT = re.compile(r"(?:^|,)count=([^,]*)")


def _basename(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def recognise(
    words: Sequence[Token],
    start: int,
    *,
    path: str,
    kind: str,
    env: Mapping[str, Token],
    names: Mapping[str, Span],
    recognise: Recognise,
) -> list[Invocation]:
    """The vLLM launches of the container command ``words[start:]``.

    ``env`` (a ``NAME=x`` prefix, ``env NAME=x``) is the container tool's own environment,
    not the container's, and is not passed in.
    """
    program = _basename(words[start].text)
    run = _Run(path, kind, program, words[start], recognise)
    if program in _ENGINES:
        return run.engine(words, start + 1, *_ENGINES[program])
    if program == "kubectl":
        return run.kubectl(words, start + 1)
    return run.apptainer(words, start + 1)


class _Run:
    """One container command being read: where it is, and how to recognise what it runs."""

    def __init__(
        self,
        path: str,
        kind: str,
        program: str,
        program_word: Token,
        recognise: Recognise,
    ) -> None:
        self.path = path
        self.kind = kind
        self.program = program
        self.program_word = program_word
        self.recognise = recognise

    # -- docker, podman, nerdctl ------------------------------------------------------------

    def engine(
        self, words: Sequence[Token], start: int, globals_: OptionTable, run: OptionTable
    ) -> list[Invocation]:
        """``docker [global options] run|container run [options] IMAGE [ARGS...]``."""
        before = container_cli.parse(words, start, globals_)
        if before is None:
            return []
        index = before.stop
        if index < len(words) and words[index].text == "container":
            index += 1
        if index >= len(words) or words[index].text != "run":
            return []
        parsed = container_cli.parse(words, index + 1, run)
        if parsed is None or parsed.stop >= len(words):
            return []
        image_at = parsed.stop
        options = list(parsed.options)
        complete = True
        if not words[image_at].literal and _server_image_follows(words, image_at):
            # ``docker run $GPU_FLAGS vllm/vllm-openai:TAG ...``: the expansion holds options.
            image_at += 1
            complete = False
        else:
            while True:
                more = _options_after_expansion(words, image_at, run)
                if more is None:
                    break
                options += more.options
                image_at = more.stop
                complete = False
        image = words[image_at]
        facts = self.facts(options, image, complete)
        entrypoint = _last(parsed.options, "--entrypoint")
        rest = tuple(words[image_at + 1 :])
        if entrypoint is not None and entrypoint.value is not None:
            if entrypoint.value.text:
                return self.inside((entrypoint.value, *rest), facts, image)
            return self.inside(rest, facts, image)
        return self.image_runs(rest, facts, image)

    # -- kubectl ----------------------------------------------------------------------------

    def kubectl(self, words: Sequence[Token], start: int) -> list[Invocation]:
        """``kubectl [flags] run NAME --image=IMAGE [flags] [--command] -- [ARGS...]``: the
        words after ``--`` (and any after NAME before it) are the container's arguments, or
        with ``--command`` its command (kubectl ``run.go``)."""
        parsed_globals = container_cli.parse(words, start, container_cli.KUBECTL_RUN)
        if parsed_globals is None:
            return []
        index = parsed_globals.stop
        if index >= len(words) or words[index].text != "run":
            return []
        parsed = container_cli.parse(words, index + 1, container_cli.KUBECTL_RUN,
                                     interspersed=True)
        if parsed is None or not parsed.positionals:
            return []
        image_option = _last(parsed.options, "--image")
        if image_option is None or image_option.value is None:
            return []
        image = image_option.value
        arguments = [words[i] for i in parsed.positionals[1:]]
        if parsed.dash is not None:
            arguments += words[parsed.dash :]
        # ``--overrides`` JSON may set any part of the pod, its environment included.
        facts = self.facts(parsed.options, image, _last(parsed.options, "--overrides") is None)
        if _last(parsed.options, "--command") is not None:
            return self.inside(tuple(arguments), facts, image)
        return self.image_runs(tuple(arguments), facts, image)

    # -- apptainer, singularity -------------------------------------------------------------

    def apptainer(self, words: Sequence[Token], start: int) -> list[Invocation]:
        """``apptainer [global] exec [options] IMAGE COMMAND...`` runs the command;
        ``apptainer [global] run [options] IMAGE [ARGS...]`` runs the image's runscript, which
        for an image built from a Docker image is its ENTRYPOINT and CMD
        (https://apptainer.org/docs/user/latest/docker_and_oci.html): a server image's
        arguments.  ``docker://REF`` names a registry image; a ``.sif`` file names none."""
        before = container_cli.parse(words, start, container_cli.APPTAINER_GLOBAL)
        if before is None or before.stop >= len(words):
            return []
        action = words[before.stop].text
        if action not in ("exec", "run"):
            return []
        parsed = container_cli.parse(words, before.stop + 1, container_cli.APPTAINER)
        if parsed is None or parsed.stop >= len(words):
            return []
        written = words[parsed.stop]
        reference = _registry_reference(written.text)
        image = written.slice(len(written.text) - len(reference)) if reference else None
        facts = self.facts(parsed.options, image, True)
        rest = tuple(words[parsed.stop + 1 :])
        if action == "exec":
            return self.inside(rest, facts, image)
        if image is None:
            # A local ``.sif`` (or an image held in a variable) runs a runscript vlint cannot
            # read: a command written after it (``run $SIF vllm serve M``) is a launch, and so
            # are arguments written for vLLM after an image whose name says vLLM
            # (``run $VLLM_SIF --model M``, ``knowledge.images.runs_server``).
            if runs_server(written.text, rest):
                return self.image_runs(rest, facts, written)
            return self.inside(rest, facts, image)
        return self.image_runs(rest, facts, image)

    # -- the launch inside ------------------------------------------------------------------

    def image_runs(
        self, rest: tuple[Token, ...], facts: Deployment, image: Token
    ) -> list[Invocation]:
        """What ``image`` runs given ``rest``: a server image's entry point with ``rest`` as its
        arguments, or ``rest`` as the command of any other image."""
        target = release_from_image(image.text) if image.literal else None
        if image.literal and is_server_image(image.text) or runs_server(image.text, rest):
            if not rest:
                anchor = image.sub_span(0)
                return [self._contained(Invocation(
                    self.path, (self.kind,), "cli", anchor, entry=image_entry(target),
                    entry_from_image=True,
                    target=target,
                ), facts, target, ())]
            found = self.recognise(rest, path=self.path, kind=self.kind, image=image.text)
            if not image.literal:
                # Its tag is no release: the script may run another image (see the module).
                found = [replace(invocation, target=None) for invocation in found]
            return [self._contained(i, facts, target, rest) for i in found]
        return self.inside(rest, facts, image)

    def inside(
        self, command: tuple[Token, ...], facts: Deployment, image: Token | None
    ) -> list[Invocation]:
        """The launches of ``command``, run in a container described by ``facts``."""
        if not command:
            return []
        target = release_from_image(image.text) if image is not None and image.literal else None
        found = self.recognise(command, path=self.path, kind=self.kind)
        return [self._contained(i, facts, target, command) for i in found]

    def _contained(
        self,
        invocation: Invocation,
        facts: Deployment,
        target: str | None,
        words: Sequence[Token],
    ) -> Invocation:
        """``invocation``, found in ``words``, run in the container ``facts`` describe; the
        container tool is named (``Deployment.container``) when its arguments are those words
        themselves, not a script nested in one of them (``bash -c "..."``)."""
        first = invocation.args[0] if invocation.args else None
        direct = first is not None and any(first is word for word in words)
        if direct:
            facts = replace(facts, container=deployment.at(self.program_word, self.program))
        return deployment.enclosed(invocation, self.kind, facts, target)

    # -- the Deployment facet ---------------------------------------------------------------

    def facts(
        self, options: Sequence[Option], image: Token | None, complete: bool
    ) -> Deployment:
        """What the run options state about the container.  The host's environment is not
        the container's: only ``-e``/``--env``/``--env-file`` set it (a bare ``-e NAME``
        copies a host value vlint cannot know).  Kubectl's ``--port`` is the container's port
        (``containerPort``)."""
        env: list[EnvVar | None] = []
        from_files: list[EnvVar] = []
        gpus: Located[GpuCount | None] | None = None
        ipc: Located[str | None] | None = None
        shm: Located[int | None] | None = None
        ports: list[Port] = []
        volumes: list[Mount] = []
        host_network = False
        for option in options:
            value = option.value
            name = option.name
            if value is None:
                if name in ("--nv", "--nvccli"):
                    gpus = Located("all", option.span)
                elif name == "--env-host":
                    complete = False
                continue
            if name == "--env":
                for part in _env_parts(self.program, value):
                    variable = deployment.assignment(part)
                    if variable is None:
                        complete = False  # ``-e NAME``: the host's value, if it has one
                    env.append(variable)
            elif name == "--env-file" and self.program in _ENGINES:
                read = docker_env_file(self.path, value)
                complete = complete and read[1]
                from_files.extend(read[0])
            elif name == "--env-file":
                complete = False  # Apptainer's is a shell script, not read here
            elif name in ("--gpus", "--device"):
                gpus = _gpus(name, value) or gpus
            elif name == "--ipc":
                ipc = deployment.at(value, value.text if value.literal else None)
            elif name == "--shm-size":
                shm = deployment.at(
                    value, deployment.docker_bytes(value.text) if value.literal else None)
            elif name in ("--publish", "--port"):
                ports.append(deployment.short_port(value))
            elif name in ("--network", "--net") and value.literal and value.text == "host":
                host_network = True
            elif name in ("--volume", "--bind"):
                volumes.extend(_volume(value))
            elif name == "--mount":
                volumes.extend(_mount(value))
        if self.program in ("apptainer", "singularity"):
            # Apptainer passes the host's environment into the container unless told not to
            # (https://apptainer.org/docs/user/latest/environment_and_metadata.html).
            complete = False
        return Deployment(
            image=None if image is None else deployment.image(image),
            # Docker reads the env files first and ``-e`` over them, whatever their order
            # (docker/cli ``opts.ReadKVEnvStrings(envFile, env)``).
            env=deployment.environment([*from_files, *env]),
            env_complete=complete,
            gpus=gpus,
            ipc=ipc,
            shm_size=shm,
            # On the host's network published ports are discarded (Docker: "Published ports
            # are discarded when using host network mode"): the container declares none.
            ports=() if host_network else tuple(ports),
            volumes=tuple(volumes),
        )


def _env_parts(program: str, value: Token) -> list[Token]:
    """The ``NAME=VALUE`` entries of one ``--env`` value: Apptainer's is a map written
    ``A=1,B=2`` (a pflag ``StringToString``, ``cmd/internal/cli/action_flags.go``); docker's,
    podman's and kubectl's one entry, commas included."""
    if program not in ("apptainer", "singularity") or "," not in value.text:
        return [value]
    parts: list[Token] = []
    start = 0
    for piece in value.text.split(","):
        parts.append(value.slice(start, start + len(piece)))
        start += len(piece) + 1
    return parts


def _last(options: Sequence[Option], name: str) -> Option | None:
    """The last ``name`` option (a repeated single-valued option: the last one wins)."""
    return next((o for o in reversed(options) if o.name == name), None)


def _options_after_expansion(
    words: Sequence[Token], index: int, table: OptionTable
) -> container_cli.Parsed | None:
    """The run options after ``words[index]`` when that word is an expansion holding options
    (``docker run -it ${GPU_FLAGS} --ipc=host ... IMAGE ARGS``): it is not an image vLLM's
    server runs with the words after it, and the words after it are run options up to one that
    is (``knowledge.images.runs_server``).  None where ``words[index]`` may be the image."""
    word = words[index]
    if word.literal or index + 1 >= len(words) or not words[index + 1].text.startswith("-"):
        return None
    if runs_server(word.text, words[index + 1:]):
        return None
    parsed = container_cli.parse(words, index + 1, table)
    if parsed is None or parsed.stop >= len(words):
        return None
    if not runs_server(words[parsed.stop].text, words[parsed.stop + 1:]):
        return None
    return parsed


def _server_image_follows(words: Sequence[Token], index: int) -> bool:
    """Whether the word after ``index`` is a server image reference: with a tag, digest or
    repository path, so that the program ``vllm`` (``$IMAGE vllm serve m``) is not one."""
    after = index + 1
    if after >= len(words) or not words[after].literal:
        return False
    text = words[after].text
    return any(mark in text for mark in "/:@") and is_server_image(text)


def _registry_reference(text: str) -> str | None:
    """The image reference of an Apptainer ``docker://REF`` (or ``oras``/``library``: not
    Docker images, so none)."""
    return text[len("docker://"):] if text.startswith("docker://") else None


def _gpus(name: str, value: Token) -> Located[GpuCount | None] | None:
    """``--gpus all|N|count=N|device=0,1`` (docker's ``gpu-request``,
    https://docs.docker.com/reference/cli/docker/container/run/#gpus) or a CDI device
    ``--device nvidia.com/gpu=all|0``; None for a device that is not a GPU."""
    text = value.text
    if name == "--device":
        if not text.startswith(_CDI_GPU):
            return None
        which = text[len(_CDI_GPU):]
        count: GpuCount | None = "all" if which == "all" else 1
        return deployment.at(value, count if value.literal else None)
    if not value.literal:
        return deployment.at(value, None)
    found: GpuCount | None = deployment.gpu_count(text)
    devices = _GPU_DEVICES.search(text)
    requested = _GPU_COUNT.search(text)
    if found is None and devices is not None:
        listed = devices.group(1) if devices.group(1) is not None else devices.group(2)
        found = len([d for d in listed.split(",") if d.strip()])
    elif found is None and requested is not None:
        found = deployment.gpu_count(requested.group(1))
    return deployment.at(value, found)


def _volume(value: Token) -> list[Mount]:
    """``-v SOURCE:TARGET[:MODE]`` (Apptainer ``--bind SRC[:DEST[:OPTS]]``, comma-separated
    lists are read as one entry's first part only)."""
    parts = value.text.split(":")
    literal = value.literal
    if len(parts) == 1:
        return [Mount(deployment.at(value, value.text if literal else None))]
    cut = len(parts[0])
    stop = cut + 1 + len(parts[1])
    return [Mount(
        Located(parts[1] if literal else None, value.sub_span(cut + 1, stop)),
        Located(parts[0] if literal else None, value.sub_span(0, cut)),
    )]


def _mount(value: Token) -> list[Mount]:
    """``--mount type=bind,source=S,target=T`` (``src``/``dst``/``destination`` spellings, a
    ``tmpfs`` type is memory)."""
    fields: dict[str, tuple[str, int]] = {}
    offset = 0
    for part in value.text.split(","):
        key, equals, setting = part.partition("=")
        if equals:
            fields[key.strip()] = (setting, offset + len(key) + 1)
        offset += len(part) + 1
    literal = value.literal

    def located(*keys: str) -> Located[str | None] | None:
        for key in keys:
            if key in fields:
                setting, at = fields[key]
                return Located(setting if literal else None, value.sub_span(at, at + len(setting)))
        return None

    target = located("target", "dst", "destination")
    if target is None:
        return []
    kind = fields.get("type", ("", 0))[0]
    return [Mount(target, located("source", "src"), kind == "tmpfs")]


# -- --env-file -------------------------------------------------------------------------------

MAX_ENV_FILE_VARIABLES = 4096


def docker_env_file(path: str, value: Token) -> tuple[list[EnvVar], bool]:
    """The variables of ``--env-file FILE`` and whether they are all known.

    Docker reads FILE relative to the directory it is run from; vlint cannot know that, and
    reads it relative to the folder of the linted file, only inside the linted roots
    (``discover.confined_read``), at most ``MAX_DOTENV_SIZE`` bytes.  A file vlint cannot read
    (absent, outside the roots, not UTF-8, not valid), a name that is not literal, or a line
    ``NAME`` that copies the host's value, leaves the environment incomplete; it is never an
    error.  The format is docker's own, not python-dotenv's: ``NAME=VALUE`` with VALUE
    verbatim (no quotes removed, no interpolation), ``#`` comment lines, leading blanks
    dropped (docker/cli ``pkg/kvfile/kvfile.go``).  A value has no place in the linted file: its
    characters all sit at the start of FILE's name.
    """
    if not value.literal or not value.text:
        return [], False
    linted = os.path.abspath(path)
    where = os.path.normpath(os.path.join(os.path.dirname(linted), value.text))
    # The roots are the linted file's (its repository), never the env file's own folder.
    try:
        status = os.stat(where)
    except OSError:
        return [], False
    identity = (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)
    parsed = _env_file(where, linted_roots([linted]), identity)
    if parsed is None:
        return [], False
    anchor = value.pos(0)
    found = [
        EnvVar(name, Token(setting, [anchor] * (len(setting) + 1)))
        for name, setting in parsed[0]
    ]
    return found, parsed[1]


@lru_cache(maxsize=64)
def _env_file(
    where: str, roots: tuple[Path, ...], identity: tuple[int, int, int, int]
) -> tuple[tuple[tuple[str, str], ...], bool] | None:
    """The ``NAME=VALUE`` pairs of an env file and whether it holds only those; None when it
    cannot be read or docker would refuse it.  Read once per content (``identity``)."""
    try:
        data = confined_read(where, roots, MAX_DOTENV_SIZE)
        text = data.decode("utf-8")
    except (Refused, UnicodeDecodeError):
        return None
    text = text.removeprefix("\ufeff")
    variables: list[tuple[str, str]] = []
    complete = True
    for line in text.split("\n"):
        line = line.removesuffix("\r").lstrip()
        if not line or line.startswith("#"):
            continue
        name, equals, setting = line.partition("=")
        if not name or " " in name or "\t" in name:
            return None
        if not equals:
            complete = False  # the host's value, if it has one
            continue
        variables.append((name, setting))
        if len(variables) > MAX_ENV_FILE_VARIABLES:
            return tuple(variables[:MAX_ENV_FILE_VARIABLES]), False
    return tuple(variables), complete
