"""What it does
    Reports ``--max-model-len`` above the context length vLLM derives from the served model's
    ``config.json``, when the model is a folder of the repository (or mounted from one) and the
    derivation is certain: the config has exactly one of vLLM's length keys
    (``max_position_embeddings``, ``n_positions``, ``max_seq_len``, ``seq_length``, ...), no RoPE
    scaling, no sub-configs and no absolute position embeddings (a pooling model of that kind
    also takes its tokenizer's ``model_max_length``).  Not reported
    when ``VLLM_ALLOW_LONG_MAX_MODEL_LEN`` is set (VL505 reports that).  The finding points at
    the value, with the model as a related location.

Why is this bad?
    vLLM refuses at start-up: "User-specified max_model_len (N) is greater than the derived
    max_model_len (max_position_embeddings=M ...)" (``_get_and_verify_max_len``,
    ``vllm/config/model.py``; ``vllm/config.py`` before).  Positions past the trained context
    would produce garbage.

Example
    ``--max-model-len 32768`` for a model with ``"max_position_embeddings": 8192``.

Use instead
    ``--max-model-len 8192`` or less, or a model (or RoPE scaling) with the longer context.

Fix safety
    No fix.

vLLM releases
    All; checked against real vLLM by ``create_engine_config`` on CPU with stand-in models
    (tests/differential/test_model_facts.py).  A config with RoPE scaling or a sliding window
    turned off (``--disable-sliding-window``) changes the derivation and is not judged; ``-1``
    or ``auto`` is not a length.

References
    https://docs.vllm.ai/en/latest/configuration/engine_args.html
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.checks.local_model import served
from vlint.model import Finding
from vlint.model.finding import Related
from vlint.normalise.resolution import number

RULE = Rule(code="VL611", name="max-model-len-above-model", severity="error", since="0.2.0",
            confirm="config", model_specific=True)


def check(context: Context) -> Iterator[Finding]:
    resolution = context.resolution
    model = served(context)
    if model is None or model.facts.max_length is None:
        return
    if "VLLM_ALLOW_LONG_MAX_MODEL_LEN" in resolution.invocation.env or \
            resolution.invocation.env_unknown:
        return
    if resolution.written("disable_sliding_window") is not None:
        return
    setting = resolution.written("max_model_len")
    length = number(setting)
    if setting is None or setting.span is None or length is None or length < 1:
        return
    key, derived = model.facts.max_length
    where = model.facts.config
    if length <= derived:
        return
    yield context.finding(
        RULE,
        setting.span,
        f"User-specified max_model_len ({length}) is greater than the derived max_model_len "
        f"({key}={derived} in {where})",
        f"lower --max-model-len to {derived} or less",
        related=(Related(model.span, f"the model, {key} from {model.facts.config}"),),
    )
