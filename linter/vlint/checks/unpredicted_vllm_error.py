"""What it does
    Reports an error a real vLLM raised for an invocation that no vlint finding predicted.  Only
    ``vlint confirm`` reports it: it runs the invocation through the vLLM parser (level
    ``parse``) or the engine configuration (level ``config``) of a real vLLM interpreter.

Why is this bad?
    vLLM refuses to start with these arguments, and the static checks missed it: the finding
    quotes vLLM's own error, and the gap in vlint is worth reporting.

Example
    ``vllm serve m --lora-modules adapter`` (vLLM expects ``name=path`` or JSON there).

Use instead
    What vLLM's message asks for, e.g. ``--lora-modules adapter=/models/adapter``.

Fix safety
    No automatic fix.

vLLM releases
    The release the confirming interpreter runs.

References
    ``vlint confirm --help``; the README's section on ``vlint confirm``.
"""

from __future__ import annotations

from vlint.checks.base import Rule

# Reported by ``vlint confirm`` only, from a real vLLM's answer.
RULE = Rule(code="VL901", name="unpredicted-vllm-error", severity="error", since="0.1.0",
            scope="confirm")
