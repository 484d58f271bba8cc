"""``vlint rule``, ``vlint rules``, ``vlint show`` and the generated ``docs/rules.md``."""

from __future__ import annotations

from pathlib import Path

import pytest

from vlint.checks import docs
from vlint.checks import MODULES
from vlint.cli import main
from vlint.commands import docs as docs_command

SCRIPT = "vllm serve m \\\n  --max-num-batched-tokens=16k -tp 2 --foo\n"
PYTHON = 'from vllm import LLM\nLLM(model="m", max_num_seqs=4, foo=1)\n'


def test_rule_prints_its_documentation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "vl202"]) == 0
    output = capsys.readouterr().out
    header = "VL202 ambiguous-unit-suffix (warning; fix: safe; since 0.1.0)\n\n"
    assert output == docs.explain("VL202", docs.text_width())
    assert output.startswith(header + "What it does\n    Reports a lower-case unit suffix on a size "
                             "(16k, 2m, 1g).\n")
    assert "\nWhy is this bad?\n    vLLM reads lower-case suffixes" in output


def test_unknown_rule_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "VL999"]) == 2
    assert "unknown rule 'VL999'" in capsys.readouterr().err


def test_rules_lists_every_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == sorted(MODULES)
    (vl202,) = [line for line in lines if line.startswith("VL202")]
    assert vl202.split("  ")[0] == "VL202"
    assert " ambiguous-unit-suffix " in vl202 and " warning " in vl202
    assert vl202.endswith("  Reports a lower-case unit suffix on a size (16k, 2m, 1g).")


def test_docs_rules_md_is_fresh() -> None:
    assert docs_command.RULES_MD.exists(), f"docs/rules.md is missing: run `{docs.REFRESH}`"
    assert docs_command.RULES_MD.read_text("utf-8") == docs.markdown(), (
        f"docs/rules.md is stale: run `{docs.REFRESH}`"
    )


def test_docs_have_an_anchor_per_rule() -> None:
    text = docs.markdown()
    for code in MODULES:
        assert f"\n## {code}\n" in text and f"(#{code.lower()})" in text


@pytest.fixture
def sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("run.sh").write_text(SCRIPT, "utf-8")
    Path("launch.py").write_text(PYTHON, "utf-8")


@pytest.mark.usefixtures("sources")
def test_show_written_settings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "run.sh", "launch.py", "--target-version", "0.32.0"]) == 0
    assert capsys.readouterr().out == (
        "run.sh:1:1: vllm serve, model 'm', vLLM 0.32.0\n"
        "  --max-num-batched-tokens=16k  run.sh:2:28  max_num_batched_tokens = 16000\n"
        "  -tp 2                         run.sh:2:36  tensor_parallel_size = 2\n"
        "  --foo                                      (not set: unknown to this release)\n"
        "launch.py:2:1: LLM(...), model 'm', vLLM 0.32.0\n"
        "  model=\"m\"       launch.py:2:11  model = 'm'\n"
        "  max_num_seqs=4  launch.py:2:29  max_num_seqs = 4\n"
        "  foo=1                           (not set: unknown to this release)\n"
    )


@pytest.mark.usefixtures("sources")
def test_show_all_adds_release_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "run.sh", "--all", "--target-version", "0.32.0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("  --max-num-batched-tokens=16k  run.sh:2:28")
    defaults = [line for line in lines if line.startswith("  (default)")]
    assert defaults and all("  vLLM 0.32.0 default  " in line for line in defaults)
    assert not any(" max_num_batched_tokens = " in line for line in defaults)


@pytest.mark.usefixtures("sources")
def test_show_without_target_says_which_release(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "run.sh"]) == 0
    assert "note: no target release given or pinned" in capsys.readouterr().out
    assert main(["show", "run.sh", "--target-version", "0.1.0"]) == 2
