from __future__ import annotations

import pytest

from vlint.discover import kind_of
from vlint.extract.taskfile import extract
from vlint.model import Invocation, LineIndex, Pos, Span, Token


def written(text: str, span: Span) -> str:
    index = LineIndex(text)
    return text[index.offset(span.start) : index.offset(span.end)]


def arg(invocation: Invocation, text: str) -> Token:
    return next(token for token in invocation.args if token.text == text)


TASKS = b"version: '3'\ntasks:\n  serve: vllm serve m\n"


@pytest.mark.parametrize("name", ["Taskfile.yml", "taskfile.yaml", "Taskfile.dist.yml",
                                  "taskfile.dist.yaml", "serve.Taskfile.yml"])
def test_taskfile_names(name: str) -> None:
    assert kind_of(name, TASKS) == "taskfile"


def test_commands_in_every_shape_with_templates_and_env() -> None:
    text = ("version: '3'\n"
            "env:\n"
            "  HF_HOME: /models\n"
            "  VLLM_API_KEY: old\n"
            "tasks:\n"
            "  serve:\n"
            "    env:\n"
            "      VLLM_API_KEY: sk-1\n"
            "      TOKEN: {sh: cat token}\n"
            "    cmds:\n"
            "      - |\n"
            "        vllm serve {{.MODEL}} \\\n"
            "          --port 8000\n"
            "      - cmd: vllm serve m --max-num-seqs 4\n"
            "      - defer: vllm serve m2\n"
            "      - task: other\n"
            "  quick: vllm serve q '{{.CLI_ARGS}}'\n"
            "  listed:\n"
            "    - pip install vllm\n"
            "    - vllm serve m3\n")
    found = extract("Taskfile.yml", text)
    assert [(i.origin, i.anchor.start) for i in found] == [
        (("taskfile", "shell"), Pos(12, 9)), (("taskfile", "shell"), Pos(14, 14)),
        (("taskfile", "shell"), Pos(15, 16)), (("taskfile", "shell"), Pos(17, 10)),
        (("taskfile", "shell"), Pos(20, 7))]
    block = found[0]
    model = arg(block, "{{.MODEL}}")
    assert not model.literal and written(text, model.span) == "{{.MODEL}}"
    assert arg(block, "--port").span == Span(Pos(13, 11), Pos(13, 17))
    env = block.deployment.env
    assert {n: (v.value.text, v.value.literal) for n, v in env.items()} == {
        "HF_HOME": ("/models", True), "VLLM_API_KEY": ("sk-1", True),
        "TOKEN": ("cat token", False)}
    assert env["VLLM_API_KEY"].value.span == Span(Pos(8, 21), Pos(8, 25))
    quick = found[3]
    assert not quick.args[-1].literal
    assert set(quick.deployment.env) == {"HF_HOME", "VLLM_API_KEY"}


def test_dotenv_makes_the_environment_incomplete() -> None:
    text = "version: '3'\ndotenv: ['.env']\ntasks:\n  serve:\n    cmd: vllm serve m\n"
    (found,) = extract("Taskfile.yml", text)
    assert not found.deployment.env_complete


def test_folded_block_positions() -> None:
    text = ("tasks:\n  serve:\n    cmds:\n      - >-\n        vllm serve m\n"
            "        --max-num-seqs 8\n")
    (found,) = extract("Taskfile.yml", text)
    assert arg(found, "--max-num-seqs").span == Span(Pos(6, 9), Pos(6, 23))
