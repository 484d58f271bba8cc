"""The rules: one module each, registered here explicitly, sorted by code.

``CHECKS`` holds the rules of scope ``invocation``, whose ``check()`` the engine runs on each
invocation and release; ``REPORTED`` the rules a later stage reports (the engine, the filter
stage, ``vlint confirm``), which have documentation and metadata but no ``check()``.  Both are
real imports, so that mypy checks every module against its Protocol.
"""

from __future__ import annotations

from collections.abc import Mapping

from vlint.checks import (
    abbreviated_flag, active_seqs_above_max_num_seqs, ambiguous_unit_suffix,
    batched_tokens_above_seqs_times_model_len, batched_tokens_below_max_num_seqs,
    batched_tokens_below_model_len, boolean_flag_with_value, chunked_prefill_disable_ignored,
    config_false_dropped, container_option_after_image, container_port_mismatch,
    decimal_binary_suffix, deprecated_flag,
    duplicate_flag, env_var_not_read,
    flag_and_value_in_one_token, flag_not_yet_available, gpu_memory_oversubscribed,
    gpus_below_world_size, gpus_unused,
    internal_error, internal_port_as_server_port, invalid_value, leaderworkerset_mismatch,
    liveness_without_startup_probe, long_prefill_threshold_above_model_len,
    max_model_len_above_model, missing_line_continuation,
    model_not_first,
    module_not_shipped,
    numeric_string_keyword, positional_model_ignored, probe_path_needs_api_key,
    probe_port_mismatch, public_bind_without_api_key, removed_flag,
    secret_in_config, serve_repeated_in_image_args, service_link_vllm_port, service_port_mismatch,
    setting_changed_at_start,
    shared_memory_default, shared_memory_too_small, tensor_parallel_splits_heads,
    trust_remote_code,
    unexpected_positional, unit_suffix_unsupported, unknown_engine_kwarg, unknown_flag,
    unparsable_file, unpinned_image, unpredicted_vllm_error, unpredicted_vllm_warning,
    unread_launch, unsafe_env_var, unused_suppression,
)
from vlint.checks.base import CheckModule, ConfirmLevel, Rule, RuleModule

CHECKS: Mapping[str, CheckModule] = {
    "VL101": unknown_flag,
    "VL102": flag_not_yet_available,
    "VL103": removed_flag,
    "VL104": deprecated_flag,
    "VL105": abbreviated_flag,
    "VL106": unknown_engine_kwarg,
    "VL107": unexpected_positional,
    "VL108": model_not_first,
    "VL109": duplicate_flag,
    "VL201": invalid_value,
    "VL202": ambiguous_unit_suffix,
    "VL203": unit_suffix_unsupported,
    "VL204": decimal_binary_suffix,
    "VL206": boolean_flag_with_value,
    "VL207": numeric_string_keyword,
    "VL301": batched_tokens_below_model_len,
    "VL302": batched_tokens_below_max_num_seqs,
    "VL303": active_seqs_above_max_num_seqs,
    "VL304": batched_tokens_above_seqs_times_model_len,
    "VL305": long_prefill_threshold_above_model_len,
    "VL307": chunked_prefill_disable_ignored,
    "VL401": serve_repeated_in_image_args,
    "VL402": flag_and_value_in_one_token,
    "VL403": positional_model_ignored,
    "VL404": env_var_not_read,
    "VL405": config_false_dropped,
    "VL406": missing_line_continuation,
    "VL407": container_option_after_image,
    "VL408": module_not_shipped,
    "VL501": public_bind_without_api_key,
    "VL502": trust_remote_code,
    "VL503": secret_in_config,
    "VL504": unpinned_image,
    "VL505": unsafe_env_var,
    "VL601": gpus_below_world_size,
    "VL602": gpus_unused,
    "VL603": shared_memory_default,
    "VL604": shared_memory_too_small,
    "VL605": probe_port_mismatch,
    "VL606": container_port_mismatch,
    "VL607": probe_path_needs_api_key,
    "VL608": service_link_vllm_port,
    "VL609": internal_port_as_server_port,
    "VL610": tensor_parallel_splits_heads,
    "VL611": max_model_len_above_model,
    "VL612": liveness_without_startup_probe,
    "VL615": service_port_mismatch,
}

REPORTED: Mapping[str, RuleModule] = {
    "VL001": unused_suppression,
    "VL002": unparsable_file,
    "VL003": internal_error,
    "VL004": unread_launch,
    "VL613": gpu_memory_oversubscribed,
    "VL614": leaderworkerset_mismatch,
    "VL901": unpredicted_vllm_error,
    "VL902": unpredicted_vllm_warning,
    "VL903": setting_changed_at_start,
}

RULES: Mapping[str, RuleModule] = dict(sorted({**CHECKS, **REPORTED}.items()))
# Each code's module name (``unknown_flag``): the rule's name with underscores.
MODULES: Mapping[str, str] = {
    code: module.__name__.rpartition(".")[2] for code, module in RULES.items()
}
_CHECK_LIST: tuple[CheckModule, ...] = tuple(CHECKS[code] for code in sorted(CHECKS))


class UnknownRule(KeyError):
    """A code that names no rule."""


def rule_module(code: str) -> RuleModule:
    try:
        return RULES[code]
    except KeyError:
        raise UnknownRule(code) from None


def rule(code: str) -> Rule:
    return rule_module(code).RULE


def all_rules() -> list[RuleModule]:
    """Every rule, sorted by code."""
    return list(RULES.values())


def invocation_checks() -> tuple[CheckModule, ...]:
    """The rules of scope ``invocation``, sorted by code: what the engine runs per release."""
    return _CHECK_LIST


def confirm_level(code: str) -> ConfirmLevel | None:
    """Where a real vLLM runs the check that the finding ``code`` predicts (``parse``:
    its argument parser, ``config``: its engine configuration); None for a policy, a code of no
    rule, or a rule vLLM cannot judge (the deployment around the launch)."""
    module = RULES.get(code)
    return module.RULE.confirm if module is not None else None


def model_specific(code: str) -> bool:
    """Whether the check depends on the model (so a stand-in model cannot refute it)."""
    module = RULES.get(code)
    return module is not None and module.RULE.model_specific


def vllm_words(code: str) -> tuple[str, ...]:
    """What vLLM's message says for the rule when it names no option."""
    module = RULES.get(code)
    return module.RULE.vllm_words if module is not None else ()
