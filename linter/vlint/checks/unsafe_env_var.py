"""What it does
    Reports a variable in a launch's environment that switches off one of vLLM's safety
    guards, set to a value the release reads as on.  The variables:

    - ``VLLM_SERVER_DEV_MODE``: registers the development endpoints on the API server
      (``/collective_rpc``, ``/reset_prefix_cache``, ``/sleep``, server info;
      ``vllm/entrypoints/serve/__init__.py`` ``register_vllm_dev_api_routers``, which logs
      "SECURITY WARNING: Development endpoints are enabled!"), unauthenticated outside the
      guarded paths;
    - ``VLLM_ALLOW_RUNTIME_LORA_UPDATING``: lets any client load or unload LoRA adapters, from
      any path or repository (``/v1/load_lora_adapter``, ``vllm/entrypoints/serve/lora/
      api_router.py``);
    - ``VLLM_ALLOW_INSECURE_SERIALIZATION``: lets the engine's message decoder unpickle objects
      (``vllm/v1/serial_utils.py``), code execution for whoever can write to its sockets;
    - ``VLLM_ALLOW_LONG_MAX_MODEL_LEN``: accepts a ``--max-model-len`` above the model's own
      context (``vllm/config/model.py`` ``_get_and_verify_max_len``: "must be used with extreme
      caution ... positions exceeding derived_max_model_len lead to nan ... or a CUDA array
      out-of-bounds error").

Why is this bad?
    Each opens the server or the engine to something its authors keep off by default: remote
    control of the engine, arbitrary adapter loading, deserialisation of attacker bytes, or
    silent garbage output and crashes past the model's trained context.  vLLM's security
    guide and environment-variable docs say not to use them in production.

Example
    ``VLLM_SERVER_DEV_MODE=1 vllm serve m``

Use instead
    Leave them unset in deployments; keep them to a development machine.

Fix safety
    No fix: removing the variable changes what the deployment does.

vLLM releases
    Every release that reads the variable (the catalog's environment variables).  A value is
    "on" as the release parses it: ``1`` or ``true`` (any case) for
    ``VLLM_ALLOW_RUNTIME_LORA_UPDATING`` and ``VLLM_ALLOW_LONG_MAX_MODEL_LEN``
    (``... .strip().lower() in ("1", "true")``), a non-zero integer for
    ``VLLM_SERVER_DEV_MODE`` and ``VLLM_ALLOW_INSECURE_SERIALIZATION`` (``bool(int(...))``) in
    every release so far; a value that is not literal is not judged.

References
    https://docs.vllm.ai/en/latest/usage/security.html
    https://docs.vllm.ai/en/latest/configuration/env_vars.html
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from vlint.checks.base import Context, Rule
from vlint.model import Finding

RULE = Rule(code="VL505", name="unsafe-env-var", severity="warning", since="0.2.0")

# Each variable: how the release parses it (``flag``: "1"/"true"; ``int``: bool(int(value))),
# and what it opens.
UNSAFE: Mapping[str, tuple[str, str]] = {
    "VLLM_SERVER_DEV_MODE": (
        "int", "registers the development endpoints (/collective_rpc, /reset_prefix_cache, "
               "/sleep) on the API server"),
    "VLLM_ALLOW_RUNTIME_LORA_UPDATING": (
        "flag", "lets any client load LoRA adapters from any path or repository "
                "(/v1/load_lora_adapter)"),
    "VLLM_ALLOW_INSECURE_SERIALIZATION": (
        "int", "lets the engine unpickle messages: code execution for whoever reaches its "
               "sockets"),
    "VLLM_ALLOW_LONG_MAX_MODEL_LEN": (
        "flag", "accepts a --max-model-len above the model's context, whose positions give "
                "NaN or out-of-bounds errors"),
}


def enabled(parse: str, text: str) -> bool:
    """Whether the release reads ``text`` as on."""
    value = text.strip()
    if parse == "flag":
        return value.lower() in ("1", "true")
    try:
        return int(value) != 0
    except ValueError:
        return False  # bool(int("true")) raises at start-up: not on


def check(context: Context) -> Iterator[Finding]:
    resolution = context.resolution
    read = resolution.release.env_vars
    for name, variable in resolution.invocation.deployment.env.items():
        if name not in UNSAFE or name not in read or not variable.value.literal:
            continue
        parse, opens = UNSAFE[name]
        if not enabled(parse, variable.value.text):
            continue
        yield context.finding(
            RULE,
            variable.name_span or variable.value.sub_span(0),
            f"{name}={variable.value.text.strip()} {opens}",
            "leave it unset outside development",
        )
