"""What it does
    Reports a secret written literally where vLLM is launched: a Hugging Face token
    (``hf_`` and 30 or more letters and digits), an OpenAI-style key (``sk-...``), an AWS access
    key id (``AKIA...``) anywhere in the arguments or the environment; any literal value of
    ``--api-key``; and a literal value of a secret variable (``VLLM_API_KEY``, ``HF_TOKEN``,
    ``HUGGING_FACE_HUB_TOKEN``, ``OPENAI_API_KEY``, ...) or keyword (``hf_token=``).

    Not reported: references (``$HF_TOKEN``, ``${HF_TOKEN}``, ``$(HF_TOKEN)``, anything a
    shell or compose expands, or a ``$NAME`` left for ``envsubst``), values compose interpolates from the ``.env`` file, and obvious placeholders —
    a value that is bracketed (``<your-token>``), one repeated character (``xxxx``), contains
    ``your``, ``changeme``, ``placeholder``, ``example``, ``dummy``, ``redacted``, ``fake``,
    ``xxx`` or ``...``, or is ``EMPTY``, ``none``, ``token``, ``secret``, ``key``, ``test`` and
    the like.

    The value never appears in vlint's output: the message quotes a masked form
    (``hf_a…(masked)``), and the code frame masks the value's characters.

Why is this bad?
    A key written in a repository has leaked: everyone with read access (and every fork, clone
    and CI log) has it, and it stays in the history after it is removed.

Example
    ``HF_TOKEN=hf_... vllm serve meta-llama/Llama-3.1-8B-Instruct --api-key s3cr3t-k3y``

Use instead
    ``vllm serve meta-llama/Llama-3.1-8B-Instruct`` with ``HF_TOKEN`` and ``VLLM_API_KEY`` set
    from the deployment's secret store (``${HF_TOKEN}`` in compose, a Kubernetes Secret), and
    rotate the leaked key.

Fix safety
    No fix: the key must be revoked and moved to a secret store.

vLLM releases
    All.

References
    https://docs.vllm.ai/en/latest/usage/security.html
    https://docs.vllm.ai/en/latest/cli/serve.html
    https://huggingface.co/docs/hub/security-tokens
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.checks.security import is_placeholder, secret_kinds, secrets_in, written_here
from vlint.model import Finding, Span, Token
from vlint.model.redaction import mask_secret

RULE = Rule(code="VL503", name="secret-in-config", severity="error", since="0.1.0")

SECRET_VARIABLES = frozenset({
    "VLLM_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HUGGINGFACE_HUB_TOKEN",
    "HUGGINGFACE_TOKEN", "HF_API_TOKEN", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY",
    "WANDB_API_KEY",
})
SECRET_KEYWORDS = frozenset({"hf_token", "api_key"})
_HELP = "read it from a secret store (an environment variable reference) and rotate it: it has leaked"


def _report(context: Context, what: str, value: str, span: Span) -> Finding:
    return context.finding(
        RULE, span, f"{what} is written in the file: '{mask_secret(value)}'", _HELP,
        redact=(span,),
    )


def _token_findings(context: Context, token: Token, named: str | None) -> Iterator[Finding]:
    """A whole literal value that is a secret by its name (``named``), else secrets in it."""
    if named is not None:
        value = token.text
        if written_here(token, 0, len(value)) and not is_placeholder(value):
            yield _report(context, named, value, token.sub_span(0))
            return
    for what, start, end in secrets_in(token):
        yield _report(context, what, token.text[start:end], token.sub_span(start, end))


def check(context: Context) -> Iterator[Finding]:
    resolution = context.resolution
    invocation = resolution.invocation
    for name, token in invocation.env.items():
        named = f"the value of {name}" if name in SECRET_VARIABLES else None
        yield from _token_findings(context, token, named)
    api_key_values: set[int] = set()
    for use in resolution.uses:
        if use.option is not None and use.option.dest == "api_key":
            for value in use.values:
                api_key_values.add(id(value.token))
                part = Token(value.text, value.token.positions[value.start :], value.literal)
                yield from _token_findings(context, part, "an API key")
    for token in invocation.args:
        if id(token) not in api_key_values:
            yield from _token_findings(context, token, None)
    for keyword, _ in resolution.keywords:
        text = keyword.value
        if not keyword.literal or not isinstance(text, str):
            continue
        if keyword.name.text in SECRET_KEYWORDS and not is_placeholder(text):
            yield _report(context, f"the value of {keyword.name.text}=", text, keyword.value_span)
        else:
            for what, start, end in secret_kinds(text)[:1]:
                yield _report(context, what, text[start:end], keyword.value_span)
