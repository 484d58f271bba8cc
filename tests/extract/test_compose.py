from __future__ import annotations

import pathlib

import pytest

from tests._support.files import write_tree
from vlint.errors import Unparsable

from vlint.syntax import yamlpos
from vlint.extract.compose import extract
from vlint.model import BORROWED, Invocation, Pos, Span, Token

CORPUS = pathlib.Path("/work/shared/corpus/real/a_compose")


def one(text: str, tmp_path: pathlib.Path, dotenv: str | None = None) -> Invocation:
    found = run(text, tmp_path, dotenv)
    assert len(found) == 1, found
    return found[0]


def run(text: str, tmp_path: pathlib.Path, dotenv: str | None = None) -> list[Invocation]:
    if dotenv is not None:
        (tmp_path / ".env").write_text(dotenv)
    path = tmp_path / "compose.yaml"
    path.write_text(text)
    return extract(str(path), text)


def arg(invocation: Invocation, text: str) -> Token:
    return next(token for token in invocation.args if token.text == text)


def texts(invocation: Invocation) -> list[str]:
    return [token.text for token in invocation.args]


def test_list_command_with_quoted_items(tmp_path: pathlib.Path) -> None:
    text = (
        "services:\n"
        "  llm:\n"
        "    image: vllm/vllm-openai:v0.10.1\n"
        "    command:\n"
        "      - --max-num-seqs\n"
        '      - "8"\n'
        "      - '--dtype=half'\n"
        '      - "a\\"b"\n'
    )
    invocation = one(text, tmp_path)
    assert texts(invocation) == ["--max-num-seqs", "8", "--dtype=half", 'a"b']
    assert invocation.target == "0.10.1"
    assert invocation.image == "vllm/vllm-openai:v0.10.1"
    assert invocation.kind == "compose"
    assert arg(invocation, "--max-num-seqs").span == Span(Pos(5, 9), Pos(5, 23))
    assert arg(invocation, "8").span == Span(Pos(6, 10), Pos(6, 11))
    assert arg(invocation, "--dtype=half").sub_span(8) == Span(Pos(7, 18), Pos(7, 22))
    escaped = arg(invocation, 'a"b')
    assert escaped.positions == (Pos(8, 10), Pos(8, 11), Pos(8, 13), Pos(8, 14))


def test_flow_list_command(tmp_path: pathlib.Path) -> None:
    text = 'services:\n  llm:\n    image: vllm/vllm-openai\n    command: ["--port", "8000"]\n'
    invocation = one(text, tmp_path)
    assert arg(invocation, "8000").span == Span(Pos(4, 26), Pos(4, 30))


def test_string_command_on_vllm_image_is_server_arguments(tmp_path: pathlib.Path) -> None:
    text = (
        "services:\n"
        "  llm:\n"
        "    image: vllm/vllm-openai:v0.8.5\n"
        "    command: --model m --max-num-seqs 8 --chat-template 'a b'\n"
    )
    invocation = one(text, tmp_path)
    assert texts(invocation) == ["--model", "m", "--max-num-seqs", "8", "--chat-template", "a b"]
    assert arg(invocation, "--max-num-seqs").span == Span(Pos(4, 24), Pos(4, 38))
    assert arg(invocation, "a b").positions[0] == Pos(4, 58)


def test_string_command_without_vllm_image_is_shell(tmp_path: pathlib.Path) -> None:
    text = (
        "services:\n"
        "  llm:\n"
        "    image: python:3.11\n"
        '    command: "pip install x && vllm serve m --max-num-seqs 8"\n'
    )
    invocation = one(text, tmp_path)
    assert invocation.entry == "serve"
    assert invocation.kind == "compose"
    assert arg(invocation, "--max-num-seqs").span == Span(Pos(4, 45), Pos(4, 59))


def test_literal_block_command_is_shell(tmp_path: pathlib.Path) -> None:
    text = (
        "services:\n"
        "  llm:\n"
        "    image: nvidia/cuda\n"
        "    entrypoint: [bash, -c]\n"
        "    command:\n"
        "      - |\n"
        "        echo start\n"
        "        vllm serve m \\\n"
        "          --max-num-seqs 8\n"
    )
    invocation = one(text, tmp_path)
    assert arg(invocation, "--max-num-seqs").span == Span(Pos(9, 11), Pos(9, 25))
    assert arg(invocation, "8").span == Span(Pos(9, 26), Pos(9, 27))


