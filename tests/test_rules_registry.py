"""The rule registry (``vlint.checks``): every rule module is registered, every registered one
exists, codes are unique and sorted, and each rule's scope says who reports it."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import vlint.checks
from vlint.checks import (CHECKS, MODULES, REPORTED, RULES, UnknownRule, confirm_level,
                          invocation_checks, model_specific, rule_module, vllm_words)

CHECKS_DIR = Path(vlint.checks.__file__).parent


def _rule_modules() -> dict[str, str]:
    """Every module under vlint/checks/ that defines a RULE: its code and module name."""
    found: dict[str, str] = {}
    for info in pkgutil.iter_modules([str(CHECKS_DIR)]):
        module = importlib.import_module(f"vlint.checks.{info.name}")
        rule = getattr(module, "RULE", None)
        if rule is not None:
            assert rule.code not in found, f"{rule.code} in {found.get(rule.code)} and {info.name}"
            found[rule.code] = info.name
    return found


def test_every_rule_module_is_registered_and_every_registered_one_exists() -> None:
    assert MODULES == _rule_modules()
    for code, module in RULES.items():
        assert (CHECKS_DIR / f"{MODULES[code]}.py").is_file()
        assert module is importlib.import_module(f"vlint.checks.{MODULES[code]}")


def test_codes_are_unique_sorted_and_their_modules_say_so() -> None:
    assert not CHECKS.keys() & REPORTED.keys()
    assert set(RULES) == set(CHECKS) | set(REPORTED)
    for registry in (RULES, CHECKS, REPORTED):
        assert list(registry) == sorted(registry)
    names = [module.RULE.name for module in RULES.values()]
    assert len(set(names)) == len(names)
    for code, module in RULES.items():
        assert module.RULE.code == code
        assert re.fullmatch(r"VL\d{3}", code)
        assert MODULES[code] == module.RULE.name.replace("-", "_")


def test_only_invocation_rules_have_a_check() -> None:
    for code, module in CHECKS.items():
        assert module.RULE.scope == "invocation", code
        assert callable(module.check), code
    for code, reported in REPORTED.items():
        assert reported.RULE.scope != "invocation", code
        assert not hasattr(reported, "check"), f"{code} has a check() its stage never runs"
    assert [m.RULE.code for m in invocation_checks()] == list(CHECKS)


def test_the_stages_that_report_rules() -> None:
    scopes = {code: module.RULE.scope for code, module in REPORTED.items()}
    assert scopes == {"VL001": "filter", "VL002": "file", "VL003": "run", "VL004": "file",
                      "VL613": "file", "VL614": "file", "VL901": "confirm", "VL902": "confirm",
                      "VL903": "confirm"}


def test_an_unknown_code_raises() -> None:
    with pytest.raises(UnknownRule):
        rule_module("VL999")
    with pytest.raises(KeyError):
        rule_module("unknown-flag")


def test_what_confirm_can_check_is_declared_by_each_rule() -> None:
    # The sets confirm picked by regexes over codes before rules declared them.
    parse = {code for code in RULES if re.match(r"^VL(1\d\d|2\d\d|402)$", code)}
    # (and the model-facts rules, which create_engine_config judges with the model's folder)
    config = {code for code in RULES if re.match(r"^VL3\d\d$", code)} | {"VL610", "VL611"}
    assert {code for code in RULES if confirm_level(code) == "parse"} == parse
    assert {code for code in RULES if confirm_level(code) == "config"} == config
    assert {code for code in RULES if model_specific(code)} == {"VL301", "VL304", "VL610",
                                                               "VL611"}
    assert {code for code in RULES if vllm_words(code)} == {"VL108"}
    assert vllm_words("VL108") == ("first positional argument",)
    # Deployment rules and stage rules are not vLLM's to judge; nor are policies.
    for code in ("VL001", "VL401", "VL403", "VL404", "VL406", "VL501", "VL901", "VLP001", "X1"):
        assert confirm_level(code) is None
        assert not model_specific(code) and vllm_words(code) == ()
