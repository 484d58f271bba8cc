"""What it does
    Reports ``--trust-remote-code`` (or ``trust_remote_code=True`` in Python, or any spelling
    the release resolves to that setting: an abbreviation, ``--trust_remote_code``).

Why is this bad?
    With it, loading the model runs the Python files of the model's repository
    (``modeling_*.py``, ``configuration_*.py``) inside the server process, with its
    privileges and credentials.  Whoever can change that repository — or the revision a
    floating reference points to — runs code on the host.

Example
    ``vllm serve some-org/custom-model --trust-remote-code``

Use instead
    A model whose architecture the vLLM release supports natively, without the flag; if the
    remote code is needed, review it and pin the model with ``--revision <commit>`` (and
    ``--code-revision``), and suppress this finding with the reason.

Fix safety
    No fix: removing the flag stops such models from loading.

vLLM releases
    All; the setting is read after resolution, so ``--no-trust-remote-code`` is not reported.

References
    https://docs.vllm.ai/en/latest/usage/security.html
    https://docs.vllm.ai/en/latest/cli/serve.html
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.model import Finding, Span

RULE = Rule(code="VL502", name="trust-remote-code", severity="warning", since="0.1.0")


def check(context: Context) -> Iterator[Finding]:
    setting = context.resolution.written("trust_remote_code")
    if setting is None or setting.span is None or setting.value is not True:
        return
    yield context.finding(
        RULE,
        _flag_span(context, setting.span),
        "the model repository's own Python code runs in the server (trust_remote_code)",
        "use a natively supported model, or pin a reviewed --revision and suppress with a reason",
    )


def _flag_span(context: Context, span: Span) -> Span:
    """The flag's own characters where the setting spans its whole token (and a closing quote)."""
    for use in reversed(context.resolution.uses):
        if use.option is not None and use.option.dest == "trust_remote_code":
            return use.name_span if use.token.span == span else span
    return span
