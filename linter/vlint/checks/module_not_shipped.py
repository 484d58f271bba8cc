"""What it does
    Reports ``python -m vllm.entrypoints.api_server`` (vLLM's demo server, not the
    OpenAI-compatible one) on a release whose package no longer has that module.

Why is this bad?
    The interpreter stops with ``No module named vllm.entrypoints.api_server`` before any
    argument is read: the server never starts.  Guides written for early releases launch the
    demo server; vLLM removed it, and its OpenAI-compatible server is
    ``vllm.entrypoints.openai.api_server`` (or ``vllm serve``).

Example
    ``python -m vllm.entrypoints.api_server --model facebook/opt-125m --port 8000``

Use instead
    ``vllm serve facebook/opt-125m --port 8000`` (its endpoints are the OpenAI API's, not the
    demo server's ``/generate``), or pin a release that still ships the module.

Fix safety
    No automatic fix: the two servers answer different requests.

vLLM releases
    Generated from each release's sources: the catalog records whether the release's package
    has the module (and, where it has, the demo server's own parser, which the launch is checked
    against).  Nothing else is checked for a launch of a release that lacks the module, nor
    for one whose module raises before reading any argument (the generator records no parser
    for it: 0.7.x passes ``ge=``/``le=`` to argparse for ``--port``, a ``TypeError``).

References
    https://github.com/vllm-project/vllm/blob/v0.9.2/vllm/entrypoints/api_server.py
"""

from __future__ import annotations

from collections.abc import Iterator

from packaging.version import Version

from vlint.checks.base import Context, Rule
from vlint.checks.support import release_version
from vlint.knowledge.catalog import has_entry, known_releases
from vlint.knowledge.images import DEMO_SERVER_MODULE
from vlint.model import Finding

RULE = Rule(code="VL408", name="module-not-shipped", severity="error", since="0.2.0")


def check(context: Context) -> Iterator[Finding]:
    resolution = context.resolution
    invocation = resolution.invocation
    if invocation.style != "cli" or invocation.entry != "demo_server":
        return
    if resolution.release.ships_module(DEMO_SERVER_MODULE) is not False:
        return  # shipped, or a catalog that does not say
    target = release_version(context)
    last = _last_release_with_it(target)
    help = "launch 'vllm serve MODEL' (the OpenAI-compatible server) instead"
    if last is not None:
        help += f", or pin vLLM {last}, the last release that ships it"
    yield context.finding(
        RULE,
        invocation.anchor,
        f"vLLM {context.releases} does not ship the module '{DEMO_SERVER_MODULE}'",
        help,
    )


def _last_release_with_it(before: Version) -> Version | None:
    shipped = [v for v in known_releases() if v < before and has_entry(v, "demo_server")]
    return max(shipped, default=None)
