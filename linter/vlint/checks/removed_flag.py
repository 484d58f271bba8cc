"""What it does
    Reports a flag that older vLLM releases had and the targeted release no longer accepts.

Why is this bad?
    The server refuses to start with ``unrecognized arguments``.  Flags are removed after a
    deprecation period; scripts written for an older release keep them for years.

Example
    A flag that the targeted release's parser no longer registers.

Use instead
    Remove the flag, or replace it with the option the release notes name.

Fix safety
    No automatic fix unless a one-to-one replacement is curated for the release.

vLLM releases
    Computed from the generated catalog: the last known release whose parser had the flag.

References
    https://docs.vllm.ai/en/latest/cli/serve/
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.catalog import known_releases
from vlint.checks.base import Context, Rule
from vlint.checks.support import lifetime, release_version, unknown_uses
from vlint.model import Finding

RULE = Rule(code="VL103", name="removed-flag", severity="error", since="0.1.0")


def check(context: Context) -> Iterator[Finding]:
    target = release_version(context)
    for use in unknown_uses(context):
        known = lifetime(context, use)
        if known is None:
            continue
        string, life = known
        if life.last >= target:
            continue
        removed_in = next(v for v in known_releases() if v > life.last)
        yield context.finding(
            RULE,
            use.name_span,
            f"'{string}' was removed in vLLM {removed_in} (last in {life.last})",
            f"remove '{string}'; vLLM {context.release} does not accept it",
        )
