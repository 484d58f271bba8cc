"""VL301-VL305 are data over one generic check: each module holds its documentation, its RULE
and its message templates; the finding is at the first written setting of the bound, and the
other side of the mismatch is its related location."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from vlint.checks import (
    active_seqs_above_max_num_seqs, batched_tokens_above_seqs_times_model_len,
    batched_tokens_below_max_num_seqs, batched_tokens_below_model_len,
    long_prefill_threshold_above_model_len,
)
from vlint.checks.base import CheckModule
from vlint.engine.lint import lint
from vlint.knowledge.curated import bounds
from vlint.model import Finding, Span
from vlint.settings import Settings

BOUND_RULES: tuple[CheckModule, ...] = (
    batched_tokens_below_model_len, batched_tokens_below_max_num_seqs,
    active_seqs_above_max_num_seqs, batched_tokens_above_seqs_times_model_len,
    long_prefill_threshold_above_model_len,
)


@pytest.mark.parametrize("module", BOUND_RULES, ids=lambda m: m.RULE.code)
def test_each_bound_rule_is_its_curated_bounds_and_templates(module: CheckModule) -> None:
    source = Path(importlib.import_module(module.__name__).__file__ or "").read_text("utf-8")
    assert "def check(" not in source  # no body of its own: the generic check
    assert module.check.__qualname__ == "bound_check.<locals>.check"
    assert bounds(module.RULE.code), f"no bound for {module.RULE.code} in bounds.toml"
    assert all(b.name == module.RULE.name for b in bounds(module.RULE.code))


def _text(path: Path, span: Span) -> str:
    line = path.read_text("utf-8").splitlines()[span.start.line - 1]
    return line[span.start.column - 1 : span.end.column - 1]


def _lint(tmp_path: Path, text: str) -> tuple[Path, list[Finding]]:
    path = tmp_path / "serve.sh"
    path.write_text(text, "utf-8")
    report = lint([str(path)], Settings(target="0.32.0"))
    return path, [f for f in report.findings if f.code.startswith("VL3")]


def test_the_other_side_of_the_mismatch_is_related(tmp_path: Path) -> None:
    path, (found,) = _lint(tmp_path,
                           "vllm serve m --max-num-seqs 512 --max-num-batched-tokens 256\n")
    assert found.code == "VL302"
    assert found.message == ("max_num_batched_tokens (256) is below max_num_seqs (512); "
                             "vLLM 0.32.0 refuses to start")
    assert _text(path, found.span) == "256"
    assert [(_text(path, r.span), r.message) for r in found.related] == [
        ("512", "max_num_seqs is set here")]


def test_every_other_written_setting_is_related(tmp_path: Path) -> None:
    path, (found,) = _lint(tmp_path, "vllm serve m --max-model-len 8192 "
                                     "--long-prefill-token-threshold 16384\n")
    assert found.code == "VL305"
    assert _text(path, found.span) == "16384"
    assert [(_text(path, r.span), r.message) for r in found.related] == [
        ("8192", "max_model_len is set here")]
    path, (found,) = _lint(tmp_path, "vllm serve m --max-num-batched-tokens 100000000 "
                                     "--max-num-seqs 2 --max-model-len 1024\n")
    assert found.code == "VL304"
    assert [r.message for r in found.related] == ["max_num_seqs is set here",
                                                  "max_model_len is set here"]
