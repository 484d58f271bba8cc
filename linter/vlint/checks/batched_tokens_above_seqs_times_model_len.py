"""What it does
    Reports ``max_num_batched_tokens`` above ``max_num_seqs * max_model_len``.

Why is this bad?
    No iteration can ever schedule more tokens than all sequences at full length together, so
    the surplus budget is never used.  It usually means one of the three values is not what
    was meant (a ``K`` where ``k`` was meant, a missing zero).  vLLM starts and logs a warning.

Example
    ``--max-num-seqs 2 --max-model-len 1024 --max-num-batched-tokens 8192``

Use instead
    ``--max-num-seqs 2 --max-model-len 1024 --max-num-batched-tokens 2048``

Fix safety
    No automatic fix.

vLLM releases
    The releases listed for VL304 in ``vlint_rules/curated/bounds.toml``, verified against real
    vLLM.  Fires only on written or certain values.

References
    https://docs.vllm.ai/en/latest/configuration/optimization/
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.checks.support import bound_findings
from vlint.model import Finding

RULE = Rule(code="VL304", name="batched-tokens-above-seqs-times-model-len", severity="warning",
            since="0.1.0")


def check(context: Context) -> Iterator[Finding]:
    return bound_findings(
        context,
        RULE,
        lambda v: (
            f"max_num_batched_tokens ({v.left}) is above max_num_seqs * max_model_len "
            f"({v.right}); the surplus is never scheduled"
        ),
        lambda v: "check the three values; one of them is probably not what was meant",
    )
