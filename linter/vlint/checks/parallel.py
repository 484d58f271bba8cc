"""What the deployment rules (VL6xx) share: the GPUs a launch needs on its node, the GPUs its
container can see, whether its workers are separate processes, and whether it is part of a
group of nodes.

One vLLM engine runs ``tensor_parallel_size x pipeline_parallel_size x
prefill_context_parallel_size`` workers, one GPU each (``ParallelConfig.world_size``,
``vllm/config/parallel.py`` ``__post_init__``; prefill context parallelism from 0.12.0); each
data-parallel engine on the node takes the next ``world_size`` devices
(``vllm/v1/engine/utils.py`` ``get_device_indices``: ``local_dp_rank * world_size`` onwards), so
the node needs ``world_size x data_parallel_size_local`` GPUs, ``data_parallel_size`` when no
local size is written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from packaging.version import Version

from vlint.checks.base import Context
from vlint.checks.unseen_options import may_set_unseen_options
from vlint.model import Invocation, Span, Token
from vlint.model.finding import Related
from vlint.normalise.resolution import Resolution, Setting, number

# The factors of one engine's world size, with what a finding calls them.
_WORLD = (
    ("tensor_parallel_size", "tensor parallel"),
    ("pipeline_parallel_size", "pipeline parallel"),
    ("prefill_context_parallel_size", "prefill context parallel"),
)
# Variables that narrow the devices a process sees: CUDA's and ROCm's, read by the runtime in
# the process, and the NVIDIA container runtime's, read when the container starts
# (https://docs.nvidia.com/cuda/cuda-c-programming-guide/#cuda-environment-variables,
# https://rocm.docs.amd.com/en/latest/conceptual/gpu-isolation.html,
# https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html).
DEVICE_VARIABLES = ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
                    "NVIDIA_VISIBLE_DEVICES")
# One device of such a list: an index, or a GPU or MIG UUID.
_DEVICE = re.compile(r"\d{1,4}|(?:GPU|MIG)-[0-9A-Za-z/-]{1,80}")
# The kind of a Ray Serve LLM config (``vlint.extract.ray_serve``).
RAY_SERVE = "ray-serve"
# Backends whose workers are not this node's processes (``ray``: the cluster places them), or
# not several processes (``uni``; ``external_launcher``: torchrun starts one per rank).
NOT_LOCAL_PROCESSES = frozenset({"ray", "uni", "external_launcher"})


@dataclass(frozen=True)
class Layout:
    """What one launch asks of its node: ``world`` workers per engine and ``engines``
    data-parallel engines on the node (None where it cannot be known: data parallelism placed
    by Ray with no local size), and where each factor above 1 is written."""

    world: int
    engines: int | None
    factors: tuple[tuple[str, int, Span], ...]
    backend: str | None

    @property
    def needed(self) -> int:
        return self.world * (self.engines or 1)

    @property
    def formula(self) -> str:
        """``tensor parallel 2 x pipeline parallel 2`` (every factor above 1)."""
        return " x ".join(f"{label} {value}" for label, value, _ in self.factors) or "1"

    @property
    def written(self) -> str:
        """`` (tensor parallel 2)`` when a size is written; empty when none is."""
        return f" ({self.formula})" if self.factors else ""

    @property
    def related(self) -> tuple[Related, ...]:
        return tuple(Related(span, f"{label} size {value} is set here")
                     for label, value, span in self.factors)


def layout(context: Context) -> Layout | None:
    """The launch's layout, or None when a factor is not known (a value from a variable, an
    option vlint cannot see may change it)."""
    resolution = context.resolution
    invocation = resolution.invocation
    if invocation.style == "cli" and resolution.parser is None:
        return None
    if may_set_unseen_options(resolution):
        return None
    if _unparsed_size(resolution):
        return None
    settings = resolution.settings
    factors: list[tuple[str, int, Span]] = []
    world = 1
    for dest, label in _WORLD:
        value = _factor(settings, dest)
        if value is None:
            return None
        world *= value
        setting = settings.get(dest)
        if value > 1 and setting is not None and setting.span is not None:
            factors.append((label, value, setting.span))
    backend_setting = settings.get("distributed_executor_backend")
    if backend_setting is not None and not backend_setting.certain:
        return None
    backend = _choice(backend_setting)
    if backend is None and RAY_SERVE in invocation.origin:
        # Ray Serve LLM runs a GPU engine on the Ray executor whatever is given (ray-project/ray
        # python/ray/llm/_internal/serve/engines/vllm/vllm_models.py get_initialization_kwargs).
        backend = "ray"
    engines: int | None
    local = settings.get("data_parallel_size_local")
    if local is not None and local.span is not None:
        engines = number(local)
        if engines is None:
            return None
        if engines > 1:
            factors.append(("local data parallel", engines, local.span))
    else:
        engines = _factor(settings, "data_parallel_size")
        if engines is None:
            return None
        written = settings.get("data_parallel_size")
        if engines > 1 and written is not None and written.span is not None:
            factors.append(("data parallel", engines, written.span))
        placed_by = settings.get("data_parallel_backend")
        if engines > 1 and placed_by is not None and (
                not placed_by.certain or _choice(placed_by) not in (None, "mp")):
            engines = None  # Ray places the engines (or the backend is not known)
    return Layout(world, engines, tuple(factors), backend)


_SIZES = (*(dest for dest, _ in _WORLD), "data_parallel_size", "data_parallel_size_local")


def _unparsed_size(resolution: Resolution) -> bool:
    """Whether a parallel size is written in a form the release's parser does not take
    (``"--tensor-parallel-size 2"`` as one word): the size vLLM would run is not known."""
    parser = resolution.parser
    if parser is None:
        return False
    strings = tuple(string for dest in _SIZES if (option := parser.by_dest.get(dest)) is not None
                    for string in option.strings)
    if any(use.match == "unknown" and use.written.startswith(strings)
           for use in resolution.uses):
        return True
    # (argparse reads a word with a blank as a positional, VL402's: ``"--tp 2"``.)
    return any(token.text.startswith(strings)
               for token in (*resolution.unmatched, *resolution.positionals))


def _factor(settings: Mapping[str, Setting], dest: str) -> int | None:
    """A size setting's value; 1 for a release without the option, None when not known."""
    setting = settings.get(dest)
    if setting is None:
        return 1
    if setting.span is None and setting.value is None:
        return 1
    value = number(setting)
    return value if value is not None and value >= 1 else None


