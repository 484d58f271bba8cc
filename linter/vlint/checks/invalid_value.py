"""What it does
    Reports a value the targeted release's parser rejects: a wrong type (``--max-num-seqs
    eight``), a value outside the option's choices (``--dtype fp17``), or an option that needs
    a value and got none.

Why is this bad?
    argparse exits with ``invalid ... value`` or ``invalid choice`` and the server never starts.

Example
    ``--kv-cache-dtype fp9``

Use instead
    One of the choices the release lists, given in the message.

Fix safety
    No automatic fix.

vLLM releases
    All; types and choices come from each release's parser (generated catalog).  Unit suffixes
    are reported by VL203 and VL204 instead.

References
    https://docs.vllm.ai/en/latest/cli/serve/
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.checks.quoting import holds_secret, masked, value_redactions
from vlint.checks.support import SUFFIXED_NUMBER, typed_values
from vlint.model import Finding

RULE = Rule(code="VL201", name="invalid-value", severity="error", since="0.1.0", confirm="parse")


def _choices(values: tuple[object, ...]) -> str:
    shown = ", ".join(str(v) for v in values[:8])
    return shown + (", ..." if len(values) > 8 else "")


def check(context: Context) -> Iterator[Finding]:
    for error in context.resolution.rewrite_errors:
        if error.kind == "dotted-key-without-value":
            yield context.finding(
                RULE, error.span, masked(error.message), "write the value with '='"
            )
    for use in context.resolution.uses:
        if use.arity_error and "expected" in use.arity_error and use.option is not None:
            yield context.finding(
                RULE,
                use.name_span,
                f"'{use.written}' needs a value",
                f"give '{use.option.name}' a value, or remove it",
            )
    for use, value, _typespec in typed_values(context):
        parsed = value.parsed
        assert parsed is not None and use.option is not None
        flag = use.option.name
        whole = holds_secret(use)
        shown = masked(value.text, whole)
        redact = value_redactions(value, whole)
        if not parsed.ok:
            if SUFFIXED_NUMBER.match(value.text):
                continue
            # The parser's error quotes the value too.
            reason = parsed.error or "check the value's type"
            if shown != value.text:
                reason = reason.replace(value.text, shown)
            yield context.finding(
                RULE,
                value.span,
                f"invalid value '{shown}' for '{flag}' in vLLM {context.releases}",
                masked(reason),
                redact=redact,
            )
        elif use.option.choices is not None and parsed.value not in use.option.choices:
            yield context.finding(
                RULE,
                value.span,
                f"invalid choice '{shown}' for '{flag}' in vLLM {context.releases}",
                f"choose one of: {_choices(use.option.choices)}",
                redact=redact,
            )
