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

from vlint.checks.base import Rule
from vlint.checks.support import bound_check

RULE = Rule(code="VL304", name="batched-tokens-above-seqs-times-model-len", severity="warning",
            since="0.1.0", confirm="config", model_specific=True)

MESSAGE = ("max_num_batched_tokens ({left}) is above max_num_seqs * max_model_len ({right}); "
           "the surplus is never scheduled")
HELP = "check the three values; one of them is probably not what was meant"

check = bound_check(RULE, MESSAGE, HELP)
