"""VL407 and the rules it stands in for: a container option after the image gives one finding
(not VL101 unknown-flag, VL105 abbreviated-flag or VL201 invalid-value as well), and the other
rules still see everything else."""

from __future__ import annotations

from pathlib import Path

import pytest

from vlint.engine.lint import lint
from vlint.settings import Settings


def _codes(tmp_path: Path, text: str, target: str = "0.32.0") -> list[tuple[str, int, str]]:
    path = tmp_path / "run.sh"
    path.write_text(text, "utf-8")
    report = lint([str(path)], Settings(target=target))
    return sorted((f.code, f.span.start.column, text[f.span.start.column - 1:f.span.end.column - 1])
                  for f in report.findings if f.code != "VL504")


@pytest.mark.parametrize(("written", "name"), [
    ("--privileged", "--privileged"),   # unknown to vLLM: VL101 would report it
    ("-p 8000:8000", "-p"),             # vLLM's '-pp' by abbreviation: VL105 and VL201 would
    ("--gpus all", "--gpus"),
    ("-it", "-it"),
    ("-e HF_TOKEN=x", "-e"),
])
def test_one_finding_for_one_misplaced_option(tmp_path: Path, written: str, name: str) -> None:
    text = f"docker run vllm/vllm-openai:v0.32.0 --model m {written}\n"
    assert _codes(tmp_path, text) == [("VL407", 47, name)]


def test_the_value_of_an_abbreviated_option_is_no_positional_model(tmp_path: Path) -> None:
    # The 0.9.1 image runs the API server module, whose positional model VL403 watches.
    text = "docker run vllm/vllm-openai:v0.9.1 --model m -p 8000:8000\n"
    assert _codes(tmp_path, text, "0.33.0") == [("VL407", 46, "-p")]


def test_a_flag_vllm_once_had_is_left_to_the_flag_rules(tmp_path: Path) -> None:
    # '--device auto' is vLLM's own (until 0.9.2): not mistaken for docker's '--device'.
    text = "docker run vllm/vllm-openai:v0.32.0 --model m --device auto\n"
    codes = [code for code, _, _ in _codes(tmp_path, text, "0.33.0")]
    assert "VL105" in codes and "VL407" not in codes


def test_other_unknown_flags_are_still_unknown(tmp_path: Path) -> None:
    text = "docker run vllm/vllm-openai:v0.32.0 --model m --max-num-seq-total 8 --rm\n"
    assert _codes(tmp_path, text) == [("VL101", 47, "--max-num-seq-total 8"), ("VL407", 69, "--rm")]


def test_without_a_container_the_same_word_is_unknown_flag(tmp_path: Path) -> None:
    assert _codes(tmp_path, "vllm serve m --privileged\n") == [("VL101", 14, "--privileged")]
