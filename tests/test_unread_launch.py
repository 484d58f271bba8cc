"""Never silent (issue 15): VL004 names the launches vlint did not read, and the summary counts
the launches it did read, by kind."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests._support.files import write_tree
from vlint.checks.unread_launch import MAX_PER_FILE, unread
from vlint.cli import main
from vlint.extract import extractor
from vlint.model import Pos, Span

UNREAD_PYTHON = 'import subprocess\nCOMMAND = "vllm serve my-model --swap-space 4"\nstart_server(COMMAND)\n'


def _unread(kind: str, text: str, path: str = "f") -> list[tuple[Span, str]]:
    invocations = extractor(kind).extract(path, text)
    return [(f.span, f.message) for f in unread(path, kind, text, invocations)]


def test_a_string_vlint_cannot_follow_is_named_at_the_mention() -> None:
    ((span, message),) = _unread("python", UNREAD_PYTHON, "a.py")
    assert span == Span(Pos(2, 12), Pos(2, 22))
    assert message == "'vllm serve' here is a vLLM launch vlint could not read: it was not checked"


def test_a_launch_read_is_not_named() -> None:
    assert _unread("python", 'import os\nos.system("vllm serve my-model --port 1")\n', "a.py") == []
    assert _unread("shell", "vllm serve my-model \\\n  --port 1\n") == []


def test_the_lines_of_a_read_launch_cover_it_through_continuations() -> None:
    text = "vllm serve m \\\n  --served-model-name 'vllm serve' \\\n  --port 1\n"
    assert _unread("shell", text) == []


def test_what_is_not_a_launch_is_not_named() -> None:
    text = (
        "#!/bin/sh\n"
        "# vllm serve my-model\n"
        "vllm serve --help\n"
        "vllm serve -h\n"
        "echo \"then: vllm serve my-model\"\n"
        "pip install vllm\n"
        "vllm --version\n"
        "python -c 'import vllm'\n"
        "docker pull vllm/vllm-openai:v0.32.0\n"
        "singularity pull docker://vllm/vllm-openai:v0.32.0\n"
        "docker tag vllm/vllm-openai:v0.32.0 mine:deploy\n"
        "docker run --entrypoint /bin/bash -it vllm/vllm-openai:v0.32.0\n"
    )
    assert _unread("shell", text) == []


def test_markdown_counts_only_what_is_fenced() -> None:
    text = (
        "Start it with `vllm serve my-model`, or vllm serve in prose.\n"
        "\n"
        "```text\n"
        "vllm serve my-model --swap-space 4\n"
        "```\n"
        "\n"
        "~~~~text\n"
        "```\n"
        "python -m vllm.entrypoints.openai.api_server --model m\n"
        "~~~~\n"
    )
    found = _unread("markdown", text, "README.md")
    assert [span.start for span, _ in found] == [Pos(4, 1), Pos(9, 11)]


def test_a_transcripts_output_lines_are_not_launches() -> None:
    text = (
        "```console\n"
        "$ ./start.sh\n"
        "INFO: started with vllm serve my-model --port 8000\n"
        "$ xterm -e \"vllm serve my-model\"\n"
        "```\n"
    )
    assert [span.start for span, _ in _unread("markdown", text, "README.md")] == [Pos(4, 13)]


def test_a_grep_pattern_is_not_a_launch() -> None:
    assert _unread("shell", 'grep -r "vllm serve" docs/\n') == []


def test_a_systemd_command_reset_by_an_empty_exec_start_is_not_a_launch() -> None:
    text = (
        "[Service]\n"
        "ExecStart=/usr/bin/vllm serve old-model\n"
        "ExecStart=\n"
        "ExecStart=/usr/bin/xterm -hold -e \"vllm serve my-model\"\n"
    )
    assert [span.start for span, _ in _unread("systemd", text, "v.service")] == [Pos(4, 36)]


def test_an_engine_call_pattern_is_left_to_the_python_extractor() -> None:
    # LLM(...) is vLLM's only through an import the extractor follows; here it is a local class.
    text = "import vllm\n\n\nclass LLM:\n    pass\n\n\nLLM()\n"
    assert _unread("python", text, "a.py") == []


def test_python_calls_count_only_where_vllm_is_imported() -> None:
    text = "from vllm import AsyncLLMEngine\nengine = AsyncLLMEngine.from_engine_args(make())\n"
    ((span, message),) = _unread("python", text, "a.py")
    assert span == Span(Pos(2, 10), Pos(2, 41))
    assert "'AsyncLLMEngine.from_engine_args(...)'" in message
    unimported = "# not vllm\nengine = AsyncLLMEngine.from_engine_args(x)\n"
    assert _unread("python", unimported, "a.py") == []


def test_an_image_counts_only_where_no_launch_was_read() -> None:
    unread_image = (
        "services:\n  vllm:\n    image: vllm/vllm-openai:v0.32.0\n    entrypoint: [/start.sh]\n"
    )
    ((span, message),) = _unread("compose", unread_image, "docker-compose.yml")
    assert span == Span(Pos(3, 12), Pos(3, 36))
    assert message.startswith("'vllm/vllm-openai:v0.32.0' image with no vLLM command")
    read_beside = unread_image + (
        "  other:\n    image: vllm/vllm-openai:v0.32.0\n    command: [my-model]\n"
    )
    assert _unread("compose", read_beside, "docker-compose.yml") == []


def test_at_most_a_few_per_file() -> None:
    text = "import subprocess\n" + "".join(f'C{i} = "vllm serve m{i}"\n' for i in range(20))
    assert len(_unread("python", text, "a.py")) == MAX_PER_FILE


def test_linear_on_a_long_line_of_mentions() -> None:
    text = "x = '" + "vllm/vllm-openai docker pull " * 40_000 + "'\n"
    start = time.perf_counter()
    _unread("python", "import subprocess\n" + text, "a.py")
    assert time.perf_counter() - start < 5  # a quadratic scan takes minutes here


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    (tmp_path / ".git").mkdir()
    write_tree(tmp_path, {
        "serve.py": UNREAD_PYTHON,
        "run.sh": "vllm serve m\nvllm serve n\n",
        "docker-compose.yml": "services:\n  v:\n    image: vllm/vllm-openai:v0.33.0\n"
                              "    command: [m, --host, 127.0.0.1]\n",
    })
    return tmp_path


def test_an_unread_launch_is_not_all_checks_passed(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve.py", "--target-version", "0.33.0"]) == 0  # info does not fail a run
    out = capsys.readouterr().out
    assert "serve.py:2:12: VL004 [info]" in out
    assert "All checks passed" not in out


def test_ignore_turns_it_off(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["serve.py", "--ignore", "VL004", "--target-version", "0.33.0"])
    assert "All checks passed" in capsys.readouterr().out


def test_the_summary_counts_launches_by_kind(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main([".", "--target-version", "0.33.0"])
    out = capsys.readouterr().out
    assert "vLLM invocations by file kind: 2 shell, 1 compose." in out
    main([".", "--target-version", "0.33.0", "--output-format", "json"])
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert summary["invocations"] == 3
    assert summary["invocations_by_kind"] == {"shell": 2, "compose": 1}
    main([".", "--target-version", "0.33.0", "--output-format", "sarif"])
    properties = json.loads(capsys.readouterr().out)["runs"][0]["properties"]
    assert properties["invocationsByKind"] == {"shell": 2, "compose": 1}


def test_the_count_is_the_same_in_parallel(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main([".", "--target-version", "0.33.0", "--output-format", "json", "--jobs", "2"])
    assert json.loads(capsys.readouterr().out)["summary"]["invocations_by_kind"] == {
        "shell": 2, "compose": 1}


def test_a_read_keyword_launch_covers_its_whole_statement_and_its_dict() -> None:
    text = (
        "from ray.serve.llm import LLMConfig\n"
        "engine_kwargs = dict(\n"
        "    max_model_len=8192,\n"
        ")\n"
        "config = LLMConfig(\n"
        "    model_loading_config=dict(model_id='m', model_source='org/m'),\n"
        "    engine_kwargs=engine_kwargs,\n"
        ")\n"
    )
    assert _unread("python", text, "a.py") == []


def test_a_command_string_kept_as_data_is_no_launch() -> None:
    text = (
        "def describe(model):\n"
        "    return {'equivalent_command': f'vllm serve {model} --tensor-parallel-size 2'}\n"
    )
    assert _unread("python", text, "a.py") == []
    # The same string handed to an unknown function may start a server: it is named.
    called = "def go(model):\n    start_server(f'vllm serve {model} --tensor-parallel-size 2')\n"
    ((span, _),) = _unread("python", called, "a.py")
    assert span.start.line == 2
