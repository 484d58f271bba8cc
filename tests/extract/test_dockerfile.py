from __future__ import annotations

from pathlib import Path

import pytest

from tests._support.files import write_tree
from vlint.discover import kind_of
from vlint.errors import Unparsable
from vlint.extract.dockerfile import extract
from vlint.engine.lint import lint
from vlint.model import BORROWED, Invocation, Pos, Span, Token
from vlint.settings import Settings
from vlint.syntax.dockerfile import parse


def one(text: str) -> Invocation:
    found = extract("Dockerfile", text)
    assert len(found) == 1, found
    return found[0]


def texts(invocation: Invocation) -> list[str]:
    return [token.text for token in invocation.args]


def arg(invocation: Invocation, text: str) -> Token:
    return next(token for token in invocation.args if token.text == text)


def span(a: tuple[int, int], b: tuple[int, int]) -> Span:
    return Span(Pos(*a), Pos(*b))


@pytest.mark.parametrize(
    ("name", "kind"),
    [("Dockerfile", "dockerfile"), ("Dockerfile.cuda", "dockerfile"),
     ("deploy/vllm.dockerfile", "dockerfile"), ("Containerfile", "dockerfile")],
)
def test_kind(name: str, kind: str) -> None:
    assert kind_of(name, b"FROM vllm/vllm-openai\n") == kind


def test_exec_cmd_on_server_image_with_json_escapes() -> None:
    text = (
        "FROM vllm/vllm-openai:v0.10.1\n"
        'CMD ["--model", "a\\"b", "x\\u0041y", "--dtype auto"]\n'
    )
    invocation = one(text)
    assert texts(invocation) == ["--model", 'a"b', "xAy", "--dtype auto"]
    assert invocation.kind == "dockerfile"
    assert invocation.image == "vllm/vllm-openai:v0.10.1"
    assert invocation.target == "0.10.1"
    assert arg(invocation, "--model").span == span((2, 7), (2, 14))
    # Each decoded character sits at the first character of its escape.
    assert arg(invocation, 'a"b').positions == (Pos(2, 18), Pos(2, 19), Pos(2, 21), Pos(2, 22))
    assert arg(invocation, "xAy").positions == (Pos(2, 26), Pos(2, 27), Pos(2, 33), Pos(2, 34))
    assert arg(invocation, "--dtype auto").span == span((2, 38), (2, 50))


def test_exec_form_through_continuations_and_comments() -> None:
    text = (
        "FROM vllm/vllm-openai:v0.10.1\n"
        'CMD ["m", \\\n'
        "  # comment inside\n"
        '     "--max-num-seqs", "8"]\n'
    )
    invocation = one(text)
    assert texts(invocation) == ["m", "--max-num-seqs", "8"]
    assert arg(invocation, "m").span == span((2, 7), (2, 8))
    assert arg(invocation, "--max-num-seqs").span == span((4, 7), (4, 21))
    assert arg(invocation, "8").span == span((4, 25), (4, 26))


def test_multi_stage_last_stage_runs_with_arg_interpolated_tag() -> None:
    text = (
        "ARG TAG=v0.9.2\n"
        "FROM vllm/vllm-openai:${TAG} AS base\n"
        'CMD ["first-stage-model"]\n'
        "FROM base AS final\n"
        'CMD ["final-model", "--port", "8000"]\n'
    )
    invocation = one(text)
    assert texts(invocation) == ["final-model", "--port", "8000"]
    assert invocation.image == "vllm/vllm-openai:v0.9.2"
    assert invocation.target == "0.9.2"


def test_no_cmd_on_server_image_is_the_default_server() -> None:
    invocation = one("FROM vllm/vllm-openai:v0.10.1 AS serve\nRUN pip install x\n")
    assert invocation.args == ()
    assert invocation.anchor == span((1, 6), (1, 30))


def test_entrypoint_exec_plus_cmd_exec() -> None:
    text = (
        "FROM python:3.11\n"
        'ENTRYPOINT ["python3", "-m", "vllm.entrypoints.openai.api_server"]\n'
        'CMD ["--model", "m"]\n'
    )
    invocation = one(text)
    assert invocation.entry == "api_server"
    assert texts(invocation) == ["--model", "m"]
    assert invocation.target is None  # python:3.11 is not a vLLM release
    assert invocation.anchor == span((2, 14), (2, 65))


