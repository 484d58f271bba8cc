"""The rules: one module each, registered here explicitly, sorted by code."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from functools import cache
from typing import cast

from vlint.checks.base import RuleModule

MODULES: Mapping[str, str] = {
    "VL001": "unused_suppression",
    "VL002": "unparsable_file",
    "VL003": "internal_error",
    "VL101": "unknown_flag",
    "VL102": "flag_not_yet_available",
    "VL103": "removed_flag",
    "VL104": "deprecated_flag",
    "VL105": "abbreviated_flag",
    "VL106": "unknown_engine_kwarg",
    "VL107": "unexpected_positional",
    "VL108": "model_not_first",
    "VL109": "duplicate_flag",
    "VL201": "invalid_value",
    "VL202": "ambiguous_unit_suffix",
    "VL203": "unit_suffix_unsupported",
    "VL204": "decimal_binary_suffix",
    "VL206": "boolean_flag_with_value",
    "VL207": "numeric_string_keyword",
    "VL301": "batched_tokens_below_model_len",
    "VL302": "batched_tokens_below_max_num_seqs",
    "VL303": "active_seqs_above_max_num_seqs",
    "VL304": "batched_tokens_above_seqs_times_model_len",
    "VL305": "long_prefill_threshold_above_model_len",
    "VL307": "chunked_prefill_disable_ignored",
    "VL401": "serve_repeated_in_image_args",
    "VL402": "flag_and_value_in_one_token",
    "VL403": "positional_model_ignored",
    "VL404": "env_var_not_read",
    "VL405": "config_false_dropped",
    "VL406": "missing_line_continuation",
    "VL501": "public_bind_without_api_key",
    "VL502": "trust_remote_code",
    "VL503": "secret_in_config",
    "VL504": "unpinned_image",
    "VL901": "unpredicted_vllm_error",
    "VL902": "unpredicted_vllm_warning",
    "VL903": "setting_changed_at_start",
}


@cache
def rule_module(code: str) -> RuleModule:
    return cast(RuleModule, importlib.import_module(f"vlint.checks.{MODULES[code]}"))


def all_rules() -> list[RuleModule]:
    return [rule_module(code) for code in sorted(MODULES)]