def _choice(setting: Setting | None) -> str | None:
    """A choice setting's value as text; None when it is not set."""
    if setting is None or setting.value is None:
        return None
    return str(setting.value)


# From this release a launch on one node's GPUs no longer falls back to Ray by itself
# (``vllm/config/parallel.py``): only ``--distributed-executor-backend ray`` or ``--nnodes``
# use other nodes.
RAY_FALLBACK_REMOVED = Version("0.11.1")


def spans_nodes(resolution: Resolution, found: Layout) -> bool:
    """Whether the launch may use other nodes' GPUs: ``--nnodes`` above 1 (or not known), the
    Ray backend or an external launcher; up to 0.11.0, when vLLM fell back to Ray by itself,
    also a Ray cluster or LeaderWorkerSet around it or ``RAY_ADDRESS`` set."""
    invocation = resolution.invocation
    nodes = resolution.written("nnodes")
    if nodes is not None and (number(nodes) or 2) > 1:
        return True
    if found.backend in ("ray", "external_launcher"):
        return True
    if resolution.release.version >= RAY_FALLBACK_REMOVED:
        return False
    return invocation.deployment.cluster is not None or "RAY_ADDRESS" in invocation.env


@dataclass(frozen=True)
class Visible:
    """How many GPUs a launch's process can see, and the value that says so."""

    count: int
    span: Span
    # Where they come from, as a finding says it: ``given here``, ``CUDA_VISIBLE_DEVICES lists``.
    source: str


