"""What it does
    Reports ``vllm serve`` or ``serve`` at the start of the arguments given to a
    ``vllm/vllm-openai`` image whose own entrypoint already starts the server (a compose
    ``command:`` with no ``entrypoint:`` override).

Why is this bad?
    The container runs the image's entrypoint followed by these words, so the server receives
    ``vllm serve vllm serve MODEL ...``: ``vllm`` (or ``serve``) becomes the model and the real
    model an unrecognized argument, and the server does not start.  vlint checks the remaining
    arguments as if the repetition were removed, so this mistake gives one finding.

Example
    ``image: vllm/vllm-openai:v0.32.0`` with ``command: ["vllm", "serve", "m", "--port", "8000"]``

Use instead
    ``command: ["m", "--port", "8000"]`` (or override ``entrypoint:`` deliberately)

Fix safety
    No automatic fix: a list item, a flow list and a string need different edits.

vLLM releases
    All.  Which entrypoint each release's image has (``vllm serve``, or the API server module in
    older releases) is read by the generator from the ``vllm-openai`` stage of the Dockerfile in
    that release's sources; an image whose release vlint does not know is taken to run
    ``vllm serve``.

References
    https://docs.vllm.ai/en/latest/deployment/docker/
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.model import Finding, Span

RULE = Rule(code="VL401", name="serve-repeated-in-image-args", severity="error", since="0.1.0")


def check(context: Context) -> Iterator[Finding]:
    invocation = context.resolution.invocation
    repeated = invocation.repeated_entry
    if not repeated:
        return
    written = " ".join(token.text for token in repeated)
    runs = "vllm serve" if invocation.entry == "serve" else "the API server module"
    yield context.finding(
        RULE,
        Span(repeated[0].span.start, repeated[-1].sub_span(0).end),
        f"'{written}' repeats the entrypoint of '{invocation.image}', which already runs "
        f"{runs} in vLLM {context.releases}",
        f"remove '{written}' from the arguments; the server would read it as its model",
    )
