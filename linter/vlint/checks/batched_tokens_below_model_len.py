"""What it does
    Reports ``max_num_batched_tokens`` below ``max_model_len`` when chunked prefill is turned
    off.

Why is this bad?
    Without chunked prefill a whole prompt must fit in one scheduler iteration, so the token
    budget has to cover the longest request.  vLLM refuses to start otherwise.

Example
    ``--no-enable-chunked-prefill --max-model-len 8192 --max-num-batched-tokens 4096``

Use instead
    ``--no-enable-chunked-prefill --max-model-len 8192 --max-num-batched-tokens 8192``, or keep
    chunked prefill on and a small budget.

Fix safety
    No automatic fix: raising the budget costs memory, lowering the context length changes
    what requests are accepted.

vLLM releases
    The releases listed for VL301 in ``vlint_rules/curated/bounds.toml``, each verified against
    real vLLM's engine configuration.  The rule fires only when both values and the chunked
    prefill setting are written or certain for the release; defaults that depend on the GPU or
    the model (``max_model_len`` from the model's config) are never guessed.

References
    https://docs.vllm.ai/en/latest/configuration/optimization/ (chunked prefill)
"""

from __future__ import annotations

from vlint.checks.base import Rule
from vlint.checks.support import bound_check

RULE = Rule(code="VL301", name="batched-tokens-below-model-len", severity="error", since="0.1.0",
            confirm="config", model_specific=True)

MESSAGE = ("max_num_batched_tokens ({left}) is below max_model_len ({right}) with chunked prefill "
           "off; vLLM {releases} refuses to start")
HELP = "raise max_num_batched_tokens to at least {right}, or keep chunked prefill on"

check = bound_check(RULE, MESSAGE, HELP)