def visible_gpus(invocation: Invocation) -> Visible | None:
    """The fewest GPUs any statement around the launch leaves it: the container's GPUs
    (``Deployment.gpus``) and every device list in its environment; None when none is
    known.

    In a container of N GPUs the runtime numbers them 0 to N-1, and CUDA (HIP too) shows only
    the devices listed before the first index that does not exist ("If one of the indices is
    invalid, only the devices whose index precedes the invalid index are visible", the CUDA
    programming guide on ``CUDA_VISIBLE_DEVICES``): ``CUDA_VISIBLE_DEVICES=3,4`` in a 2-GPU
    container leaves none."""
    found: list[Visible] = []
    gpus = invocation.deployment.gpus
    container = gpus.value if gpus is not None and isinstance(gpus.value, int) else None
    if gpus is not None and container is not None:
        found.append(Visible(container, gpus.span, "given here"))
    for name in DEVICE_VARIABLES:
        value = invocation.env.get(name)
        count = device_count(value) if value is not None else None
        if value is None or count is None:
            continue
        past = _past_the_container(value.text, container) if name in _INDEXED else None
        if past is not None:
            found.append(Visible(past[0], value.sub_span(0),
                                 f"{name} names device {past[1]} of a {container}-GPU "
                                 "container, which leaves"))
        else:
            found.append(Visible(count, value.sub_span(0), f"{name} lists"))
    return min(found, key=lambda visible: visible.count, default=None)


# The variables read inside the container, against its own numbering of its GPUs
# (``NVIDIA_VISIBLE_DEVICES`` is the runtime's, in the host's numbering).
_INDEXED = frozenset({"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"})


def _past_the_container(listed: str, container: int | None) -> tuple[int, str] | None:
    """The devices left and the first index past a container's GPUs, where a list of indices
    names one; None otherwise."""
    if container is None:
        return None
    items = [item.strip() for item in listed.split(",")]
    if not all(item.isdigit() for item in items):
        return None
    for position, item in enumerate(items):
        if int(item) >= container:
            return position, item
    return None


def device_count(value: Token) -> int | None:
    """The devices a literal device list names (``0,1``, ``GPU-8f2c...``); None for ``all``,
    an empty or unknown value."""
    if not value.literal:
        return None
    items = [item.strip() for item in value.text.split(",")]
    if not items or not all(_DEVICE.fullmatch(item) for item in items):
        return None
    return len(set(items))


def plural(count: int, noun: str = "GPU") -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


# -- shared memory ----------------------------------------------------------------------------

MIB = 1 << 20
# Container tools whose containers get a private /dev/shm of the runtime's default size (64 MB
# for Docker, https://docs.docker.com/reference/cli/docker/container/run/#shm-size, and the
# Kubernetes runtimes), and the kinds whose launches run in such a container.
_PRIVATE_SHM_TOOLS = frozenset({"docker", "podman", "nerdctl", "kubectl"})
_PRIVATE_SHM_KINDS = frozenset({"compose", "kubernetes", "helm"})
# The first releases of each shared-memory layout of the multiprocessing executor:
# ``MessageQueue`` buffers are ``max_chunk_bytes x max_chunks`` (``vllm/distributed/
# device_communicators/shm_broadcast.py``).
_V1_EXECUTOR = Version("0.8.0")  # the V1 engine's MultiprocExecutor is the default
_CHUNK_VARIABLE = Version("0.9.1")  # VLLM_MQ_MAX_CHUNK_BYTES_MB, default 16, sizes the broadcast
_LARGER_DEFAULT_CHUNK = Version("0.11.1")  # MessageQueue's default chunk: 10 MiB -> 24 MiB
_CHUNKS = 10
CHECKED_AT_START = Version("0.27.0")  # check_shm_free_space: "Insufficient space in /dev/shm"


