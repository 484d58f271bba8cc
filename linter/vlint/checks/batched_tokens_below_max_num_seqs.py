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

from vlint.checks.base import Rule
from vlint.checks.support import bound_check

RULE = Rule(code="VL302", name="batched-tokens-below-max-num-seqs", severity="error",
            since="0.1.0", confirm="config")

MESSAGE = ("max_num_batched_tokens ({left}) is below max_num_seqs ({right}); vLLM {releases} "
           "refuses to start")
HELP = "raise max_num_batched_tokens to at least {right}, or lower max_num_seqs"

check = bound_check(RULE, MESSAGE, HELP)
