"""One launch of vLLM, as every extractor hands it to the normaliser: the argv or keyword facet,
the Deployment facet (what sits around the command) and the Origin chain (the kinds it was found
through)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from vlint.model.located import Located
from vlint.model.positions import Pos, Span
from vlint.model.token import Entry, Keyword, Token


@dataclass(frozen=True)
class EnvVar:
    """One environment variable of a launch: its value, and where its name is written (None
    where an extractor cannot place it)."""

    name: str
    value: Token
    name_span: Span | None = None


# The GPUs a container may use: a count, or every GPU of the node.
GpuCount = int | Literal["all"]


@dataclass(frozen=True)
class Port:
    """A port the container declares (Kubernetes ``containerPort``, the container side of a
    compose ``ports:`` entry or ``expose:``), with its name (Kubernetes) and the host side
    (compose ``published``, ``HOST:CONTAINER``), as written."""

    container: Located[int | None]
    name: str | None = None
    published: Located[str | None] | None = None


ProbeKind = Literal["liveness", "readiness", "startup", "healthcheck"]


@dataclass(frozen=True)
class Probe:
    """A health probe: a Kubernetes ``livenessProbe``/``readinessProbe``/``startupProbe`` or a
    compose ``healthcheck``.  ``span`` is its key; ``handler`` is ``httpGet``, ``tcpSocket``,
    ``grpc`` or ``exec`` (a compose ``test:`` is ``exec``; its URL, when it has one, gives
    ``port`` and ``path``; a URL to another host gives a port of None).  ``port`` is a number
    or a Kubernetes port name.  ``authorized`` is true when the probe sends an
    ``Authorization`` header (Kubernetes ``httpHeaders``, a ``curl -H`` in the test);
    ``status_checked`` false when an HTTP error status does not fail it (``curl`` without
    ``--fail``)."""

    kind: ProbeKind
    span: Span
    handler: str
    port: Located[int | str | None] | None = None
    path: Located[str | None] | None = None
    initial_delay: Located[int | None] | None = None
    period: Located[int | None] | None = None
    failure_threshold: Located[int | None] | None = None
    authorized: bool = False
    status_checked: bool = True


@dataclass(frozen=True)
class ServicePort:
    """A port of a Kubernetes Service that selects the launch's pod: the Service's name and where
    it sends traffic (``targetPort``, a number or a container port's name; its ``port`` when no
    target is written)."""

    service: str
    target: Located[int | str | None]


@dataclass(frozen=True)
class Mount:
    """A volume mounted into the container at ``target``: ``source`` is the host path or the
    volume's name; ``memory`` is true for memory-backed storage (a Kubernetes ``emptyDir`` with
    ``medium: Memory``, a compose ``tmpfs``)."""

    target: Located[str | None]
    source: Located[str | None] | None = None
    memory: bool = False


@dataclass(frozen=True)
class Deployment:
    """What sits around a launch's command, as far as the file states it.

    Each fact is a ``Located`` value, or None where the file does not state it (see ``Located``
    for a fact written in a form that cannot be known statically).  ``env_complete`` is false
    when part of the environment comes from a source vlint does not read (compose
    ``env_file``, Kubernetes ``envFrom``): a variable absent from ``env`` may still be set.
    ``gpus`` is what the container may use (Kubernetes ``nvidia.com/gpu``/``amd.com/gpu``
    limits or requests, compose device reservations and ``gpus:``), ``devices`` which ones where
    the file names them (compose ``device_ids``, literal); ``ipc`` the IPC namespace
    (compose ``ipc:``; ``host`` for Kubernetes ``hostIPC: true``); ``shm_size`` the size of
    ``/dev/shm`` in bytes (compose ``shm_size``, the ``sizeLimit`` of a memory ``emptyDir``
    mounted there); ``service_links`` Kubernetes ``enableServiceLinks``; ``container`` the
    container tool (``docker``, ``podman``, ``nerdctl``, ``kubectl``, ``apptainer``,
    ``singularity``, at its program word) whose command line passes the launch's arguments
    straight after the image, where any of its own options written there would go too.
    ``cluster`` names the multi-node runtime the launch runs in, where the file shows one:
    ``ray`` (a ``ray start`` in the same script, a KubeRay resource's pod), ``leaderworkerset``
    (a LeaderWorkerSet's leader or worker template); ``nodes`` is the size of that group where
    it is written (``leaderWorkerTemplate.size``), ``role`` the template the container is in
    (``leader`` or ``worker``).  ``services`` are the names of the
    Kubernetes Services beside the pod (same file, same namespace): the kubelet puts each one's
    ``{NAME}_PORT`` link variable in the container's environment unless ``service_links`` is
    false; ``service_ports`` the ports of those whose selector matches the pod's labels, and
    ``pod_containers`` how many containers the pod has.
    """

    image: Located[str] | None = None
    env: Mapping[str, EnvVar] = field(default_factory=dict)
    env_complete: bool = True
    gpus: Located[GpuCount | None] | None = None
    devices: Located[tuple[str, ...]] | None = None
    ipc: Located[str | None] | None = None
    shm_size: Located[int | None] | None = None
    ports: tuple[Port, ...] = ()
    probes: tuple[Probe, ...] = ()
    volumes: tuple[Mount, ...] = ()
    service_links: Located[bool | None] | None = None
    container: Located[str] | None = None
    cluster: Located[str] | None = None
    nodes: Located[int | None] | None = None
    role: str | None = None
    services: tuple[Located[str], ...] = ()
    service_ports: tuple[ServicePort, ...] = ()
    pod_containers: int | None = None


@dataclass(frozen=True)
class ModelFacts:
    """What a model folder in the repository says of itself, read for a launch whose model is
    that folder (``vlint.extract.model_files``): ``config`` is its ``config.json`` as shown
    (relative to the linted file's folder), ``attention_heads`` the text model's
    ``num_attention_heads``, ``max_length`` the context length vLLM derives from it with the
    key it comes from, where that derivation is certain (None otherwise)."""

    config: str
    attention_heads: int | None = None
    max_length: tuple[str, int] | None = None


# Where the words of another linted file are placed in a launch (``Invocation.borrowed_at``):
# line 1, column 1, which no finding of the launch's own words can hold as a span of nothing.
BORROWED = Pos(1, 1)


@dataclass(frozen=True)
class Invocation:
    """One launch of vLLM found in a file, in the shape the normaliser reads.

    ``style`` is ``cli`` for an argv (``args`` are the tokens after ``vllm serve`` or after the
    API server module) and ``python`` for keyword arguments (``keywords``) of ``LLM(...)``,
    ``EngineArgs(...)`` or ``AsyncEngineArgs(...)``.  ``origin`` is the chain of kinds the
    launch was found through, the file's kind first (``("markdown", "compose", "shell")``: a
    compose ``command:`` string in a Markdown fence).
    """

    path: str
    origin: tuple[str, ...]
    style: Literal["cli", "python"]
    anchor: Span
    entry: Entry = "serve"
    # True when ``entry`` is what a vLLM server image's ENTRYPOINT starts
    # (``knowledge.images.image_entry``): each release checked then reads the launch with its
    # own image's entry point (``api_server`` up to 0.11.0, ``vllm serve`` after), an image
    # whose tag names no release being checked at several.
    entry_from_image: bool = False
    callee: str = ""
    args: tuple[Token, ...] = ()
    keywords: tuple[Keyword, ...] = ()
    has_unpacked_kwargs: bool = False
    deployment: Deployment = field(default_factory=Deployment)
    target: str | None = None
    # Words given to a server image that repeat its entrypoint (``vllm serve`` or ``serve``);
    # ``args`` are the words after them.
    repeated_entry: tuple[Token, ...] = ()
    # Lines of the command that end without a working ``\`` before a line of flags.
    line_breaks: tuple[LineBreak, ...] = ()
    # Keys a vLLM ``--config`` file sets to ``false``: each release decides whether they are
    # dropped or become ``--no-KEY`` (VL405), so they are not in ``args``.
    config_false: tuple[Token, ...] = ()
    # False when the command that starts the launch may hold arguments the file does not show: a
    # vLLM ``--config`` file is only the part of ``vllm serve --config FILE ...`` it holds.
    args_complete: bool = True
    # Where the words of another linted file are placed (a chart template's own words in a
    # launch read from the chart's values.yaml, ``vlint.extract.chart_templates``): a finding
    # there is that file's, which reports it, and is not reported again here.
    borrowed_at: Pos | None = None
    # The model folders of the repository the launch may serve, by the model as written
    # (``vlint.extract.model_files``, filled by the engine after extraction).
    local_models: Mapping[str, ModelFacts] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        """The kind of the file the launch is in (``origin[0]``): what policies scope on."""
        return self.origin[0]

    @cached_property
    def env(self) -> Mapping[str, Token]:
        """Each variable's value, by name."""
        return {name: variable.value for name, variable in self.deployment.env.items()}

    @cached_property
    def arg_indexes(self) -> Mapping[int, int]:
        """Each argument's index in ``args``, by the ``id`` of its token (a rule asking where a
        use's token sits, for every use, stays linear)."""
        return {id(token): index for index, token in enumerate(self.args)}

    @cached_property
    def env_names(self) -> Mapping[str, Span]:
        """Where each variable's name is written (absent for names that cannot be placed)."""
        return {
            name: variable.name_span
            for name, variable in self.deployment.env.items()
            if variable.name_span is not None
        }

    @property
    def env_unknown(self) -> bool:
        """True when a variable absent from ``env`` may still be set."""
        return not self.deployment.env_complete

    @property
    def image(self) -> str | None:
        located = self.deployment.image
        return None if located is None else located.value

    @property
    def image_span(self) -> Span | None:
        located = self.deployment.image
        return None if located is None else located.span


@dataclass(frozen=True)
class LineBreak:
    """A shell line that ends the command although the next line holds its flags.

    ``span`` is where the continuation should be: the ``\\`` and the blanks after it, or the
    column just past the line's end; ``orphan`` is the first word of the next line.
    """

    span: Span
    orphan: str
    trailing_blanks: bool
