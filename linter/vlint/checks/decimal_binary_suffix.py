"""What it does
    Reports a decimal number with a binary (upper-case) unit suffix, such as ``1.5K``.

Why is this bad?
    vLLM accepts fractions only with decimal suffixes (``1.5k`` is 1,500); ``1.5K`` is rejected
    by the parser, so the server does not start.

Example
    ``--max-num-batched-tokens 1.5K``

Use instead
    ``--max-num-batched-tokens 1536`` (or ``1.5k`` if 1,500 is meant).

Fix safety
    No automatic fix: 1,536 and 1,500 are both plausible intentions.

vLLM releases
    Every release whose type for the option accepts suffixes.

References
    https://docs.vllm.ai/en/latest/cli/serve/ (human-readable integers)
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.checks.support import SUFFIXED_NUMBER, accepts_suffixes, typed_values
from vlint.model import Finding

RULE = Rule(code="VL204", name="decimal-binary-suffix", severity="error", since="0.1.0",
            confirm="parse")


def check(context: Context) -> Iterator[Finding]:
    for use, value, typespec in typed_values(context):
        parsed = value.parsed
        assert parsed is not None and use.option is not None
        match = SUFFIXED_NUMBER.match(value.text)
        if parsed.ok or match is None or not accepts_suffixes(typespec):
            continue
        if "." not in match["number"] or not match["suffix"].isupper():
            continue
        exact = float(match["number"]) * 1024 ** ("KMGT".index(match["suffix"]) + 1)
        yield context.finding(
            RULE,
            value.span,
            f"'{value.text}': vLLM {context.releases} accepts decimals only with decimal "
            "suffixes",
            f"write {int(exact)} for the binary value, or '{match['number']}"
            f"{match['suffix'].lower()}' for the decimal one",
        )
