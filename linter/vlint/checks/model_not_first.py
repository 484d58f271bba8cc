"""What it does
    Reports ``vllm serve`` with ``--served-model-name`` whose first argument is an option
    rather than the model.

Why is this bad?
    Before parsing, ``vllm serve`` refuses this combination with ``ValueError: model should be
    provided as the first positional argument`` (unless ``--config`` supplies the model).  The
    server does not start.  A vLLM ``--config`` file is not reported: the command that names it
    may give the model first.

Example
    ``vllm serve --served-model-name chat --tensor-parallel-size 2``

Use instead
    ``vllm serve meta-llama/Llama-3.1-8B-Instruct --served-model-name chat -tp 2``

Fix safety
    No automatic fix.

vLLM releases
    The releases whose parser the generator found raising this error (probed per release).

References
    https://docs.vllm.ai/en/latest/cli/serve/
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.model import Finding

RULE = Rule(code="VL108", name="model-not-first", severity="error", since="0.1.0", confirm="parse",
            vllm_words=("first positional argument",))


def check(context: Context) -> Iterator[Finding]:
    if not context.resolution.invocation.args_complete:
        return  # a ``--config`` file: the command that names it may give the model first
    for error in context.resolution.rewrite_errors:
        if error.kind == "model-not-first":
            yield context.finding(
                RULE,
                error.span,
                f"{error.message}; vLLM {context.releases} refuses to start",
                "put the model right after 'vllm serve'",
            )
