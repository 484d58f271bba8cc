"""What it does
    Reports a warning a real vLLM logged for an invocation that no vlint finding predicted.  Only
    ``vlint confirm`` reports it; warnings vLLM logs for every invocation (about the machine, not
    the arguments: measured on a bare ``vllm serve m`` first) are left out.

Why is this bad?
    vLLM starts, but it says something about these arguments that the static checks did not:
    a setting it changes, ignores or is about to remove.

Example
    An argument whose value vLLM adjusts and says so when it builds the engine configuration.

Use instead
    What vLLM's message asks for.

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
RULE = Rule(code="VL902", name="unpredicted-vllm-warning", severity="warning", since="0.1.0",
            scope="confirm")
