"""What it does
    Reports services of one compose file that are given the same GPU (the same literal
    ``device_ids`` entry) and whose ``--gpu-memory-utilization`` — written, or the release's
    default from the catalog (0.9, and 0.92 from 0.20.0) — adds up to more than 1.  The finding
    points at the shared device of every service after the first, with the other services'
    devices and utilizations as related locations.

Why is this bad?
    ``--gpu-memory-utilization`` is the fraction of the whole GPU one engine takes for weights,
    activations and its KV cache.  From 0.9.1 an engine checks at start-up that this much is
    free and refuses otherwise: "Free memory on device ... on startup is less than desired GPU
    memory utilization" (``vllm/v1/worker/gpu_worker.py``, later ``vllm/v1/worker/utils.py``);
    before, the second engine profiled what the first left and failed to allocate its cache or
    ran out of memory.  Whichever service starts second never serves.

Example
    Two services with ``device_ids: ["0"]`` and no ``--gpu-memory-utilization`` (0.92 + 0.92).

Use instead
    Give each service its own GPU, or split one: ``--gpu-memory-utilization 0.45`` each.

Fix safety
    No fix: how to share the GPU is the deployment's choice.

vLLM releases
    All, with each release's default.  Only services that provably share a device are judged:
    a ``count:`` reservation lets the runtime pick any free GPU, and launches of a shell script
    or a Kubernetes manifest may run at different times or on different nodes.  Silent when a
    utilization is not literal or options vlint cannot see may set it.

References
    https://docs.vllm.ai/en/latest/configuration/conserving_memory.html
    https://docs.docker.com/compose/how-tos/gpu-support/
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from packaging.version import Version

from vlint.checks.base import RELEASES, Rule, rule_finding
from vlint.checks.unseen_options import may_set_unseen_options
from vlint.knowledge import catalog
from vlint.model import Finding, Invocation, Span
from vlint.model.finding import Related
from vlint.normalise.resolution import resolve

RULE = Rule(code="VL613", name="gpu-memory-oversubscribed", severity="error", since="0.2.0",
            scope="file")

_START_UP_CHECK = Version("0.9.1")
_KINDS = frozenset({"compose"})


@dataclass(frozen=True)
class _Share:
    """One launch's claim on its devices at one release."""

    devices: tuple[str, ...]
    device_span: Span
    utilization: float
    written: Span | None


def shared(path: str, launches: Sequence[tuple[Invocation, Sequence[Version]]]) -> list[Finding]:
    """The findings of one file's launches, one per release (the engine merges them)."""
    placed = [(invocation, releases) for invocation, releases in launches
              if invocation.kind in _KINDS and invocation.deployment.devices is not None]
    if len(placed) < 2:
        return []
    found: list[Finding] = []
    for version in sorted({v for _, releases in placed for v in releases}):
        shares = [share for invocation, releases in placed if version in releases
                  if (share := _share(invocation, version)) is not None]
        found.extend(_oversubscribed(path, version, shares))
    return found


def _share(invocation: Invocation, version: Version) -> _Share | None:
    devices = invocation.deployment.devices
    if devices is None or not devices.value:
        return None
    resolution = resolve(invocation, catalog.load(version))
    if resolution.parser is None or may_set_unseen_options(resolution):
        return None
    setting = resolution.settings.get("gpu_memory_utilization")
    if setting is None or not setting.certain or isinstance(setting.value, bool) or \
            not isinstance(setting.value, (int, float)):
        return None
    return _Share(devices.value, devices.span, float(setting.value), setting.span)


def _oversubscribed(path: str, version: Version, shares: Sequence[_Share]) -> list[Finding]:
    found: list[Finding] = []
    for index, share in enumerate(shares):
        for device in share.devices:
            before = [other for other in shares[:index] if device in other.devices]
            if not before:
                continue
            total = share.utilization + sum(other.utilization for other in before)
            if total <= 1:
                continue
            found.append(_finding(path, version, device, share, before, total))
            break
    return found


def _finding(path: str, version: Version, device: str, share: _Share,
             before: Sequence[_Share], total: float) -> Finding:
    fractions = " + ".join(f"{other.utilization:g}" for other in (*before, share))
    if version >= _START_UP_CHECK:
        consequence = ("refuses to start: 'Free memory on device ... on startup is less than "
                       "desired GPU memory utilization'")
    else:
        consequence = "cannot allocate its KV cache in what the first one left"
    related = [Related(other.device_span, f"GPU {device} is given here too") for other in before]
    related += [Related(s.written, f"gpu_memory_utilization {s.utilization:g} is set here")
                for s in (*before, share) if s.written is not None]
    return rule_finding(
        RULE, path, share.device_span,
        f"GPU {device} is shared with another service and their gpu_memory_utilization add up "
        f"to {total:g} ({fractions}): the engine that starts second, on vLLM {RELEASES}, "
        f"{consequence}",
        "give each service its own GPU, or lower --gpu-memory-utilization so the sum is at most 1",
        vllm_versions=(str(version),),
        related=tuple(related),
    )
