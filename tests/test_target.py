"""Which releases an invocation is checked against: --target-version, then the image tag, then
the project's pins (lock file, requirements, pyproject.toml), then the newest known release."""

from __future__ import annotations

from pathlib import Path

import pytest

from vlint.engine.lint import lint
from vlint.settings import Settings

SCRIPT = "vllm serve m --max-num-seqs 8\n"
COMPOSE = """services:
  llm:
    image: vllm/vllm-openai:v0.31.0
    command: ["m", "--max-num-seqs", "8"]
"""


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / ".git").mkdir(parents=True)
    for name, text in files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, "utf-8")
    return tmp_path


def _targets(path: Path, target: str | None = None) -> list[str]:
    report = lint([str(path)], Settings(target=target))
    return [str(v) for v in sorted(report.targets)]


def test_requirements_pin(tmp_path: Path) -> None:
    root = _project(tmp_path, {"requirements.txt": "torch\nvllm==0.31.0  # pinned\n",
                               "deploy/run.sh": SCRIPT})
    assert _targets(root / "deploy" / "run.sh") == ["0.31.0"]


def test_requirements_range_checks_each_release(tmp_path: Path) -> None:
    root = _project(tmp_path, {"requirements-serve.txt": "vllm>=0.32,<0.34\n", "run.sh": SCRIPT})
    assert _targets(root / "run.sh") == ["0.32.0", "0.33.0"]


def test_lock_file_beats_requirements(tmp_path: Path) -> None:
    lock = '[[package]]\nname = "vllm"\nversion = "0.32.0"\n'
    root = _project(tmp_path, {"uv.lock": lock, "requirements.txt": "vllm==0.31.0\n",
                               "run.sh": SCRIPT})
    assert _targets(root / "run.sh") == ["0.32.0"]


def test_pyproject_dependency(tmp_path: Path) -> None:
    pyproject = '[project]\nname = "svc"\ndependencies = ["vllm==0.31.0", "click"]\n'
    root = _project(tmp_path, {"pyproject.toml": pyproject, "run.sh": SCRIPT})
    assert _targets(root / "run.sh") == ["0.31.0"]


def test_nearest_folder_wins_and_search_stops_at_the_repository(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("vllm==0.31.0\n", "utf-8")
    root = _project(tmp_path / "repo", {"a/requirements.txt": "vllm==0.32.0\n",
                                        "a/run.sh": SCRIPT, "b/run.sh": SCRIPT})
    assert _targets(root / "a" / "run.sh") == ["0.32.0"]
    report = lint([str(root / "b" / "run.sh")], Settings())
    assert report.defaulted_target  # the pin above the repository root is not the project's


def test_unknown_pin_is_not_checked_against_another_release(tmp_path: Path) -> None:
    # 0.4.0 is a real release older than the catalog's first (0.4.1).
    root = _project(tmp_path, {"requirements.txt": "vllm==0.4.0\n",
                               "run.sh": "vllm serve m --max-num-seqz 8\n"})
    report = lint([str(root / "run.sh")], Settings())
    assert report.findings == []
    assert any("pins vllm==0.4.0" in note for note in report.notes)


def test_image_tag_beats_project_pin_and_the_cli_beats_both(tmp_path: Path) -> None:
    root = _project(tmp_path, {"requirements.txt": "vllm==0.33.0\n",
                               "docker-compose.yml": COMPOSE})
    assert _targets(root / "docker-compose.yml") == ["0.31.0"]
    assert _targets(root / "docker-compose.yml", target="0.32.0") == ["0.32.0"]


def test_no_pin_uses_the_newest_release_and_says_so(tmp_path: Path) -> None:
    root = _project(tmp_path, {"run.sh": SCRIPT})
    report = lint([str(root / "run.sh")], Settings())
    assert report.defaulted_target
    assert report.notes[0].startswith("no target release given or pinned")


def _newest() -> str:
    from vlint.knowledge import catalog

    return str(catalog.newest())


def test_a_target_newer_than_every_known_release_is_checked_as_the_newest(tmp_path: Path) -> None:
    root = _project(tmp_path, {"run.sh": "vllm serve m --max-num-seqz 8\n"})
    report = lint([str(root / "run.sh")], Settings(target="99.0.0"))
    assert [str(v) for v in report.targets] == [_newest()]
    assert "VL101" in {f.code for f in report.findings}
    assert any("99.0.0 is newer than every release" in note for note in report.notes)


def test_a_project_range_above_every_known_release_is_checked_as_the_newest(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path, {"requirements.txt": "vllm>=99.1\n", "run.sh": SCRIPT})
    report = lint([str(root / "run.sh")], Settings())
    assert [str(v) for v in report.targets] == [_newest()]
    assert any("pins vllm>=99.1: vLLM >=99.1 is newer" in note for note in report.notes)


def test_latest_image_tag_means_the_newest_release_even_over_a_project_pin(
    tmp_path: Path,
) -> None:
    for image in ("vllm/vllm-openai:latest", "vllm/vllm-openai"):
        compose = COMPOSE.replace("vllm/vllm-openai:v0.31.0", image)
        root = _project(tmp_path / image.replace("/", "_").replace(":", "_"),
                        {"requirements.txt": "vllm==0.31.0\n", "docker-compose.yml": compose})
        report = lint([str(root / "docker-compose.yml")], Settings())
        assert [str(v) for v in report.targets] == [_newest()], image
        assert any("the image tag means the latest vLLM release" in n for n in report.notes)


def test_a_tag_of_an_image_that_is_not_vllm_is_no_vllm_release(tmp_path: Path) -> None:
    compose = """services:
  llm:
    image: python:3.31.0
    command: ["vllm", "serve", "m", "--max-num-seqs", "8"]
"""
    root = _project(tmp_path, {"requirements.txt": "vllm==0.32.0\n",
                               "docker-compose.yml": compose})
    assert _targets(root / "docker-compose.yml") == ["0.32.0"]


# One rule for a target vlint does not know, from the command line (exit 2, saying why):
# newer than every known release: checked as the newest, with a note (above); inside the known
# range but not a release: the nearest release is named; older than every known release, a range
# with no known release in it, or not a version at all: each says so.
@pytest.mark.parametrize(
    ("target", "says"),
    [
        ("0.12.5", "'0.12.5': not a vLLM release; nearest: 0.12.0 (vlint knows vLLM 0.4.1 to "),
        ("0.3.0", "'0.3.0': older than every release vlint knows (vlint knows vLLM 0.4.1 to "),
        (">=0.1,<0.2", "no release vlint knows is in that range"),
        ("fast", "'fast': neither a release (0.32.0) nor a range (>=0.31,<0.33)"),
    ],
)
def test_an_unknown_target_is_a_usage_error_that_says_why(
    target: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vlint.cli import main

    (tmp_path / "run.sh").write_text("vllm serve m\n")
    assert main(["--target-version", target, str(tmp_path / "run.sh")]) == 2
    assert says in capsys.readouterr().err