def test_shell_entrypoint_ignores_cmd() -> None:
    text = (
        "FROM vllm/vllm-openai:v0.10.1\n"
        "ENTRYPOINT vllm serve m \\\n"
        "    --max-num-seqs '4'\n"
        'CMD ["--port", "1"]\n'
    )
    invocation = one(text)
    assert texts(invocation) == ["m", "--max-num-seqs", "4"]
    assert invocation.anchor == span((2, 12), (2, 22))
    assert arg(invocation, "--max-num-seqs").span == span((3, 5), (3, 19))
    assert arg(invocation, "4").sub_span(0) == span((3, 21), (3, 22))


def test_entrypoint_resets_inherited_cmd() -> None:
    text = (
        "FROM vllm/vllm-openai:v0.10.1 AS base\n"
        'CMD ["inherited"]\n'
        "FROM base\n"
        'ENTRYPOINT ["vllm", "serve", "m"]\n'
    )
    assert texts(one(text)) == ["m"]


def test_cmd_in_same_stage_survives_entrypoint() -> None:
    text = 'FROM python:3.11\nCMD ["m"]\nENTRYPOINT ["vllm", "serve"]\n'
    assert texts(one(text)) == ["m"]


def test_env_values_interpolated_keep_expression_position() -> None:
    text = (
        "FROM vllm/vllm-openai:v0.10.1\n"
        "ARG LEVEL=DEBUG\n"
        'ENV VLLM_LOGGING_LEVEL=${LEVEL} HF_HOME="/a b"\n'
        "ENV LEGACY some value\n"
        'CMD ["m"]\n'
    )
    env = one(text).env
    level = env["VLLM_LOGGING_LEVEL"]
    assert level.text == "DEBUG"
    assert set(level.positions[:-1]) == {Pos(3, 24)}
    assert env["HF_HOME"].text == "/a b"
    assert env["HF_HOME"].positions[0] == Pos(3, 42)
    assert env["LEGACY"].text == "some value"
    assert env["LEGACY"].span == span((4, 12), (4, 22))


def test_run_shell_and_heredoc() -> None:
    text = (
        "FROM python:3.11\n"
        "RUN --mount=type=cache,target=/c vllm serve a --max-num-seqs 1\n"
        "RUN <<EOF\n"
        "set -e\n"
        "vllm serve b &\n"
        "EOF\n"
        "RUN python3 <<EOF\n"
        "vllm serve c\n"
        "EOF\n"
    )
    found = extract("Dockerfile", text)
    assert [i.args[0].text for i in found] == ["a", "b"]
    assert found[0].args[0].span == span((2, 45), (2, 46))
    assert found[1].args[0].span == span((5, 12), (5, 13))
    assert all(i.image is None for i in found)


def test_escape_directive_backtick() -> None:
    text = "# escape=`\nFROM vllm/vllm-openai:v0.10.1\nCMD vllm serve m `\n  --port 1\n"
    assert texts(one(text)) == ["m", "--port", "1"]


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ('FROM x\nCMD ["vllm", "serve"\n', Pos(2, 5), "missing ']'"),
        ('FROM x\nCMD ["vllm", "serve\n', Pos(2, 14), "missing '\"'"),
        ("FROM x\nCMD ['vllm', 'serve']\n", Pos(2, 6), "double-quoted"),
    ],
)
def test_malformed_exec_form(text: str, where: Pos, message: str) -> None:
    with pytest.raises(Unparsable) as raised:
        extract("Dockerfile", text)
    assert raised.value.where == where
    assert message in raised.value.message


def test_test_bracket_is_shell_form() -> None:
    text = "FROM x\nCMD [ -f /m ] && vllm serve /m\n"
    assert texts(one(text)) == ["/m"]


def test_parse_keeps_positions_and_heredocs() -> None:
    instructions = parse("from a\nCOPY <<EOF /x\nbody\nEOF\nrun b\n")
    assert [i.keyword for i in instructions] == ["FROM", "COPY", "RUN"]
    assert instructions[1].heredocs[0].text == "body\n"
    assert instructions[2].args.positions[0] == Pos(5, 5)


def test_unresolved_tag_still_a_server_image_without_target() -> None:
    invocation = one('ARG TAG\nFROM vllm/vllm-openai:${TAG}\nCMD ["m"]\n')
    assert invocation.image == "vllm/vllm-openai:${TAG}"
    assert invocation.target is None
    assert texts(invocation) == ["m"]


