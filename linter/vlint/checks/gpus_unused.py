"""What it does
    Reports a container given more GPUs than its vLLM launch uses: a literal GPU count (a
    Kubernetes or Helm ``nvidia.com/gpu``/``amd.com/gpu`` limit or request, a compose device
    reservation or ``gpus:``, ``docker run --gpus N``, a Slurm step's GPUs per node, a SkyPilot
    ``accelerators: NAME:N``) above ``tensor parallel x pipeline parallel x prefill context
    parallel x local data parallel``.

Why is this bad?
    vLLM uses exactly ``world_size`` devices per engine (``vllm/config/parallel.py``
    ``ParallelConfig.world_size``; ``vllm/v1/engine/utils.py`` ``get_device_indices`` gives each
    data-parallel engine the next ``world_size``): the others stay reserved, idle, and
    unavailable to any other workload on the node.  Usually a parallel size was meant to be
    raised (``nvidia.com/gpu: 4`` with no ``--tensor-parallel-size``).

Example
    A Kubernetes container with ``nvidia.com/gpu: 4`` running ``vllm serve m``.

Use instead
    ``vllm serve m --tensor-parallel-size 4``, or ``nvidia.com/gpu: 1``.

Fix safety
    No fix: which side is wrong is the deployment's choice.

vLLM releases
    All.  A hint (info), silent when a size or the count is not literal, for ``all`` GPUs, when
    options vlint cannot see may be given, when the launch's environment narrows its devices
    (``CUDA_VISIBLE_DEVICES``: another process may use the rest), for a launch that may use
    other nodes or a Ray cluster, and for a data-parallel layout placed by Ray.

References
    https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.checks.parallel import DEVICE_VARIABLES, layout, plural, spans_nodes
from vlint.model import Finding

RULE = Rule(code="VL602", name="gpus-unused", severity="info", since="0.2.0")


def check(context: Context) -> Iterator[Finding]:
    resolution = context.resolution
    invocation = resolution.invocation
    gpus = invocation.deployment.gpus
    if gpus is None or not isinstance(gpus.value, int) or invocation.style != "cli":
        return
    if any(name in invocation.env for name in DEVICE_VARIABLES) or invocation.env_unknown:
        return
    found = layout(context)
    if found is None or found.engines is None or found.needed >= gpus.value:
        return
    if spans_nodes(resolution, found):
        return
    yield context.finding(
        RULE,
        gpus.span,
        f"{plural(gpus.value)} reserved, the launch uses {found.needed}{found.written}: "
        f"{plural(gpus.value - found.needed)} {'stays' if gpus.value - found.needed == 1 else 'stay'} "
        "idle",
        "raise --tensor-parallel-size (or the data-parallel size) to use them, or reserve fewer",
        related=found.related,
    )
