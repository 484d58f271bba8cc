"""What it does
    Reports an option that no known vLLM release accepts.

Why is this bad?
    vLLM's parser stops with ``unrecognized arguments`` and the server never starts.  Typos in
    long flag names are common, and so is a flag from another tool's documentation.

Example
    ``vllm serve my-model --max-num-seq-total 8``

Use instead
    ``vllm serve my-model --max-num-seqs 8``

Fix safety
    Unsafe: where the targeted release has a close option string (the help line's "did you
    mean"), ``--unsafe-fixes`` replaces the written name with it.  vlint cannot know that it is
    the flag that was meant, and the value given may not suit it.

vLLM releases
    All.  The option strings come from each release's own parser (generated catalog).

References
    https://docs.vllm.ai/en/latest/cli/serve/
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks import container_option_after_image
from vlint.checks.base import Context, Rule, did_you_mean
from vlint.checks.support import canonical, lifetime, unknown_uses
from vlint.model import Edit, Finding, Fix

RULE = Rule(code="VL101", name="unknown-flag", severity="error", since="0.1.0", fix="unsafe",
            confirm="parse")


def check(context: Context) -> Iterator[Finding]:
    parser = context.resolution.parser
    assert parser is not None
    for use in unknown_uses(context):
        if lifetime(context, use) is not None:
            continue
        if container_option_after_image.explains(context, use):
            continue  # VL407 reports it
        suggestion = did_you_mean(canonical(use.written), parser.long_strings)
        help_text = (
            f"did you mean '{suggestion}'?"
            if suggestion
            else f"run 'vllm serve --help' for vLLM {context.releases} to list its flags"
        )
        fix = (Fix(f"replace with '{suggestion}'", (Edit(use.name_span, suggestion),), safe=False)
               if suggestion and use.token.literal else None)
        yield context.finding(
            RULE,
            context.resolution.unknown_span(use),
            f"unknown flag '{use.written}' in vLLM {context.releases}",
            help_text,
            fix=fix,
        )
