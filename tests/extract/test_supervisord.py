from __future__ import annotations

import pytest

from vlint.discover import kind_of
from vlint.errors import Unparsable
from vlint.extract.supervisord import extract
from vlint.model import Invocation, LineIndex, Pos, Span, Token
from vlint.syntax.lines import Chars
from vlint.syntax.supervisord import key_value_pairs, split

PROGRAM = b"[program:vllm]\ncommand=vllm serve m\n"


def written(text: str, span: Span) -> str:
    index = LineIndex(text)
    return text[index.offset(span.start) : index.offset(span.end)]


def arg(invocation: Invocation, text: str) -> Token:
    return next(token for token in invocation.args if token.text == text)


@pytest.mark.parametrize("path", ["supervisord.conf", "docker/supervisor.conf",
                                  "etc/supervisor/conf.d/vllm.conf", "supervisord.d/vllm.ini",
                                  "deploy/supervisor/vllm.conf"])
def test_supervisord_files(path: str) -> None:
    assert kind_of(path, PROGRAM) == "supervisord"


@pytest.mark.parametrize(("path", "data"), [
    ("nginx/conf.d/vllm.conf", b"server { location / { proxy_pass http://vllm:8000; } }\n"),
    ("supervisord.conf", b"[supervisord]\nnodaemon=true\n"),
    ("etc/vllm.conf", PROGRAM),
])
def test_not_supervisord_files(path: str, data: bytes) -> None:
    assert kind_of(path, data) != "supervisord"


def test_command_split_without_a_shell_with_continuations_and_comments() -> None:
    text = ("; the server\n"
            "[program:vllm]\n"
            "command=/opt/venv/bin/vllm serve %(ENV_MODEL)s\n"
            "    --port 8000   ; the API port\n"
            "\n"
            '    --served-model-name "llama 3" --api-key $KEY\n'
            "autorestart=true\n")
    (found,) = extract("supervisord.conf", text)
    assert found.origin == ("supervisord",)
    assert written(text, found.anchor) == "/opt/venv/bin/vllm serve"
    assert [(t.text, t.literal) for t in found.args] == [
        ("%(ENV_MODEL)s", False), ("--port", True), ("8000", True),
        ("--served-model-name", True), ("llama 3", True), ("--api-key", True),
        ("$KEY", True)]  # no shell: the program receives the four characters
    assert arg(found, "--port").span == Span(Pos(4, 5), Pos(4, 11))
    assert arg(found, "llama 3").sub_span(0) == Span(Pos(6, 26), Pos(6, 33))


def test_environment_of_the_program_over_supervisord_s() -> None:
    text = ("[supervisord]\n"
            'environment=HF_HOME="/models",VLLM_API_KEY="old"\n'
            "[program:vllm]\n"
            "command=vllm serve m\n"
            'environment=VLLM_API_KEY="sk-1",CUDA_VISIBLE_DEVICES="0,1",PORT=%(ENV_PORT)s\n')
    (found,) = extract("supervisord.conf", text)
    env = found.deployment.env
    assert {name: (v.value.text, v.value.literal) for name, v in env.items()} == {
        "HF_HOME": ("/models", True), "VLLM_API_KEY": ("sk-1", True),
        "CUDA_VISIBLE_DEVICES": ("0,1", True), "PORT": ("%(ENV_PORT)s", False)}
    assert env["VLLM_API_KEY"].value.sub_span(0) == Span(Pos(5, 27), Pos(5, 31))
    assert env["VLLM_API_KEY"].name_span == Span(Pos(5, 13), Pos(5, 25))
    assert not found.deployment.env_complete


def test_percent_percent_is_a_percent_and_other_sections_are_ignored() -> None:
    text = ("[program:vllm]\ncommand=vllm serve m --chat-template-content-format 100%%\n"
            "[eventlistener:x]\ncommand=vllm serve other\n")
    (found,) = extract("supervisord.conf", text)
    assert found.args[-1].text == "100%"
    assert found.args[-1].span == Span(Pos(2, 53), Pos(2, 58))


def test_a_shell_program_is_read_as_its_script() -> None:
    text = "[program:vllm]\ncommand=bash -c 'exec vllm serve m --port $PORT'\n"
    (found,) = extract("supervisord.conf", text)
    assert found.origin[0] == "supervisord" and "shell" in found.origin
    assert written(text, arg(found, "$PORT").span) == "$PORT"
    assert not arg(found, "$PORT").literal


@pytest.mark.parametrize("text", [
    "command=vllm serve m\n",  # no section
    "[program:vllm]\nthis is not an option\n",
    "[program:vllm]\ncommand=vllm serve 'm\n",
    "[program:vllm]\ncommand=vllm serve m\nenvironment=A=1,B\n",
])
def test_what_supervisord_refuses(text: str) -> None:
    with pytest.raises(Unparsable):
        extract("supervisord.conf", text)


def test_split_is_shlex_split() -> None:
    import shlex

    for line in ['a "b \\" c" d\\ e', "x'y'z \"\\n\"", 'a\\\\b "c\\\\d"']:
        chars = Chars.at(line, range(len(line) + 1), LineIndex.of(line).locate)
        assert [t.text for t in split(chars)] == shlex.split(line)


def test_key_value_pairs_as_supervisor_reads_them() -> None:
    line = 'A="1 2",B=/x/y:z, C=\'q\''
    chars = Chars.at(line, range(len(line) + 1), LineIndex.of(line).locate)
    assert [(k.text, v.text) for k, v in key_value_pairs(chars)] == [
        ("A", "1 2"), ("B", "/x/y:z"), ("C", "q")]
