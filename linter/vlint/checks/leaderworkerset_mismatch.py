"""What it does
    Reports a LeaderWorkerSet whose leader and worker templates start vLLM with different
    settings for what every node of a multi-node launch must share — the model, the tensor
    and pipeline parallel sizes, ``--nnodes`` — and a ``--nnodes`` that is not the group's
    ``leaderWorkerTemplate.size``, and a group whose pods together have fewer GPUs (``size x``
    each pod's ``nvidia.com/gpu``) than the launch's tensor x pipeline parallel workers.  The
    finding points at the worker's value (``--nnodes``, the pod's GPUs), with the leader's value
    (the size, the parallel sizes) as related locations.

Why is this bad?
    A multi-node launch is one engine whose workers are spread over the group's pods: each node
    runs the same command but for its rank (``--node-rank``, ``--headless`` on the workers,
    vLLM's multi-node serving docs), and builds the same process group from the same sizes
    (``ParallelConfig.world_size``, ``vllm/config/parallel.py``).  Nodes that disagree on the
    sizes or the model never form that group: the rendezvous waits for ranks that do not come,
    or the weights loaded do not fit the layout.  ``--nnodes`` is how many pods the launch waits
    for; a LeaderWorkerSet starts exactly ``size`` pods per group (the leader and ``size - 1``
    workers, https://lws.sigs.k8s.io/docs/overview/), so any other number waits forever or leaves
    pods out; and the group's pods hold all the GPUs its workers can use (vLLM's LWS guide:
    ``size x`` GPUs per pod must cover the tensor x pipeline parallel size).

Example
    ``size: 2`` with ``--nnodes 4``; a leader with ``--tensor-parallel-size 8`` and a worker
    with ``--tensor-parallel-size 4``.

Use instead
    The same arguments in both templates but for the rank, and ``--nnodes $(LWS_GROUP_SIZE)``
    (the LWS controller's variable, always the group's size).

Fix safety
    No fix: which side is right is the deployment's choice.

vLLM releases
    All that start vLLM on several nodes from one command (``--nnodes``: 0.11.1 and later; the
    sizes and the model: all).  Only literal values are compared (``$(LWS_GROUP_SIZE)`` is the
    size by construction); a template with no vLLM command (a worker that only runs ``ray
    start``) is not compared.

References
    https://docs.vllm.ai/en/latest/deployment/frameworks/lws.html
    https://lws.sigs.k8s.io/docs/overview/
"""

from __future__ import annotations

from collections.abc import Sequence

from packaging.version import Version

from vlint.checks.base import RELEASES, Context, Rule, rule_finding
from vlint.checks.parallel import layout, plural
from vlint.checks.unseen_options import may_set_unseen_options
from vlint.knowledge import catalog
from vlint.model import Finding, Invocation, Span
from vlint.model.finding import Related
from vlint.normalise.resolution import Resolution, resolve

RULE = Rule(code="VL614", name="leaderworkerset-mismatch", severity="error", since="0.2.0",
            scope="file")

_SHARED = (("model", "model"), ("tensor_parallel_size", "tensor parallel size"),
           ("pipeline_parallel_size", "pipeline parallel size"), ("nnodes", "--nnodes"))


def mismatched(path: str,
               launches: Sequence[tuple[Invocation, Sequence[Version]]]) -> list[Finding]:
    """The findings of one file's LeaderWorkerSets, one per release (the engine merges them)."""
    groups: dict[Span, list[tuple[Invocation, Sequence[Version]]]] = {}
    for invocation, releases in launches:
        cluster = invocation.deployment.cluster
        if cluster is not None and cluster.value == "leaderworkerset":
            groups.setdefault(cluster.span, []).append((invocation, releases))
    found: list[Finding] = []
    for members in groups.values():
        for version in sorted({v for _, releases in members for v in releases}):
            resolved = [resolve(invocation, catalog.load(version))
                        for invocation, releases in members if version in releases]
            known = [r for r in resolved if r.parser is not None
                     and not may_set_unseen_options(r)]
            found.extend(_sizes(path, version, known))
            found.extend(_roles(path, version, known))
    return found


def _value(resolution: Resolution, dest: str) -> tuple[object, Span | None] | None:
    setting = resolution.settings.get(dest)
    if setting is None or not setting.certain or setting.value is None:
        return None
    return setting.value, setting.span


def _sizes(path: str, version: Version, resolved: Sequence[Resolution]) -> list[Finding]:
    """``--nnodes`` against the group's size, and the group's GPUs against the world size."""
    found: list[Finding] = []
    for resolution in resolved:
        found.extend(_group_gpus(path, version, resolution))
        nodes = resolution.invocation.deployment.nodes
        written = resolution.written("nnodes")
        if nodes is None or not isinstance(nodes.value, int) or written is None or \
                written.span is None or not written.certain or written.value == nodes.value:
            continue
        found.append(rule_finding(
            RULE, path, written.span,
            f"--nnodes {written.value} waits for {written.value} nodes, and the LeaderWorkerSet "
            f"starts {nodes.value} pods per group: vLLM {RELEASES} never forms the group",
            "set --nnodes $(LWS_GROUP_SIZE), the group's size",
            vllm_versions=(str(version),),
            related=(Related(nodes.span, f"the group's size is {nodes.value} here"),),
        ))
    return found


def _group_gpus(path: str, version: Version, resolution: Resolution) -> list[Finding]:
    """A group of ``size`` pods with ``gpus`` each for more workers than that."""
    facts = resolution.invocation.deployment
    nodes, gpus = facts.nodes, facts.gpus
    if nodes is None or not isinstance(nodes.value, int) or gpus is None or \
            not isinstance(gpus.value, int):
        return []
    found = layout(Context(resolution))
    if found is None or nodes.value * gpus.value >= found.world:
        return []
    return [rule_finding(
        RULE, path, gpus.span,
        f"the group has {nodes.value} pods x {plural(gpus.value)} = "
        f"{plural(nodes.value * gpus.value)}, and the launch needs {found.world} "
        f"({found.formula}): vLLM {RELEASES} cannot place its workers",
        "give each pod more GPUs, raise leaderWorkerTemplate.size, or lower the parallel sizes",
        vllm_versions=(str(version),),
        related=(Related(nodes.span, f"the group's size is {nodes.value} here"),
                 *found.related),
    )]


def _roles(path: str, version: Version, resolved: Sequence[Resolution]) -> list[Finding]:
    """Each worker's shared settings against the leader's."""
    leaders = [r for r in resolved if r.invocation.deployment.role == "leader"]
    workers = [r for r in resolved if r.invocation.deployment.role == "worker"]
    if len(leaders) != 1:
        return []
    leader = leaders[0]
    found: list[Finding] = []
    for worker in workers:
        for dest, label in _SHARED:
            theirs, mine = _value(leader, dest), _value(worker, dest)
            if theirs is None or mine is None or theirs[0] == mine[0]:
                continue
            span = mine[1] or worker.invocation.anchor
            related = () if theirs[1] is None else (
                Related(theirs[1], f"the leader's {label} is {theirs[0]} here"),)
            found.append(rule_finding(
                RULE, path, span,
                f"the worker's {label} is {mine[0]} and the leader's {theirs[0]}: the nodes of "
                f"one vLLM {RELEASES} launch must agree, or they never form one group",
                f"give the worker the leader's {label}",
                vllm_versions=(str(version),),
                related=related,
            ))
    return found