def test_folded_command(tmp_path: pathlib.Path) -> None:
    text = (
        "services:\n"
        "  llm:\n"
        "    image: vllm/vllm-openai:latest\n"
        "    command: >\n"
        "      --model m\n"
        "      --max-num-batched-tokens 16k\n"
        "\n"
        "      --dtype half\n"
    )
    invocation = one(text, tmp_path)
    assert texts(invocation) == [
        "--model", "m", "--max-num-batched-tokens", "16k", "--dtype", "half"
    ]
    assert arg(invocation, "--max-num-batched-tokens").span == Span(Pos(6, 7), Pos(6, 31))
    assert arg(invocation, "16k").span == Span(Pos(6, 32), Pos(6, 35))
    assert arg(invocation, "half").span == Span(Pos(8, 15), Pos(8, 19))
    assert invocation.target == "latest"  # the newest release, with a note (lint._releases_for)


def test_multiline_plain_command(tmp_path: pathlib.Path) -> None:
    text = (
        "services:\n"
        "  llm:\n"
        "    image: vllm/vllm-openai\n"
        "    command: --model m\n"
        "      --max-num-seqs 8\n"
    )
    invocation = one(text, tmp_path)
    assert arg(invocation, "--max-num-seqs").span == Span(Pos(5, 7), Pos(5, 21))


COMPOSE_DEFAULT = (
    "services:\n"
    "  llm:\n"
    "    image: vllm/vllm-openai\n"
    "    command:\n"
    "      - --max-num-seqs=${SEQS:-8}\n"
    "      - --model\n"
    "      - $MODEL\n"
    "      - --price=$$5\n"
)


def test_interpolation_default_without_dotenv(tmp_path: pathlib.Path) -> None:
    invocation = one(COMPOSE_DEFAULT, tmp_path)
    seqs = invocation.args[0]
    assert seqs.text == "--max-num-seqs=8"
    assert seqs.literal
    assert seqs.sub_span(15) == Span(Pos(5, 24), Pos(5, 34))
    model = invocation.args[2]
    assert model.text == "$MODEL"
    assert not model.literal
    assert model.span == Span(Pos(7, 9), Pos(7, 15))
    price = invocation.args[3]
    assert price.text == "--price=$5"
    assert price.literal
    assert price.positions[8:] == (Pos(8, 17), Pos(8, 19), Pos(8, 20))


def test_interpolation_from_dotenv(tmp_path: pathlib.Path) -> None:
    invocation = one(COMPOSE_DEFAULT, tmp_path, dotenv="SEQS=16\nMODEL=org/model\n")
    seqs = invocation.args[0]
    assert seqs.text == "--max-num-seqs=16"
    assert seqs.sub_span(15) == Span(Pos(5, 24), Pos(5, 34))
    assert seqs.positions[15:] == (Pos(5, 24), Pos(5, 24), Pos(5, 34))
    model = invocation.args[2]
    assert (model.text, model.literal) == ("org/model", True)
    assert model.span == Span(Pos(7, 9), Pos(7, 15))


def test_interpolation_in_shell_string(tmp_path: pathlib.Path) -> None:
    text = (
        "services:\n"
        "  llm:\n"
        "    image: ubuntu\n"
        "    command: vllm serve ${MODEL} --max-num-seqs ${SEQS:-8}\n"
    )
    invocation = one(text, tmp_path, dotenv="MODEL=org/m\n")
    assert texts(invocation) == ["org/m", "--max-num-seqs", "8"]
    assert arg(invocation, "org/m").span == Span(Pos(4, 25), Pos(4, 33))
    assert arg(invocation, "8").span == Span(Pos(4, 49), Pos(4, 59))


def test_unresolved_in_shell_string_is_not_literal(tmp_path: pathlib.Path) -> None:
    text = "services:\n  llm:\n    image: vllm/vllm-openai\n    command: --model ${MODEL}\n"
    invocation = one(text, tmp_path)
    assert not arg(invocation, "${MODEL}").literal


def test_nested_default(tmp_path: pathlib.Path) -> None:
    text = "services:\n  llm:\n    image: vllm/vllm-openai\n    command: [\"${A:-${B:-x}}\"]\n"
    assert texts(one(text, tmp_path)) == ["x"]
    assert texts(one(text, tmp_path, dotenv="B=y\n")) == ["y"]


def test_anchors_and_merge_keys(tmp_path: pathlib.Path) -> None:
    text = (
        "x-base: &base\n"
        "  image: vllm/vllm-openai:v0.9.2\n"
        "  environment:\n"
        "    VLLM_USE_V1: 1\n"
        "x-args: &args\n"
        "  - --max-num-seqs\n"
        "  - '8'\n"
        "services:\n"
        "  a:\n"
        "    <<: *base\n"
        "    command: *args\n"
        "  b:\n"
        "    <<: [*base]\n"
        "    image: vllm/vllm-openai:v0.10.0\n"
        "    command: [--port, '1']\n"
    )
    first, second = run(text, tmp_path)
    assert first.target == "0.9.2"
    assert arg(first, "8").span == Span(Pos(7, 6), Pos(7, 7))
    assert first.env["VLLM_USE_V1"].span == Span(Pos(4, 18), Pos(4, 19))
    assert second.target == "0.10.0"
    assert texts(second) == ["--port", "1"]


