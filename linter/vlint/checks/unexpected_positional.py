"""What it does
    Reports a word that the targeted release's parser cannot place: a second model, a value
    given to an option that takes none, or a ``--`` left after the model.  A quoted
    ``"--dtype auto"`` that argparse reads as one positional word is VL402's.

Why is this bad?
    argparse stops with ``unrecognized arguments`` and the server does not start.  ``vllm serve
    M --model X`` is a common form of it: vLLM moves ``--model X`` to the front, so ``M`` becomes
    a second model.

Example
    ``vllm serve my-model --enforce-eager true``

Use instead
    ``vllm serve my-model --enforce-eager``

Fix safety
    No automatic fix.

vLLM releases
    All; the positionals each parser takes are read from the release (generated catalog).  A
    shell variable such as ``$EXTRA_ARGS`` may expand to any number of words, so once one is
    present this rule stays silent.

References
    https://docs.vllm.ai/en/latest/cli/serve/
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks import container_option_after_image
from vlint.checks.base import Context, Rule
from vlint.checks.flag_and_value_in_one_token import joined_tokens
from vlint.checks.quoting import masked, redactions
from vlint.model import Finding

RULE = Rule(code="VL107", name="unexpected-positional", severity="error", since="0.1.0",
            confirm="parse")


def check(context: Context) -> Iterator[Finding]:
    parser = context.resolution.parser
    takes = len(parser.positionals) if parser is not None else 0
    joined = {id(token) for token, _, _ in joined_tokens(context)}
    container_values = container_option_after_image.values(context)
    for token in context.resolution.stray_positionals():
        if id(token) in joined:
            continue  # VL402 reports it more precisely
        if id(token) in container_values:
            continue  # a container option's value: VL407 reports the option
        message = (
            f"unexpected argument '{masked(token.text)}': vLLM {context.releases} takes "
            + ("one model" if takes == 1 else f"{takes} positional argument(s)")
        )
        yield context.finding(
            RULE, token.sub_span(0), message, "remove it, or give it the flag it belongs to",
            redact=redactions(token),
        )
