"""``vlint show`` reads, extracts and chooses releases through the engine, as ``vlint check``.

Regression: show had its own read-and-extract loop, and a file that does not parse crashed it
with a traceback, where ``check`` reports VL002 unparsable-file and goes on.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._support.files import write_tree
from vlint.cli import main

BROKEN = 'services:\n  vllm:\n    image: vllm/vllm-openai:v0.32.0\n    command: ["--model", "m"\n'
GOOD = "vllm serve m --max-num-seqs 8\n"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    write_tree(tmp_path, {"docker-compose.yml": BROKEN, "serve.sh": GOOD})
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _check_vl002(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["check", "--isolated", "--output-format", "json", "docker-compose.yml"]) == 1
    (finding,) = json.loads(capsys.readouterr().out)["findings"]
    assert finding["code"] == "VL002"
    return dict(finding)


@pytest.mark.usefixtures("tree")
def test_show_reports_an_unparsable_file_as_check_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    expected = _check_vl002(capsys)
    assert main(["show", "--isolated", "--target-version", "0.32.0", "."]) == 1
    out = capsys.readouterr().out
    assert "Traceback" not in out
    where = (f"docker-compose.yml:{expected['line']}:{expected['column']}: VL002 "
             f"[{expected['severity']}]")
    (line,) = [text for text in out.splitlines() if text.startswith(where)]
    assert str(expected["message"]) in line
    # The other file is shown as before.
    assert "serve.sh:1:1: vllm serve, model 'm', vLLM 0.32.0" in out
    assert "max_num_seqs = 8" in out


@pytest.mark.usefixtures("tree")
def test_show_json_lists_the_unparsable_file(capsys: pytest.CaptureFixture[str]) -> None:
    expected = _check_vl002(capsys)
    assert main(["show", "--isolated", "--format", "json", "--target-version", "0.32.0",
                 "."]) == 1
    document = json.loads(capsys.readouterr().out)
    assert [f["code"] for f in document["findings"]] == ["VL002"]
    assert document["findings"][0] == expected
    assert [row["path"] for row in document["invocations"]] == ["serve.sh"]


@pytest.mark.usefixtures("tree")
def test_show_chooses_the_releases_check_chooses(capsys: pytest.CaptureFixture[str]) -> None:
    Path("Dockerfile").write_text(
        'FROM vllm/vllm-openai:v0.31.0\nCMD ["--model", "m", "--max-num-seqs", "4"]\n', "utf-8")
    assert main(["show", "--isolated", "Dockerfile"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Dockerfile:")
    assert out.splitlines()[0].endswith("vLLM 0.31.0")


@pytest.mark.usefixtures("tree")
def test_show_without_a_target_says_what_it_shows(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "--isolated", "serve.sh"]) == 0
    notes = [line for line in capsys.readouterr().out.splitlines() if line.startswith("note:")]
    assert notes[0].startswith("note: no target release given or pinned: showing the newest")
    assert not any("checked against the newest" in note for note in notes)
