"""What it does
    Reports a file of a kind vlint reads (a compose file, Python, a manifest...) that does not
    parse, at the place the parser stopped.

Why is this bad?
    Nothing in the file was checked, and the tool that reads it in production (docker compose,
    kubectl, Python) fails on it too.

Example
    A compose file with a tab in its indentation, or Python with an unclosed bracket.

Use instead
    The same file, with valid syntax.

Fix safety
    No automatic fix.

vLLM releases
    All.

References
    The parser's own message is quoted in the finding.
"""

from __future__ import annotations

from vlint.checks.base import Rule

# Reported by the engine (``vlint.engine.lint``) when an extractor raises ``Unparsable``: an
# unparsable file has no invocation to check.
RULE = Rule(code="VL002", name="unparsable-file", severity="warning", since="0.1.0",
            scope="file")
