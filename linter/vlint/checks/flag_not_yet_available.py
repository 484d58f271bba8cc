"""What it does
    Reports a flag that exists in a newer vLLM release than the one targeted.

Why is this bad?
    Commands copied from the "latest" documentation into an older image fail with
    ``unrecognized arguments``: the installed release does not have the flag yet.

Example
    ``--max-num-active-seqs 16`` on a release that predates it.

Use instead
    Upgrade to the release named in the message, or remove the flag and re-check the limit it
    was meant to enforce (``--max-num-seqs`` is not a drop-in replacement).

Fix safety
    No automatic fix.

vLLM releases
    Computed from the generated catalog: the first known release whose parser has the flag.
    ``vllm serve`` itself is reported the same way on a release that has no ``serve`` parser
    (the catalog's ``serve`` is null: ``vllm serve`` arrived in 0.5.2, before it only ``python
    -m vllm.entrypoints.openai.api_server`` existed); nothing else is checked for that launch.

References
    https://docs.vllm.ai/en/latest/cli/serve/
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.knowledge.catalog import option_lifetimes
from vlint.checks.base import Context, Rule
from vlint.checks.support import lifetime, release_version, unknown_uses
from vlint.model import Finding

RULE = Rule(code="VL102", name="flag-not-yet-available", severity="error", since="0.1.0",
            confirm="parse")


def check(context: Context) -> Iterator[Finding]:
    for use in unknown_uses(context):
        known = lifetime(context, use)
        if known is None:
            continue
        string, life = known
        if life.first <= release_version(context):
            continue
        yield context.finding(
            RULE,
            context.resolution.unknown_span(use),
            f"'{string}' is not available in vLLM {context.releases}; it was added in {life.first}",
            f"upgrade to vLLM {life.first} or later, or remove '{string}'",
        )


def missing_entry(context: Context) -> Iterator[Finding]:
    """``vllm serve`` launched on a release whose catalog has no serve parser."""
    resolution = context.resolution
    invocation = resolution.invocation
    if invocation.style != "cli" or invocation.entry != "serve":
        return
    if resolution.release.parser("serve") is not None:
        return
    firsts = [life.first for life in option_lifetimes("serve").values()]
    added = min(firsts) if firsts else None
    message = f"'vllm serve' does not exist in vLLM {context.releases}"
    if added is not None and added > release_version(context):
        message += f"; it was added in {added}"
    yield context.finding(
        RULE,
        invocation.anchor,
        message,
        "launch 'python -m vllm.entrypoints.openai.api_server --model MODEL ...' instead, or "
        f"upgrade to {added or 'a newer release'}",
    )