def test_entrypoint_exec_with_shell_cmd_gets_sh_c() -> None:
    text = 'FROM python:3.11\nENTRYPOINT ["vllm", "serve"]\nCMD m --port 1\n'
    assert texts(one(text)) == ["/bin/sh", "-c", "m --port 1"]


def test_a_script_a_copy_heredoc_writes_is_read_as_shell() -> None:
    text = ("FROM vllm/vllm-openai:v0.9.2\n"
            "COPY --chmod=755 <<'SCRIPT' /entrypoint.sh\n"
            "#!/bin/bash\n"
            "exec vllm serve \"$MODEL\" \\\n"
            "    --max-num-seqs 8\n"
            "SCRIPT\n"
            "COPY <<EOF /etc/motd\n"
            "vllm serve m is started by the entrypoint\n"
            "EOF\n"
            'ENTRYPOINT ["/entrypoint.sh"]\n')
    [launch] = extract("Dockerfile", text)
    assert launch.origin == ("dockerfile", "shell") and launch.target == "0.9.2"
    assert launch.anchor.start == Pos(4, 6)
    assert launch.args[-1].span == Span(Pos(5, 20), Pos(5, 21))


COPIED = """\
FROM vllm/vllm-openai:v0.10.1
COPY scripts/serve.sh /usr/local/bin/serve.sh
COPY config/ /etc/llm/
ENV MAX_MODEL_LEN=16384
ENTRYPOINT ["/usr/local/bin/serve.sh"]
CMD ["--max-num-seqs", "64", "--swap-space", "4"]
"""
SCRIPT = """\
#!/bin/bash
set -e
exec vllm serve "${MODEL:-Qwen/Qwen3-8B}" --max-model-len "$MAX_MODEL_LEN" --task generate "$@"
"""


def test_a_copied_entrypoint_script_is_the_images_launch(tmp_path: Path) -> None:
    write_tree(tmp_path, {".git/HEAD": "", "Dockerfile": COPIED, "scripts/serve.sh": SCRIPT})
    path = tmp_path / "Dockerfile"
    [launch] = extract(str(path), COPIED)
    assert launch.origin == ("dockerfile", "shell") and launch.borrowed_at == BORROWED
    assert launch.anchor == Span(Pos(5, 14), Pos(5, 37))
    # The script's words are the script's to report; CMD's are this file's, in "$@"'s place.
    assert all(token.span.start == BORROWED for token in launch.args[:5])
    assert [token.text for token in launch.args[5:]] == [
        "--max-num-seqs", "64", "--swap-space", "4"]
    assert launch.args[-2].span == Span(Pos(6, 31), Pos(6, 43))
    assert launch.target == "0.10.1"
    report = lint([str(tmp_path)], Settings(target="0.33.0"))
    where = sorted((Path(f.path).name, f.code, f.span.start.line) for f in report.findings
                   if f.code == "VL103")
    assert where == [("Dockerfile", "VL103", 6), ("serve.sh", "VL103", 3)]


def test_a_copy_from_another_stage_or_outside_the_repository_is_not_read(
    tmp_path: Path,
) -> None:
    staged = COPIED.replace("COPY scripts/serve.sh", "COPY --from=build /src/serve.sh")
    write_tree(tmp_path, {".git/HEAD": "", "Dockerfile": staged, "scripts/serve.sh": SCRIPT})
    assert extract(str(tmp_path / "Dockerfile"), staged) == []
    outside = COPIED.replace("COPY scripts/serve.sh", "COPY ../../serve.sh")
    write_tree(tmp_path.parent, {"serve.sh": SCRIPT})
    write_tree(tmp_path, {"Dockerfile": outside})
    assert extract(str(tmp_path / "Dockerfile"), outside) == []


def test_a_python_program_in_a_copied_folder_is_read(tmp_path: Path) -> None:
    dockerfile = ("FROM python:3.12-slim\nRUN pip install vllm==0.10.1\nCOPY . /app\n"
                  'CMD ["python3", "-u", "/app/serve.py"]\n')
    program = ("import subprocess\n"
               'subprocess.run(["vllm", "serve", "org/m", "--swap-space", "4"], check=True)\n')
    write_tree(tmp_path, {".git/HEAD": "", "Dockerfile": dockerfile, "serve.py": program})
    [launch] = extract(str(tmp_path / "Dockerfile"), dockerfile)
    assert launch.origin == ("dockerfile", "python")
    assert [token.text for token in launch.args] == ["org/m", "--swap-space", "4"]
    assert launch.anchor.start == Pos(4, 24) and launch.target == "==0.10.1"
