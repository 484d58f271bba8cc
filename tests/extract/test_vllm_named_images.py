"""An image vlint does not know runs vLLM's server when its name says vLLM and every option
written after it is one of ``vllm serve``'s (``knowledge.images.runs_server``), in every place
an image gets arguments: a container run, a compose service, a Kubernetes container."""

from __future__ import annotations

import pathlib

import pytest

from tests._support.invocations import args
from vlint.extract import compose, kubernetes, shell
from vlint.knowledge.images import runs_server
from vlint.model import Token
from vlint.syntax.shell import parse_words


def words(*texts: str) -> list[Token]:
    """The words of ``texts`` written as one shell command."""
    if not texts:
        return []
    (command,) = parse_words(" ".join(texts) + "\n")
    return list(command.words)


@pytest.mark.parametrize(("image", "argv"), [
    ("vllm-cpu-env", ["--model", "m", "--dtype", "bfloat16"]),
    ("team-vllm:local", ["--model=m", "--max_model_len", "4096"]),  # `_` read as `-`
    ("$VLLM_IMAGE", ["--model", "m", "-tp", "2"]),
    ("team-vllm:local", ["--model", "m", "-tp2"]),  # a short option with its value joined
    ("registry.example/vllm-cpu:v1", ["Qwen/Qwen3-1.7B", "--dtype", "float16"]),
    ("vllm/vllm-openai:v0.9.1", ["--anything-at-all"]),  # a server image runs it whatever it is
])
def test_runs_the_server(image: str, argv: list[str]) -> None:
    assert runs_server(image, words(*argv))


@pytest.mark.parametrize(("image", "argv"), [
    ("my-vllm", ["--concurrency", "8", "--max-batch-tokens", "4096"]),  # not vLLM's options
    ("my-app", ["--model", "m"]),  # the name does not say vLLM
    ("vllm-tools", ["python", "serve.py", "--port", "8000"]),  # a program, not a model
    ("vllm-tools", ["scripts/run.sh", "--port", "8000"]),
    ("vllm-tools", []),
    ("vllm-tools", ["--model", "m", "-zz9"]),  # no release has a short option -zz
])
def test_does_not_guess(image: str, argv: list[str]) -> None:
    assert not runs_server(image, words(*argv))


def test_a_docker_run_of_a_locally_built_image() -> None:
    text = "docker run -it --rm vllm-cpu-env --model m --dtype bfloat16\n"
    (found,) = shell.extract("run.sh", text)
    assert args(found) == ["--model", "m", "--dtype", "bfloat16"]
    assert found.image == "vllm-cpu-env" and found.target is None
    assert shell.extract("run.sh", "docker run my-vllm --concurrency 8\n") == []


def test_a_compose_service_built_elsewhere(tmp_path: pathlib.Path) -> None:
    text = (
        "services:\n"
        "  llm:\n"
        "    image: vllm-cpu-env:latest\n"
        "    build:\n"
        "      context: ../vllm\n"
        "      dockerfile: docker/Dockerfile.cpu\n"
        "    command: Qwen/Qwen3-1.7B --dtype float16 --max-model-len 16384\n"
    )
    path = tmp_path / "compose.yaml"
    path.write_text(text)
    (found,) = compose.extract(str(path), text)
    assert args(found) == ["Qwen/Qwen3-1.7B", "--dtype", "float16", "--max-model-len", "16384"]
    assert found.target is None


def test_a_kubernetes_container_of_a_vendor_build() -> None:
    text = (
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: llm\n"
        "    image: quay.io/team/vllm-cpu:dev\n    args: [\"--model\", \"m\", \"--port\", \"8001\"]\n"
    )
    (found,) = kubernetes.extract("pod.yaml", text)
    assert args(found) == ["--model", "m", "--port", "8001"]
