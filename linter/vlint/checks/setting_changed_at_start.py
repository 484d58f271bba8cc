"""What it does
    Reports a setting that a real vLLM, started by ``vlint confirm --level start``, applied with
    another value than the one written: its start-up log (the engine configuration line and the
    chunked-prefill budget) disagrees with the ``non-default args`` it parsed.

Why is this bad?
    vLLM adjusted the setting on its own (a token budget raised, chunked prefill turned back on,
    a context length capped), so the deployment does not run with the values its file shows, and
    tuning the written value has no effect.

Example
    ``vllm serve m --max-num-batched-tokens 512 --max-model-len 8192`` on a release that turns
    chunked prefill back on and logs another budget than 512.

Use instead
    The value vLLM applies, written out, or the setting that lets yours stand.

Fix safety
    No automatic fix.

vLLM releases
    Every release whose start-up log lists the engine configuration (checked at start, with the
    release that started).

References
    vLLM's ``non-default args`` and ``Initializing a V1 LLM engine ... with config`` log lines
    (``vllm/entrypoints/serve/utils/api_utils.py`` and ``vllm/v1/engine/core.py``).
"""

from __future__ import annotations

from vlint.checks.base import Rule

# Reported by ``vlint confirm`` only (``vlint.confirm.start``), from a real start.
RULE = Rule(code="VL903", name="setting-changed-at-start", severity="warning", since="0.1.0",
            scope="confirm")
