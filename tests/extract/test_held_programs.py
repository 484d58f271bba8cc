"""vLLM started by a program held in a variable (``$(VLLM) serve``), Makefile variables defined
by other variables, launches anchored where the command is written, and an image's entry point
read per release when its tag names none."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._support.files import write_tree
from tests._support.invocations import args
from tests.extract.test_vllm_named_images import words
from vlint.engine.lint import lint
from vlint.extract import makefile, shell
from vlint.knowledge.images import runs_server, vllm_arguments
from vlint.model import Pos
from vlint.settings import Settings
from vlint.syntax.makefile import read

MAKEFILE = """\
VENV ?= .venv
VLLM := $(VENV)/bin/vllm
MODEL = org/m
serve:
\t@mkdir -p logs
\tCUDA_VISIBLE_DEVICES=0 \\
\t$(VLLM) serve $(MODEL) \\
\t  --max-model-len 16k
"""


def test_a_variable_defined_by_variables_is_expanded() -> None:
    variables = read(MAKEFILE).variables
    assert variables["VLLM"].text == ".venv/bin/vllm"
    # Each character at its place: `.venv` in VENV's assignment, `/bin/vllm` in VLLM's.
    assert variables["VLLM"].positions[0] == Pos(1, 9)
    assert variables["VLLM"].positions[5] == Pos(2, 16)


@pytest.mark.parametrize("value", ["$(shell which vllm)", "$(UNKNOWN)/bin/vllm", "$$HOME/vllm"])
def test_a_variable_referring_to_what_is_not_known_stays_unknown(value: str) -> None:
    assert "VLLM" not in read(f"VLLM := {value}\n").variables


def test_a_chain_of_definitions_is_followed_a_bounded_depth() -> None:
    chain = "V0 = x\n" + "".join(f"V{i} = $(V{i - 1})y\n" for i in range(1, 20))
    variables = read(chain).variables
    assert variables["V8"].text == "x" + "y" * 8
    assert "V19" not in variables


def test_the_launch_is_anchored_at_its_recipe_line() -> None:
    (launch,) = makefile.extract("Makefile", MAKEFILE)
    assert args(launch) == ["org/m", "--max-model-len", "16k"]
    # The program's characters sit in the assignments; the launch is where it is written.
    assert launch.anchor.start.line == 7


def test_a_program_held_in_a_variable_the_makefile_cannot_resolve() -> None:
    text = MAKEFILE.replace("VLLM := $(VENV)/bin/vllm\n", "-include .env\n")
    (launch,) = makefile.extract("Makefile", text)
    assert args(launch) == ["$(MODEL)", "--max-model-len", "16k"]
    assert launch.anchor.start == Pos(7, 2)


@pytest.mark.parametrize(("script", "found"), [
    ('"$VLLM_BIN" serve "$MODEL" --dtype auto\n', True),  # the name says vLLM
    ("$BIN serve m --max-model-len 4096 --gpu-memory-utilization 0.9\n", True),
    ("$OLLAMA serve\n", False),
    ("$BIN serve --port 8000\n", False),  # nothing unmistakably vLLM's
    ("$VLLM_BIN serve --concurrency 8\n", False),  # not vLLM's option
])
def test_a_held_program_followed_by_serve(script: str, found: bool) -> None:
    assert bool(shell.extract("run.sh", script)) is found


@pytest.mark.parametrize(("argv", "expected"), [
    (["--model", "m", "--max-model-len", "4096", "--tensor-parallel-size", "2"], True),
    (["--model=$MODEL", "--max-num-seqs", "8", "--trust-remote-code"], True),
    (["--model", "m", "--port", "8000"], False),  # generic names
    (["--model-path", "m", "--max-model-len", "4096", "--tensor-parallel-size", "2"], False),
    (["python", "app.py", "--max-model-len", "4096", "--tensor-parallel-size", "2"], False),
])
def test_arguments_unmistakably_vllms(argv: list[str], expected: bool) -> None:
    assert vllm_arguments(words(*argv)) is expected
    assert runs_server("ghcr.io/team/llm-server:1.2", words(*argv)) is expected


SCRIPT = """\
IMAGE=vllm/vllm-openai:v0.9.2
if [ -n "$CPU" ]; then IMAGE=team/llm-cpu:dev; fi
docker run --gpus all $IMAGE --model org/m --max-model-len 4096 --max-num-seqs 8
"""


def test_an_image_whose_tag_names_no_release_runs_each_releases_entry_point(
    tmp_path: Path,
) -> None:
    write_tree(tmp_path, {".git/HEAD": "", "run.sh": SCRIPT})
    (launch,) = shell.extract(str(tmp_path / "run.sh"), SCRIPT)
    assert launch.target is None and launch.entry_from_image
    # Up to 0.11.0 the image runs the API server, whose --model is its own; `vllm serve`
    # there refuses --model (VL108).
    report = lint([str(tmp_path / "run.sh")], Settings(target="0.8.5"))
    assert "VL108" not in {f.code for f in report.findings}
    write_tree(tmp_path, {"run.sh": "vllm serve --model org/m --max-model-len 4096\n"})
    report = lint([str(tmp_path / "run.sh")], Settings(target="0.8.5"))
    assert "VL108" in {f.code for f in report.findings}


def test_a_value_of_many_references_to_a_large_one_is_not_built() -> None:
    big = "x" * 40_000
    text = f"V0 = {big}\nV1 = {'$(V0)' * 1000}\nV2 = $(V0)\n"
    variables = read(text).variables
    assert "V1" not in variables and variables["V2"].text == big
