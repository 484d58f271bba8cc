"""What it does
    Reports a Python keyword for an integer setting given a string of digits, such as
    ``LLM(model="m", max_num_seqs="256")``.

Why is this bad?
    ``EngineArgs`` stores the string as it is; pydantic converts it only when the engine
    configuration is built.  Before that, vLLM computes with some settings: where it does, the
    string breaks the computation and the engine fails with ``TypeError``.  That case is an
    error; elsewhere the string works today by conversion, and the rule is a hint.  Values read
    from the environment (``os.environ["SEQS"]``) are strings too.

Example
    ``LLM(model="m", max_num_batched_tokens="8192")``

Use instead
    ``LLM(model="m", max_num_batched_tokens=8192)``

Fix safety
    No automatic fix yet.

vLLM releases
    The error cases are curated in ``vlint_rules/curated/keywords.toml`` with their release
    ranges and sources, and checked against real vLLM by the differential tests.

References
    https://docs.vllm.ai/en/latest/api/vllm/engine/arg_utils.html
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.checks.support import integer_setting
from vlint.knowledge.curated import string_breaks
from vlint.model import Finding

RULE = Rule(code="VL207", name="numeric-string-keyword", severity="info", since="0.1.0",
            confirm="parse")

_DIGITS = re.compile(r"^\s*-?\d+\s*$")


def _breaks(context: Context, name: str) -> str | None:
    """vLLM's message when a string for ``name`` breaks its computations in this release."""
    resolution = context.resolution
    for fact in string_breaks(name, resolution.release.version):
        if resolution.written(fact.unless_written) is None:
            return fact.vllm_message
    return None


def check(context: Context) -> Iterator[Finding]:
    for keyword, known in context.resolution.keywords:
        value = keyword.value
        name = keyword.name.text
        if known is None or not keyword.literal or not isinstance(value, str):
            continue
        if not _DIGITS.match(value) or not integer_setting(context, name):
            continue
        failure = _breaks(context, name)
        if failure is not None:
            yield context.finding(
                RULE,
                keyword.value_span,
                f"'{name}' is given the string '{value}'; vLLM {context.releases} computes with "
                f"it and fails ({failure})",
                f"pass the integer {value.strip()}",
                severity="error",
            )
        else:
            yield context.finding(
                RULE,
                keyword.value_span,
                f"'{name}' is given the string '{value}', not an integer",
                f"pass the integer {value.strip()}",
            )
