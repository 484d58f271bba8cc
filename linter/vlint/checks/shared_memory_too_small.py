"""What it does
    Reports a ``/dev/shm`` size written for a container — compose ``shm_size``, ``docker run
    --shm-size``, the ``sizeLimit`` of a Kubernetes memory ``emptyDir`` mounted at
    ``/dev/shm`` — below the largest shared-memory segment the release's multiprocessing
    executor creates, for a launch whose workers are several processes (``tensor parallel x
    pipeline parallel x prefill context parallel`` above 1 with the multiprocessing backend,
    or several data-parallel engines).

Why is this bad?
    The executor's ``MessageQueue`` segments are ``chunk size x 10 chunks``
    (``vllm/distributed/device_communicators/shm_broadcast.py``): the broadcast queue to the
    workers uses ``VLLM_MQ_MAX_CHUNK_BYTES_MB`` (16 by default, from 0.9.1;
    ``vllm/v1/executor/multiproc_executor.py``), and each worker's response queue
    ``MessageQueue``'s default chunk, 10 MiB up to 0.11.0 and 24 MiB from 0.11.1.  The largest
    is 100 MiB in 0.8.0-0.9.0, 160 MiB in 0.9.1-0.11.0 and 240 MiB from 0.11.1 (before 0.8.0,
    the V0 engine's broadcaster: 4 MiB x 6, ``vllm/distributed/parallel_state.py``).  From
    0.27.0 ``check_shm_free_space`` refuses at start-up ("Insufficient space in /dev/shm for
    ..."); earlier releases crash with a bus error (SIGBUS) once a segment fills.

Example
    A compose service with ``shm_size: 64m`` running ``--tensor-parallel-size 2``.

Use instead
    ``shm_size: 16gb`` (or ``ipc: host``).

Fix safety
    No fix: how much memory to give ``/dev/shm`` is the deployment's choice.

vLLM releases
    All, with each release's segment size as above; a literal ``VLLM_MQ_MAX_CHUNK_BYTES_MB``
    in the launch's environment is used in its place (one that is not literal silences the
    rule).  The threshold is the one segment vLLM checks; NCCL needs more, so a size just
    above it can still fail.

References
    https://docs.vllm.ai/en/latest/deployment/docker.html
    https://docs.vllm.ai/en/latest/deployment/k8s.html
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.checks.parallel import (
    CHECKED_AT_START, layout, mebibytes, multi_process, shared_memory, shm_needed,
)
from vlint.model import Finding

RULE = Rule(code="VL604", name="shared-memory-too-small", severity="error", since="0.2.0")


def check(context: Context) -> Iterator[Finding]:
    resolution = context.resolution
    invocation = resolution.invocation
    shm = shared_memory(invocation)
    if shm.state != "size" or shm.span is None:
        return
    found = layout(context)
    if found is None or not multi_process(found, invocation):
        return
    version = resolution.release.version
    needed = shm_needed(version, invocation.env)
    if shm.size >= needed:
        return
    when = ("refuses to start ('Insufficient space in /dev/shm')"
            if version >= CHECKED_AT_START else "crashes with a bus error when it fills")
    yield context.finding(
        RULE,
        shm.span,
        f"/dev/shm is {mebibytes(shm.size)}, below the {mebibytes(needed)} shared-memory "
        f"segment vLLM {context.releases} creates for {found.formula}: it {when}",
        "give /dev/shm several GiB (shm_size: 16gb, --shm-size=16g) or share the host's IPC "
        "namespace (ipc: host, --ipc=host)",
        related=found.related,
    )
