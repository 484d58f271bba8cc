"""What it does
    Reports a keyword argument of ``LLM(...)``, ``EngineArgs(...)`` or ``AsyncEngineArgs(...)``
    that the targeted release does not accept.

Why is this bad?
    ``EngineArgs`` is a dataclass: an unknown keyword raises ``TypeError`` before the engine is
    built.  Keywords copied from the CLI with dashes turned into underscores, or from the
    "latest" documentation, are the usual cause.

Example
    ``LLM(model="m", max_num_seq=8)``

Use instead
    ``LLM(model="m", max_num_seqs=8)``

Fix safety
    Unsafe: where the callee has a close keyword (the help line's "did you mean"),
    ``--unsafe-fixes`` renames the keyword to it; vlint cannot know that it is the one meant.

vLLM releases
    All; the accepted keywords are the ``EngineArgs`` fields and ``LLM.__init__`` parameters of
    each release (generated catalog).

References
    https://docs.vllm.ai/en/latest/api/vllm/engine/arg_utils.html
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.knowledge.catalog import known_releases, load
from vlint.checks.base import Context, Rule, did_you_mean
from vlint.model import Edit, Finding, Fix

RULE = Rule(code="VL106", name="unknown-engine-kwarg", severity="error", since="0.1.0",
            fix="unsafe", confirm="parse")


def _history(callee: str, name: str) -> str:
    having = [v for v in known_releases() if name in load(v).engine_fields(callee)]
    if not having:
        return ""
    return f" (known in vLLM {having[0]} to {having[-1]})"


def check(context: Context) -> Iterator[Finding]:
    invocation = context.resolution.invocation
    callee = invocation.callee or "LLM"
    fields = context.resolution.release.engine_fields(callee)
    for keyword, known in context.resolution.keywords:
        if known is not None:
            continue
        name = keyword.name.text
        suggestion = did_you_mean(name, fields)
        yield context.finding(
            RULE,
            keyword.name.span,
            f"unknown keyword '{name}' for {callee} in vLLM {context.releases}"
            + _history(callee, name),
            f"did you mean '{suggestion}'?" if suggestion else f"remove '{name}'",
            fix=Fix(f"rename to '{suggestion}'", (Edit(keyword.name.span, suggestion),),
                    safe=False) if suggestion else None,
        )
