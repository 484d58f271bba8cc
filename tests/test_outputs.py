"""The terminal format's automatic choice and extra ``--output FORMAT:PATH`` files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vlint.cli import main
from vlint.render.outputs import terminal_format, write_atomically

SCRIPT = "vllm serve m --max-num-batched-tokens 16k\n"


@pytest.fixture
def script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = Path("run.sh")
    path.write_text(SCRIPT, "utf-8")
    return path


def test_github_actions_chooses_annotations(
    script: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert main([str(script), "--target-version", "0.32.0"]) == 1
    assert capsys.readouterr().out.startswith("::warning file=run.sh,line=1,col=39,")
    assert main([str(script), "--target-version", "0.32.0", "--output-format", "concise"]) == 1
    assert capsys.readouterr().out.startswith("run.sh:1:39: VL202 ")


def test_terminal_default() -> None:
    assert terminal_format(None, {}) == "full"
    assert terminal_format(None, {"GITHUB_ACTIONS": "false"}) == "full"
    assert terminal_format(None, {"GITHUB_ACTIONS": "true"}) == "github"
    assert terminal_format("json", {"GITHUB_ACTIONS": "true"}) == "json"


def test_several_outputs_in_one_run(script: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Path("out").mkdir()  # vlint creates no folder (a missing one is a usage error)
    code = main([
        str(script), "--target-version", "0.32.0", "--output-format", "concise",
        "--output", "sarif:out/vlint.sarif", "--output", "json:vlint.json",
    ])
    assert code == 1
    assert capsys.readouterr().out.startswith("run.sh:1:39: VL202 ")
    sarif = json.loads(Path("out/vlint.sarif").read_text("utf-8"))
    assert sarif["runs"][0]["results"][0]["ruleId"] == "VL202"
    assert json.loads(Path("vlint.json").read_text("utf-8"))["findings"][0]["code"] == "VL202"
    assert sorted(p.name for p in Path("out").iterdir()) == ["vlint.sarif"]


@pytest.mark.parametrize("spec", ["sarif", "xml:out.xml", "sarif:"])
def test_bad_output_is_a_usage_error(
    script: Path, spec: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(script), "--output", spec]) == 2
    assert "FORMAT:PATH" in capsys.readouterr().err


def test_atomic_write_replaces_whole_and_leaves_nothing_behind(tmp_path: Path) -> None:
    target = tmp_path / "report.sarif"
    target.write_text("old", "utf-8")
    write_atomically(target, "new\n")
    assert target.read_text("utf-8") == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.sarif"]