def test_environment_list_and_mapping(tmp_path: pathlib.Path) -> None:
    text = (
        "services:\n"
        "  a:\n"
        "    image: vllm/vllm-openai\n"
        "    environment:\n"
        "      - VLLM_LOGGING_LEVEL=DEBUG\n"
        "      - HF_TOKEN=${HF_TOKEN}\n"
        "      - FROM_HOST\n"
        "  b:\n"
        "    image: vllm/vllm-openai\n"
        "    environment:\n"
        "      VLLM_USE_V1: '0'\n"
        "      EMPTY:\n"
    )
    first, second = run(text, tmp_path)
    level = first.env["VLLM_LOGGING_LEVEL"]
    assert (level.text, level.span) == ("DEBUG", Span(Pos(5, 28), Pos(5, 33)))
    assert not first.env["HF_TOKEN"].literal
    assert "FROM_HOST" not in first.env
    assert second.env["VLLM_USE_V1"].span == Span(Pos(11, 21), Pos(11, 22))
    assert set(second.env) == {"VLLM_USE_V1"}


def test_environment_is_not_used_for_interpolation(tmp_path: pathlib.Path) -> None:
    text = (
        "services:\n"
        "  a:\n"
        "    image: vllm/vllm-openai\n"
        "    environment: [SEQS=4]\n"
        "    command: [--max-num-seqs, $SEQS]\n"
    )
    assert not arg(one(text, tmp_path), "$SEQS").literal


def test_entrypoint_and_command_join(tmp_path: pathlib.Path) -> None:
    text = (
        "services:\n"
        "  a:\n"
        "    image: vllm/vllm-openai:v0.6.0\n"
        "    entrypoint: [python3, -m, vllm.entrypoints.openai.api_server]\n"
        "    command: --model m --max-num-seqs 8\n"
    )
    invocation = one(text, tmp_path)
    assert invocation.entry == "api_server"
    assert invocation.target == "0.6.0"
    assert texts(invocation) == ["--model", "m", "--max-num-seqs", "8"]
    assert arg(invocation, "8").span == Span(Pos(5, 39), Pos(5, 40))


def test_entrypoint_string(tmp_path: pathlib.Path) -> None:
    text = "services:\n  a:\n    image: x\n    entrypoint: vllm serve m --max-num-seqs 8\n"
    invocation = one(text, tmp_path)
    assert arg(invocation, "8").span == Span(Pos(4, 45), Pos(4, 46))


def test_entrypoint_script_running_the_command(tmp_path: pathlib.Path) -> None:
    text = (
        "services:\n"
        "  a:\n"
        "    image: local/vllm-openai:dev\n"
        "    entrypoint: [/entrypoint.sh]\n"
        "    command: [vllm, serve, m, --max-num-seqs, '8']\n"
    )
    assert texts(one(text, tmp_path)) == ["m", "--max-num-seqs", "8"]


def test_vllm_image_without_command(tmp_path: pathlib.Path) -> None:
    text = "services:\n  a:\n    image: vllm/vllm-openai:v0.10.1\n"
    invocation = one(text, tmp_path)
    assert invocation.args == ()
    assert invocation.anchor == Span(Pos(3, 12), Pos(3, 36))
    assert invocation.target == "0.10.1"


def test_non_vllm_services_are_ignored(tmp_path: pathlib.Path) -> None:
    text = (
        "services:\n"
        "  web:\n"
        "    image: nginx\n"
        "    command: [nginx, -g, 'daemon off;']\n"
        "  db:\n"
        "    image: postgres\n"
        "    command: postgres -c max_connections=8\n"
        "  tool:\n"
        "    image: traefik\n"
        "    command: [--providers.docker=true]\n"
    )
    assert run(text, tmp_path) == []


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [("services: [\n", 2, 1), ("services:\n  a: {\n", 3, 1), ("\tservices: x\n", 1, 1)],
)
def test_invalid_yaml_is_unparsable_at_the_error(
    text: str, line: int, column: int, tmp_path: pathlib.Path
) -> None:
    with pytest.raises(Unparsable) as raised:
        run(text, tmp_path)
    assert raised.value.where == Pos(line, column)
    assert raised.value.message.startswith("invalid YAML: ")


@pytest.mark.parametrize("text", ["", "just a string\n", "services:\n"])
def test_empty_yaml_has_no_invocation(text: str, tmp_path: pathlib.Path) -> None:
    assert run(text, tmp_path) == []


