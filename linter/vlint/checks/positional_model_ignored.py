"""What it does
    Reports a model given as a positional argument to ``python -m
    vllm.entrypoints.openai.api_server`` (or to an image whose entrypoint is that module).

Why is this bad?
    The API server module's parser accepts a positional ``model_tag`` (it shares ``vllm
    serve``'s arguments), but only ``vllm serve`` copies it into ``--model``.  The module starts
    and serves ``--model``'s value instead: its default model when ``--model`` is absent.  (A
    release whose module has no positional rejects the word: that is VL107.)

Example
    ``python -m vllm.entrypoints.openai.api_server facebook/opt-125m``

Use instead
    ``python -m vllm.entrypoints.openai.api_server --model facebook/opt-125m``, or
    ``vllm serve facebook/opt-125m``

Fix safety
    No automatic fix.

vLLM releases
    Every release whose API server parser has a positional (generated catalog); the default
    model named in the message is that release's ``--model`` default (where a word vlint
    cannot resolve, ``$ARGS``, may hold ``--model``, the message names both).  Real vLLM's
    parser is the judge: ``tests/differential/test_entrypoints.py``.

References
    https://docs.vllm.ai/en/latest/cli/serve/
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks import container_option_after_image
from vlint.checks.base import Context, Rule
from vlint.checks.flag_and_value_in_one_token import joined_tokens
from vlint.checks.unseen_options import may_set_unseen_options
from vlint.model import Finding

RULE = Rule(code="VL403", name="positional-model-ignored", severity="warning", since="0.1.0")


def check(context: Context) -> Iterator[Finding]:
    resolution = context.resolution
    parser = resolution.parser
    if resolution.invocation.entry != "api_server" or parser is None or not parser.positionals:
        return
    joined = {id(token) for token, _, _ in joined_tokens(context)}
    # A value after an unknown or ambiguous option is that option's stray value (VL101, VL105:
    # vLLM stops at the option), not a model.
    args = resolution.invocation.args
    unknown = {id(use.token) for use in resolution.uses if use.match in ("unknown", "ambiguous")}
    strays = {id(args[i + 1]) for i in range(len(args) - 1) if id(args[i]) in unknown}
    strays |= container_option_after_image.values(context)  # VL407 reports their option
    words = [t for t in resolution.positionals if id(t) not in joined | strays]
    if not words or not words[0].literal:
        return
    token = words[0]
    model = parser.by_dest.get("model")
    if resolution.written("model") is not None:
        serves = "the value of '--model'"
    elif may_set_unseen_options(resolution):  # ``$ARGS`` may hold ``--model``
        serves = "the value of '--model', or its default model"
    elif model is not None and model.default_known and model.default is not None:
        serves = f"its default model '{model.default}'"
    else:
        serves = "its default model"
    yield context.finding(
        RULE,
        token.sub_span(0),
        f"positional model '{token.text}' is ignored by the API server module in vLLM "
        f"{context.releases}: it serves {serves}",
        f"write '--model {token.text}', or run 'vllm serve {token.text}'",
    )
