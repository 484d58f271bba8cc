"""The programs that launch vLLM's servers (``vlint.extract.argv``): the CLI module, the OpenAI
API server module and the demo server module, under any interpreter name, and what is
deliberately not read as one."""

from __future__ import annotations

import pytest

from vlint.extract.shell import extract
from vlint.model import Invocation, Pos, Span
from tests._support.invocations import columns, only


@pytest.mark.parametrize(
    ("line", "entry", "anchor"),
    [
        ("python -m vllm.entrypoints.cli.main serve m --port 1", "serve",
         "python -m vllm.entrypoints.cli.main serve"),
        ("python3.12 -m vllm.entrypoints.cli.main serve m --port 1", "serve",
         "python3.12 -m vllm.entrypoints.cli.main serve"),
        ("/opt/venv/bin/python3 -m vllm.entrypoints.cli.main serve m --port 1", "serve",
         "/opt/venv/bin/python3 -m vllm.entrypoints.cli.main serve"),
        ("python -m vllm.entrypoints.openai.api_server m --port 1", "api_server",
         "python -m vllm.entrypoints.openai.api_server"),
        ("python3 -u -X dev -m vllm.entrypoints.openai.api_server m --port 1", "api_server",
         "python3 -u -X dev -m vllm.entrypoints.openai.api_server"),
        ("python -mvllm.entrypoints.openai.api_server m --port 1", "api_server",
         "python -mvllm.entrypoints.openai.api_server"),
        # vLLM's demo server: its own entry (its own parser per release, VL408 where gone).
        ("python -m vllm.entrypoints.api_server m --port 1", "demo_server",
         "python -m vllm.entrypoints.api_server"),
        # An interpreter held in a variable, and uv's own -m.
        ('"$PY" -m vllm.entrypoints.openai.api_server m --port 1', "api_server",
         '$PY" -m vllm.entrypoints.openai.api_server'),
        ("${PYTHON:-python3} -m vllm.entrypoints.cli.main serve m --port 1", "serve",
         "${PYTHON:-python3} -m vllm.entrypoints.cli.main serve"),
        ("uv run -m vllm.entrypoints.openai.api_server m --port 1", "api_server",
         "vllm.entrypoints.openai.api_server"),
        ("uv run --module vllm.entrypoints.cli.main serve m --port 1", "serve",
         "vllm.entrypoints.cli.main serve"),
    ],
)
def test_server_modules(line: str, entry: str, anchor: str) -> None:
    invocation = only(line)
    assert invocation.entry == entry
    # From the interpreter (inside its quotes), or uv's module word, to the module or `serve`.
    assert invocation.anchor == columns(line, anchor)
    assert [token.text for token in invocation.args] == ["m", "--port", "1"]
    model = line.index(" m ") + 2
    assert invocation.args[0].span == Span(Pos(1, model), Pos(1, model + 1))


@pytest.mark.parametrize(
    "line",
    [
        "python -m vllm.entrypoints.cli.main bench serve --model m",
        "python -m vllm.entrypoints.openai.cli_args",
        "python -m pip install vllm",
        "python -c 'import vllm' -m vllm.entrypoints.openai.api_server",
        "python serve.py -m vllm.entrypoints.openai.api_server",
        "$PY -m pytest",
        # NVIDIA Dynamo's worker reads its own options before vLLM's engine arguments: read as
        # `vllm serve` its own flags would be false errors (see extract.argv._module_launch).
        "python -m dynamo.vllm --model m --disaggregation-mode prefill",
        "python3 -m dynamo.frontend --http-port 8000",
    ],
)
def test_not_a_server_launch(line: str) -> None:
    assert extract("run.sh", line + "\n") == []