def test_duplicate_keys_last_wins(tmp_path: pathlib.Path) -> None:
    text = (
        "services:\n  a:\n    image: nginx\n"
        "    image: vllm/vllm-openai\n    command: [--port, '1']\n"
    )
    assert texts(one(text, tmp_path)) == ["--port", "1"]


def test_scalar_positions_follow_yaml_styles() -> None:
    text = (
        'a: "x\\ty\\u00e9"\n'
        "b: 'it''s'\n"
        "c: |-\n"
        "    k\n"
        "      m\n"
        "d: \"one\n"
        "   two\"\n"
    )
    source = yamlpos.SourceIndex(text)
    document = yamlpos.compose_documents(text)
    assert document is not None
    nodes = {key.value: value for key, value in yamlpos.mapping_items(document[0])}

    def located(name: str) -> tuple[str, tuple[Pos, ...]]:
        node = nodes[name]
        assert yamlpos.is_scalar(node)
        return yamlpos.scalar_value(node), yamlpos.scalar_positions(source, node)

    assert located("a") == ("x\tyé", (Pos(1, 5), Pos(1, 6), Pos(1, 8), Pos(1, 9), Pos(1, 15)))
    assert located("b") == ("it's", (Pos(2, 5), Pos(2, 6), Pos(2, 7), Pos(2, 9), Pos(2, 10)))
    value, positions = located("c")
    assert value == "k\n  m"
    assert positions[0] == Pos(4, 5)
    assert positions[2:] == (Pos(5, 5), Pos(5, 6), Pos(5, 7), Pos(5, 8))
    value, positions = located("d")
    assert value == "one two"
    assert positions[3:5] == (Pos(6, 8), Pos(7, 4))


def corpus_files() -> list[pathlib.Path]:
    return sorted(CORPUS.iterdir()) if CORPUS.is_dir() else []


@pytest.mark.skipif(not corpus_files(), reason="the shared corpus is not available")
@pytest.mark.parametrize("path", corpus_files(), ids=lambda path: path.name)
def test_real_compose_files(path: pathlib.Path) -> None:
    text = path.read_text(encoding="utf-8")
    found = extract(str(path), text)
    if "vllm/vllm-openai" in text or "vllm.entrypoints" in text or "vllm serve" in text:
        assert found, path.name
    for invocation in found:
        lines = text.split("\n")
        for token in invocation.args:
            # Where a token's characters sit side by side on one line, they spell it there.
            start = token.positions[0]
            contiguous = all(
                pos == Pos(start.line, start.column + i) for i, pos in enumerate(token.positions)
            )
            if contiguous:
                line = lines[start.line - 1]
                assert line[start.column - 1 : start.column - 1 + len(token.text)] == token.text


MOUNTED_SCRIPT = """\
services:
  llm:
    image: vllm/vllm-openai:v0.10.1
    entrypoint: ["/usr/local/bin/serve"]
    command: ["--max-model-len", "16k"]
    volumes:
      - ./scripts/serve.sh:/usr/local/bin/serve:ro
"""


def test_an_entrypoint_script_the_service_mounts_is_read(tmp_path: pathlib.Path) -> None:
    script = '#!/bin/sh\nexec vllm serve Qwen/Qwen3-8B --swap-space 4 "$@"\n'
    write_tree(tmp_path, {".git/HEAD": "", "compose.yaml": MOUNTED_SCRIPT,
                          "scripts/serve.sh": script})
    path = tmp_path / "compose.yaml"
    [launch] = extract(str(path), MOUNTED_SCRIPT)
    assert launch.origin == ("compose", "shell") and launch.borrowed_at == BORROWED
    assert [token.text for token in launch.args] == [
        "Qwen/Qwen3-8B", "--swap-space", "4", "--max-model-len", "16k"]
    assert launch.args[-1].span == Span(Pos(5, 35), Pos(5, 38))
    assert launch.anchor.start == Pos(4, 19)
    # Not mounted from the repository: nothing to read.
    unmounted = MOUNTED_SCRIPT.replace("./scripts/serve.sh:", "scripts:")
    assert extract(str(path), unmounted) == []


UNKNOWN_IMAGES = """\
services:
  vllm:
    image: ${IMAGE}
    command: [--model, "${MODEL}", --max-model-len, "16k"]
  vllm-bench:
    image: ${IMAGE}
    command: [--model, m, --concurrency, "8"]
  bench:
    image: ${IMAGE}
    command: [--model, m, --max-model-len, "16k"]
"""


def test_an_unknown_image_is_named_by_its_service() -> None:
    # Only the service whose name says vLLM and whose options are all vLLM's is a launch.
    [launch] = extract("compose.yaml", UNKNOWN_IMAGES)
    assert [token.text for token in launch.args] == [
        "--model", "${MODEL}", "--max-model-len", "16k"]
    assert launch.anchor.start.line == 4 and launch.target is None
