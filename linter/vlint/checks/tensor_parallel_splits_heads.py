"""What it does
    Reports a tensor parallel size that does not divide the served model's number of attention
    heads, when the model is a folder of the repository (or mounted into the container from
    one) whose ``config.json`` gives ``num_attention_heads`` (``text_config``'s for a model
    with one).  The finding points at the tensor parallel size, with the model as a related
    location.

Why is this bad?
    Each tensor parallel rank holds an equal share of the attention heads.  vLLM refuses the
    configuration before loading anything: "Total number of attention heads (N) must be
    divisible by tensor parallel size (M)." (``ModelConfig.verify_with_parallel_config``,
    ``vllm/config.py``, later ``vllm/config/model.py``).

Example
    ``vllm serve ./models/my-model --tensor-parallel-size 4`` with ``"num_attention_heads":
    6`` in ``./models/my-model/config.json``.

Use instead
    A tensor parallel size that divides the heads (1, 2, 3 or 6 here), with pipeline
    parallelism for more GPUs.

Fix safety
    No fix: the layout is the deployment's choice.

vLLM releases
    All; checked against real vLLM by ``create_engine_config`` on CPU with stand-in models
    (tests/differential/test_model_facts.py).  Only a model folder vlint can read is judged
    (never a Hugging Face id: no network); a value that is not literal is not judged.

References
    https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.checks.local_model import served
from vlint.model import Finding
from vlint.model.finding import Related
from vlint.normalise.resolution import number

RULE = Rule(code="VL610", name="tensor-parallel-splits-heads", severity="error", since="0.2.0",
            confirm="config", model_specific=True)


def check(context: Context) -> Iterator[Finding]:
    model = served(context)
    if model is None or model.facts.attention_heads is None:
        return
    setting = context.resolution.written("tensor_parallel_size")
    size = number(setting)
    if setting is None or setting.span is None or size is None or size < 1:
        return
    heads = model.facts.attention_heads
    if heads % size == 0:
        return
    yield context.finding(
        RULE,
        setting.span,
        f"Total number of attention heads ({heads}) must be divisible by tensor parallel size "
        f"({size}): the model's {model.facts.config} gives {heads} heads",
        "choose a tensor parallel size that divides the heads; add pipeline parallelism for "
        "more GPUs",
        related=(Related(model.span, f"the model, heads from {model.facts.config}"),),
    )
