"""What it does
    Reports chunked prefill turned off (``--no-enable-chunked-prefill``,
    ``--enable-chunked-prefill=False``, ``enable_chunked_prefill=False``) for a release that
    turns it back on for generative models whatever the user wrote.

Why is this bad?
    From 0.8.0 to 0.11.0 the V1 engine always uses chunked prefill for generative models: the
    setting is silently overwritten, so the scheduler does not behave as written (long prompts
    are still split, ``max_num_batched_tokens`` stays a per-iteration budget) and settings tuned
    for unchunked prefill are wrong.  The same happens in 0.6.5-0.7.3 when the V1 engine is
    opted into with ``VLLM_USE_V1=1``.

Example
    ``vllm serve my-model --no-enable-chunked-prefill`` on vLLM 0.10.2.

Use instead
    Remove the flag, run a release that honours it (0.11.1 or later), or, in 0.8.0-0.10.2,
    select the V0 engine with ``VLLM_USE_V1=0``.

Fix safety
    No automatic fix.

vLLM releases
    ``facts.chunked_prefill_eras`` in ``vlint_rules/curated/bounds.toml``, from each release's
    ``EngineArgs`` defaults (``_override_v1_engine_args``, ``_set_default_args_v1``,
    ``_set_default_args``).  A literal ``VLLM_USE_V1`` in the launch's environment is taken into
    account; a pooling runner or task (``--runner pooling``, ``--task embed``, ``--convert``) is
    exempt, and so is a launch whose arguments hold a word vlint cannot resolve
    (``$VLLM_ARGS``), which may choose one.  vLLM's own fallback from V1 to V0 for other
    unsupported settings is not modelled.

References
    https://docs.vllm.ai/en/latest/configuration/optimization/ (chunked prefill)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from vlint.checks.base import Context, Rule
from vlint.checks.unseen_options import may_set_unseen_options
from vlint.knowledge.curated import chunked_prefill_era
from vlint.model import Finding

RULE = Rule(code="VL307", name="chunked-prefill-disable-ignored", severity="warning",
            since="0.2.0", confirm="config")

SETTING = "enable_chunked_prefill"
_POOLING_TASKS = frozenset({"embed", "embedding", "classify", "score", "reward"})


def check(context: Context) -> Iterator[Finding]:
    resolution = context.resolution
    setting = resolution.written(SETTING)
    if setting is None or not setting.certain or setting.value is not False:
        return
    assert setting.span is not None
    era = chunked_prefill_era(resolution.release.version)
    if era is None or _pooling(context):
        return
    if may_set_unseen_options(resolution):
        return  # ``$VLLM_ARGS`` may choose a pooling runner
    ignored = era.get("disable") == "ignored"
    env = _env(context, era.get("honoured_with_env" if ignored else "ignored_with_env") or {})
    if env is None:
        return  # the deciding variable is set to something vlint cannot read
    if env:
        ignored = not ignored
    if not ignored:
        return
    yield context.finding(
        RULE,
        setting.span,
        f"chunked prefill stays on: vLLM {context.releases} ignores "
        f"{_written(context)} for generative models",
        str(era.get("help") or "remove it; this release always uses chunked prefill"),
    )


def _env(context: Context, wanted: Mapping[str, str]) -> bool | None:
    """Whether the launch's environment sets every variable of ``wanted`` to its value; None
    when one of them is set to a value that cannot be known."""
    if not wanted:
        return False
    env = context.resolution.invocation.env
    for name, value in wanted.items():
        token = env.get(name)
        if token is None:
            return False
        if not token.literal:
            return None
        if token.text.strip() != value:
            return False
    return True


def _pooling(context: Context) -> bool:
    def written(name: str) -> Any:
        found = context.resolution.written(name)
        return found.value if found is not None else None

    if written("runner") == "pooling" or written("task") in _POOLING_TASKS:
        return True
    convert = written("convert")
    return convert is not None and convert not in ("auto", "none")


def _written(context: Context) -> str:
    for use in reversed(context.resolution.uses):
        if use.option is not None and use.option.dest == SETTING:
            return "'" + " ".join([use.token.text, *(v.text for v in use.values
                                                     if v.token is not use.token)]) + "'"
    return f"{SETTING}=False"