def multi_process(found: Layout, invocation: Invocation) -> bool:
    """Whether the launch runs several worker processes on its node that share memory: more
    than one worker per engine with the multiprocessing backend (the default on one node), or
    several data-parallel engines.  A launch on a Ray node (``ray start`` in its script, a
    KubeRay pod) may run its workers as Ray actors: not known."""
    cluster = invocation.deployment.cluster
    if cluster is not None and cluster.value == "ray":
        return False
    if found.world > 1 and found.backend not in NOT_LOCAL_PROCESSES:
        return True
    return (found.engines or 1) > 1


def private_shm(invocation: Invocation) -> bool:
    """Whether the launch runs in a container with its own ``/dev/shm``: a compose service,
    a Kubernetes or Helm container, ``docker``/``podman``/``nerdctl run``, ``kubectl run``
    (Apptainer and Singularity share the host's)."""
    tool = invocation.deployment.container
    if tool is not None:
        return tool.value in _PRIVATE_SHM_TOOLS
    return bool(_PRIVATE_SHM_KINDS.intersection(invocation.origin))


def shm_needed(version: Version, env: Mapping[str, Token]) -> int:
    """The largest shared-memory buffer the release's multiprocessing executor creates, in
    bytes: the broadcast queue to the workers (``VLLM_MQ_MAX_CHUNK_BYTES_MB`` MiB x 10 chunks
    from 0.9.1; the launch's own value when literal) and each worker's response queue
    (``MessageQueue``'s default chunk x 10: 10 MiB up to 0.11.0, 24 MiB after).  Before 0.8.0
    the V0 engine's broadcaster: 4 MiB x 6 chunks (``vllm/distributed/parallel_state.py``
    ``create_from_process_group(self.cpu_group, 1 << 22, 6)``)."""
    if version < _V1_EXECUTOR:
        return 4 * MIB * 6
    default_chunk = (24 if version >= _LARGER_DEFAULT_CHUNK else 10) * MIB
    broadcast = default_chunk
    if version >= _CHUNK_VARIABLE:
        broadcast = 16 * MIB
        written = env.get("VLLM_MQ_MAX_CHUNK_BYTES_MB")
        if written is not None:
            megabytes = int(written.text) if written.literal and written.text.isdigit() else None
            if megabytes is None or megabytes > 1 << 20:
                return 0  # not known: no size can be judged against it
            broadcast = megabytes * MIB
    return max(broadcast, default_chunk) * _CHUNKS


def mebibytes(size: int) -> str:
    """``64 MiB``; a size that is not whole MiB with one decimal."""
    return f"{size // MIB} MiB" if size % MIB == 0 else f"{size / MIB:.1f} MiB"


@dataclass(frozen=True)
class SharedMemory:
    """What the deployment states about a container's ``/dev/shm``: ``state`` is ``none``
    (nothing: the runtime's default), ``size`` (``size`` bytes, written at ``span``),
    ``enough`` (the host's IPC namespace, a mount at ``/dev/shm`` of no stated size) or
    ``unknown`` (a value vlint cannot read)."""

    state: str
    size: int = 0
    span: Span | None = None


def shared_memory(invocation: Invocation) -> SharedMemory:
    facts = invocation.deployment
    ipc = facts.ipc
    if ipc is not None:
        if ipc.value is None or ipc.value.startswith(("container:", "service:")):
            return SharedMemory("unknown")
        if ipc.value == "host":
            return SharedMemory("enough")
    size = facts.shm_size
    if size is not None:
        if size.value is None:
            return SharedMemory("unknown")
        return SharedMemory("size", size.value, size.span)
    for mount in facts.volumes:
        if mount.target.value is None:
            return SharedMemory("unknown")
        if mount.target.value.rstrip("/") == "/dev/shm":
            return SharedMemory("enough")
    return SharedMemory("none")
