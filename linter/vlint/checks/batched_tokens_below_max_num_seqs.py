"""What it does
    Reports ``max_num_batched_tokens`` below ``max_num_seqs``.

Why is this bad?
    Every scheduled sequence needs at least one token of the iteration's budget, so a budget
    smaller than the number of sequences can never be filled as configured.  vLLM refuses to
    start.

Example
    ``--max-num-seqs 512 --max-num-batched-tokens 256``

Use instead
    ``--max-num-seqs 256 --max-num-batched-tokens 2048``

Fix safety
    No automatic fix.

vLLM releases
    The releases listed for VL302 in ``vlint_rules/curated/bounds.toml``, each verified against
    real vLLM.  Fires only on written or certain values; GPU-dependent defaults are never
    guessed.

References
    https://docs.vllm.ai/en/latest/configuration/optimization/
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.checks.support import bound_findings
from vlint.model import Finding

RULE = Rule(code="VL302", name="batched-tokens-below-max-num-seqs", severity="error",
            since="0.1.0")


def check(context: Context) -> Iterator[Finding]:
    return bound_findings(
        context,
        RULE,
        lambda v: (
            f"max_num_batched_tokens ({v.left}) is below max_num_seqs ({v.right}); "
            f"vLLM {context.release} refuses to start"
        ),
        lambda v: f"raise max_num_batched_tokens to at least {v.right}, or lower max_num_seqs",
    )
