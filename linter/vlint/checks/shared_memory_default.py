"""What it does
    Reports a launch whose workers are several processes on one node — ``tensor parallel x
    pipeline parallel x prefill context parallel`` above 1 with the multiprocessing backend
    (the default on one node), or several data-parallel engines — in a container whose
    ``/dev/shm`` nothing sizes: a compose service without ``ipc: host`` or ``shm_size``,
    ``docker run`` (``podman``, ``nerdctl``) without ``--ipc=host`` or ``--shm-size``, a
    Kubernetes or Helm pod without ``hostIPC: true`` or a volume mounted at ``/dev/shm`` (an
    ``emptyDir`` with ``medium: Memory``).  The finding points at the first parallel size above
    1, with the image as a related location.

Why is this bad?
    The workers exchange every step through shared memory: the multiprocessing executor's
    broadcast queue and each worker's response queue are ``/dev/shm`` segments of 160 to 240 MiB
    (``vllm/distributed/device_communicators/shm_broadcast.py``, ``MessageQueue``: chunk size x
    10 chunks; ``VLLM_MQ_MAX_CHUNK_BYTES_MB``), and NCCL keeps its intra-node buffers there
    too.  A container's ``/dev/shm`` is 64 MB by default (Docker, and the Kubernetes container
    runtimes).  From 0.27.0 vLLM refuses at start-up ("Insufficient space in /dev/shm");
    earlier releases fail later, with NCCL errors or a bus error (SIGBUS) when a segment
    fills.  vLLM's Docker and Kubernetes guides ask for ``--ipc=host`` or ``--shm-size`` and a
    memory ``emptyDir`` at ``/dev/shm``.

Example
    ``docker run --gpus all vllm/vllm-openai:v0.33.0 m --tensor-parallel-size 2``

Use instead
    ``docker run --gpus all --ipc=host vllm/vllm-openai:v0.33.0 m --tensor-parallel-size 2``
    (compose ``ipc: host`` or ``shm_size: 16gb``; Kubernetes an ``emptyDir: {medium: Memory,
    sizeLimit: 16Gi}`` volume mounted at ``/dev/shm``).

Fix safety
    No fix: the host's IPC namespace and the memory given to ``/dev/shm`` are the deployment's
    choice.

vLLM releases
    All; the message says which releases check it at start-up (0.27.0 and later,
    ``check_shm_free_space``).  Silent when the parallel sizes are not known, for the Ray
    backend (Ray's object store falls back to ``/tmp``) or a launch on a Ray node (a ``ray
    start`` in its script, a KubeRay pod), and where the container's IPC or
    ``/dev/shm`` is written in a form vlint cannot read.  A Dockerfile alone says nothing of
    the container it will run in, and Apptainer shares the host's ``/dev/shm``: neither is
    reported.  An explicit size too small is VL604.

References
    https://docs.vllm.ai/en/latest/deployment/docker.html
    https://docs.vllm.ai/en/latest/deployment/k8s.html
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.checks.parallel import (
    CHECKED_AT_START, layout, multi_process, private_shm, shared_memory,
)
from vlint.model import Finding
from vlint.model.finding import Related

RULE = Rule(code="VL603", name="shared-memory-default", severity="warning", since="0.2.0")


def check(context: Context) -> Iterator[Finding]:
    resolution = context.resolution
    invocation = resolution.invocation
    if not private_shm(invocation) or shared_memory(invocation).state != "none":
        return
    found = layout(context)
    if found is None or not multi_process(found, invocation) or not found.factors:
        return
    label, value, span = found.factors[0]
    when = ("refuses to start ('Insufficient space in /dev/shm')"
            if resolution.release.version >= CHECKED_AT_START
            else "fails with NCCL errors or a bus error when a segment fills")
    related = found.related[1:]
    if invocation.image_span is not None:
        related = (*related, Related(invocation.image_span, "the container"))
    yield context.finding(
        RULE,
        span,
        f"{label} size {value} runs several worker processes, and nothing sizes the "
        f"container's /dev/shm (64 MB by default): vLLM {context.releases} {when}",
        "share the host's IPC namespace (--ipc=host, compose ipc: host) or size /dev/shm "
        "(--shm-size, compose shm_size, a memory emptyDir at /dev/shm)",
        related=related,
    )
