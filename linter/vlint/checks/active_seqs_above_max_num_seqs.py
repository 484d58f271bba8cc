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

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.checks.support import bound_findings
from vlint.model import Finding

RULE = Rule(code="VL303", name="active-seqs-above-max-num-seqs", severity="error", since="0.1.0")


def check(context: Context) -> Iterator[Finding]:
    return bound_findings(
        context,
        RULE,
        lambda v: (
            f"max_num_active_seqs ({v.left}) is above max_num_seqs ({v.right}); "
            f"vLLM {context.release} rejects it"
        ),
        lambda v: f"lower max_num_active_seqs to at most {v.right}, or raise max_num_seqs",
    )
