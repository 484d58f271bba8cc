"""What it does
    Reports a unit suffix (``16k``, ``32K``) where the targeted release does not accept one:
    an option whose type is a plain integer, or a Python keyword given the string ``"16k"``.

Why is this bad?
    The parser rejects the value (``invalid int value: '16k'``) and the server does not start;
    in Python, the engine configuration's validation fails.  Suffixes were introduced for some
    options only, so a value that works for one flag fails for its neighbour.

Example
    ``--max-num-seqs 1k`` or ``LLM(model="m", max_model_len="16k")``

Use instead
    ``--max-num-seqs 1000`` or ``LLM(model="m", max_model_len=16000)``

Fix safety
    No automatic fix yet: whether the decimal or the binary value was meant is the question.

vLLM releases
    All; whether an option accepts suffixes is probed from each release's own type function.

References
    https://docs.vllm.ai/en/latest/cli/serve/
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.checks.support import (
    SUFFIXED_NUMBER,
    accepts_suffixes,
    integer_setting,
    typed_values,
)
from vlint.model import Finding

RULE = Rule(code="VL203", name="unit-suffix-unsupported", severity="error", since="0.1.0",
            confirm="parse")


def check(context: Context) -> Iterator[Finding]:
    for use, value, typespec in typed_values(context):
        parsed = value.parsed
        assert parsed is not None and use.option is not None
        match = SUFFIXED_NUMBER.match(value.text)
        if parsed.ok or not match or accepts_suffixes(typespec, match["suffix"]):
            continue
        which = f"suffix '{match['suffix']}'" if accepts_suffixes(typespec) else "unit suffix"
        yield context.finding(
            RULE,
            value.span,
            f"'{use.option.name}' takes no {which} in vLLM {context.releases}: "
            f"'{value.text}'",
            "write the number out in full",
        )
    for keyword, known in context.resolution.keywords:
        if known is None or not keyword.literal or not isinstance(keyword.value, str):
            continue
        if SUFFIXED_NUMBER.match(keyword.value) and integer_setting(context, keyword.name.text):
            yield context.finding(
                RULE,
                keyword.value_span,
                f"'{keyword.name.text}' is given the string '{keyword.value}'; Python keywords "
                "take no unit suffix",
                "pass an integer, e.g. 16384 rather than '16K'",
            )
