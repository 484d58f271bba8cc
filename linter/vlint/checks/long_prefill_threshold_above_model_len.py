"""What it does
    Reports ``long_prefill_token_threshold`` above ``max_model_len``.

Why is this bad?
    The threshold marks a prompt as "long" for the scheduler's partial-prefill accounting; no
    request can be longer than ``max_model_len``, so vLLM rejects a threshold above it and
    refuses to start.  It is often a value in the wrong unit (``16K`` where ``1.6k`` was meant)
    or one left behind after lowering ``--max-model-len``.

Example
    ``--max-model-len 8192 --long-prefill-token-threshold 16384``

Use instead
    ``--max-model-len 8192 --long-prefill-token-threshold 2048``

Fix safety
    No automatic fix: which of the two values is wrong is not known.

vLLM releases
    The releases listed for VL305 in ``vlint_rules/curated/bounds.toml``: unconditional from
    0.27.0; in 0.7.3-0.11.0 vLLM checked it only with ``--max-num-partial-prefills`` above 1
    (0.11.1-0.26.0 reject partial prefills before reaching the check).
    The 0.31.0-0.33.0 entry is verified against real vLLM.  Fires only on written values; the
    default 0 means "no threshold" and is never compared.

References
    https://docs.vllm.ai/en/latest/configuration/engine_args/ (SchedulerConfig)
"""

from __future__ import annotations

from vlint.checks.base import Rule
from vlint.checks.support import bound_check

RULE = Rule(code="VL305", name="long-prefill-threshold-above-model-len", severity="error",
            since="0.2.0", confirm="config")

MESSAGE = ("long_prefill_token_threshold ({left}) is above max_model_len ({right}); "
           "vLLM {releases} refuses to start")
HELP = "lower long_prefill_token_threshold to at most {right}, or 0 for none"

check = bound_check(RULE, MESSAGE, HELP)
