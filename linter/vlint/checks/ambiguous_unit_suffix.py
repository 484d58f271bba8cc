"""What it does
    Reports a lower-case unit suffix on a size (``16k``, ``2m``, ``1g``).

Why is this bad?
    vLLM reads lower-case suffixes as decimal and upper-case ones as binary: ``16k`` is 16,000
    while ``16K`` is 16,384.  Token budgets and context lengths are usually meant as powers of
    two, so ``--max-num-batched-tokens 16k`` silently sets 384 tokens less than intended.

Example
    ``--max-num-batched-tokens 16k``

Use instead
    ``--max-num-batched-tokens 16000`` (if 16,000 is meant) or ``16K`` / ``16384``.

Fix safety
    Safe: writing the decimal value out (``16k`` -> ``16000``) keeps the meaning.  Choosing the
    binary value (``16384``) changes it and is offered as an unsafe alternative.

vLLM releases
    Every release whose type for the option accepts suffixes (the catalog probes the release's
    own type function).

References
    https://docs.vllm.ai/en/latest/cli/serve/ (human-readable integers)
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

from vlint.checks.base import Context, Rule
from vlint.checks.support import SUFFIXED_NUMBER, accepts_suffixes, typed_values
from vlint.model import Edit, Finding, Fix

RULE = Rule(code="VL202", name="ambiguous-unit-suffix", severity="warning", since="0.1.0",
            fix="safe", confirm="parse")


def check(context: Context) -> Iterator[Finding]:
    for use, value, typespec in typed_values(context):
        parsed = value.parsed
        assert parsed is not None and use.option is not None
        match = SUFFIXED_NUMBER.match(value.text)
        if not parsed.ok or match is None or not match["suffix"].islower():
            continue
        if not accepts_suffixes(typespec) or not isinstance(parsed.value, int):
            continue
        binary = match["suffix"].upper()
        power_of_two = _binary_value(match["number"], binary)
        yield context.finding(
            RULE,
            value.span,
            f"'{value.text}' is {parsed.value:,} (decimal '{match['suffix']}'), not "
            f"{power_of_two:,}",
            f"write '{parsed.value}' if decimal is meant, or '{match['number']}{binary}' for "
            "the power of two",
            fix=Fix(f"write {parsed.value}", (Edit(value.span, str(parsed.value)),), safe=True),
            alternative=Fix(
                f"write {power_of_two}", (Edit(value.span, str(power_of_two)),), safe=False
            ),
        )


def _binary_value(number: str, suffix: str) -> int:
    power = "KMGT".index(suffix) + 1
    # Exact: a float would overflow to infinity for the largest numbers vLLM accepts.
    return int(Decimal(number) * 1024**power)
