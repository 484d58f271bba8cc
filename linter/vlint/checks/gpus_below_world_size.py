"""What it does
    Reports a launch that needs more GPUs than its container or process can see: ``tensor
    parallel x pipeline parallel x prefill context parallel`` workers per engine, times the
    data-parallel engines on the node, above the GPUs the deployment gives it.  The GPUs come
    from a Kubernetes or Helm container's ``nvidia.com/gpu``/``amd.com/gpu`` limit (else
    request), a compose service's device reservation (``count``, ``device_ids``) or ``gpus:``,
    ``docker run --gpus N|'"device=0,1"'``, a Slurm step's ``--gpus-per-node``/``--gres``/
    ``--gpus``, a SkyPilot task's ``accelerators: NAME:N``, and the device list of
    ``CUDA_VISIBLE_DEVICES``, ``HIP_VISIBLE_DEVICES``, ``ROCR_VISIBLE_DEVICES`` or
    ``NVIDIA_VISIBLE_DEVICES`` in the launch's environment; the fewest of them counts.  Inside
    a container of N GPUs, numbered 0 to N-1, CUDA shows only the listed devices before the
    first index that does not exist (``CUDA_VISIBLE_DEVICES=3,4`` with ``nvidia.com/gpu: 2``
    leaves none).  The finding points at that value, with the parallel sizes as related
    locations.

Why is this bad?
    The engine cannot start.  From 0.13.0 ``ParallelConfig.__post_init__``
    (``vllm/config/parallel.py``, 0.13.0 line 565, 0.33.0 line 1072) raises "World size (N) is
    larger than the number of available GPUs (M) in this node"; in 0.11.1 and 0.12.0 (0.11.1
    line 569) "Tensor parallel size (N) cannot be larger than the number of available GPUs
    (M)".  Up to 0.11.0 vLLM falls back to Ray instead (0.11.0 line 456), whose placement group
    waits for GPUs the node does not have and fails after ``PG_WAIT_TIMEOUT``, 30 minutes
    (``vllm/executor/ray_utils.py``, "Cannot provide a placement group").  A data-parallel
    engine takes the next ``world_size`` devices after the previous one
    (``vllm/v1/engine/utils.py`` ``get_device_indices``); with too few, its process fails
    ("Error computing device indices").

Example
    A Kubernetes container with ``nvidia.com/gpu: 1`` running ``vllm serve m
    --tensor-parallel-size 4``; ``CUDA_VISIBLE_DEVICES=0 vllm serve m -tp 2``.

Use instead
    Give the container as many GPUs as the launch uses (``nvidia.com/gpu: 4``), or lower the
    parallel sizes.  A launch across nodes says so: ``--nnodes`` with the multiprocessing
    backend, or ``--distributed-executor-backend ray`` on a Ray cluster.

Fix safety
    No fix: whether to add GPUs or shard less is the deployment's choice.

vLLM releases
    All; the message names the behaviour of each release checked: the two errors from 0.11.1,
    and up to 0.11.0 the Ray fallback, reported as a hint (info) since a Ray cluster the file
    does not show could supply the GPUs.  Silent when a size or a GPU count is not literal, when the
    GPUs are ``all``, when options vlint cannot see may be given (``$VLLM_ARGS``), and for a
    launch that may use other nodes: ``--nnodes`` above 1, ``--distributed-executor-backend
    ray`` (or ``external_launcher``), and, up to 0.11.0, when vLLM fell back to Ray by itself,
    ``RAY_ADDRESS`` set, a ``ray start`` in the same script, a KubeRay resource or a
    LeaderWorkerSet.  From 0.11.1 a launch in such a group that gives neither ``--nnodes`` nor
    the Ray backend is refused like any other.  A data-parallel layout placed by Ray
    (``--data-parallel-backend ray`` with no local size) counts one engine.

References
    https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html
    https://docs.vllm.ai/en/latest/deployment/k8s.html
"""

from __future__ import annotations

from collections.abc import Iterator

from packaging.version import Version

from vlint.checks.base import Context, Rule
from vlint.checks.parallel import (
    RAY_FALLBACK_REMOVED, layout, plural, spans_nodes, visible_gpus,
)
from vlint.model import Finding, Severity

RULE = Rule(code="VL601", name="gpus-below-world-size", severity="error", since="0.2.0")

_WORLD_SIZE_MESSAGE = Version("0.13.0")


def check(context: Context) -> Iterator[Finding]:
    resolution = context.resolution
    invocation = resolution.invocation
    visible = visible_gpus(invocation)
    if visible is None:
        return
    found = layout(context)
    if found is None or found.needed <= visible.count or spans_nodes(resolution, found):
        return
    version = resolution.release.version
    severity: Severity | None = None
    if visible.count == 0:
        consequence = f"vLLM {context.releases} finds no GPU to run on"
    elif found.world <= visible.count:
        consequence = (f"the data-parallel engines after the first {visible.count // found.world} "
                       "find no device")
    elif version < RAY_FALLBACK_REMOVED:
        # A Ray cluster the file does not show could still supply them: a hint.
        severity = "info"
        consequence = (f"vLLM {context.releases} falls back to Ray, which waits for GPUs "
                       "the node does not have unless a Ray cluster supplies them")
    elif version < _WORLD_SIZE_MESSAGE:
        consequence = (f"vLLM {context.releases} refuses: 'Tensor parallel size "
                       f"({found.world}) cannot be larger than the number of available GPUs "
                       f"({visible.count})'")
    else:
        consequence = (f"vLLM {context.releases} refuses: 'World size ({found.world}) is larger "
                       f"than the number of available GPUs ({visible.count}) in this node'")
    yield context.finding(
        RULE,
        visible.span,
        f"the launch needs {plural(found.needed)}{found.written}, {visible.source} "
        f"{visible.count}: {consequence}",
        "give the container as many GPUs as the parallel sizes use, or lower them; across "
        "nodes, set --nnodes (or --distributed-executor-backend ray on a Ray cluster)",
        severity=severity,
        related=found.related,
    )
