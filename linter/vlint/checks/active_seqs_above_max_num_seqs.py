"""What it does
    Reports ``max_num_active_seqs`` above ``max_num_seqs``.

Why is this bad?
    ``max_num_active_seqs`` caps the RUNNING requests while the model runner keeps the capacity
    of ``max_num_seqs``; it must not exceed it.  vLLM refuses the configuration.

Example
    ``--max-num-seqs 16 --max-num-active-seqs 64``

Use instead
    ``--max-num-seqs 64 --max-num-active-seqs 16``

Fix safety
    No automatic fix.

vLLM releases
    Releases that have ``max_num_active_seqs`` and enforce the bound, as listed for VL303 in
    ``vlint_rules/curated/bounds.toml`` and verified against real vLLM.  In older releases the
    flag itself is reported by VL102.

References
    https://docs.vllm.ai/en/latest/cli/serve/
"""

from __future__ import annotations

from vlint.checks.base import Rule
from vlint.checks.support import bound_check

RULE = Rule(code="VL303", name="active-seqs-above-max-num-seqs", severity="error", since="0.1.0",
            confirm="config")

MESSAGE = "max_num_active_seqs ({left}) is above max_num_seqs ({right}); vLLM {releases} rejects it"
HELP = "lower max_num_active_seqs to at most {right}, or raise max_num_seqs"

check = bound_check(RULE, MESSAGE, HELP)
