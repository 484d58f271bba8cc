from __future__ import annotations

import pytest

from vlint.discover import kind_of
from vlint.extract.procfile import extract
from vlint.model import LineIndex, Pos, Span


def written(text: str, span: Span) -> str:
    index = LineIndex(text)
    return text[index.offset(span.start) : index.offset(span.end)]


@pytest.mark.parametrize(("name", "kind"), [
    ("Procfile", "procfile"), ("Procfile.dev", "procfile"), ("Procfile.md", "markdown"),
    ("procfile.txt", None)])
def test_procfile_names(name: str, kind: str | None) -> None:
    assert kind_of(name, b"web: vllm serve m --port $PORT\n") == kind


def test_each_process_line_is_a_shell_command() -> None:
    text = ("# processes\n"
            "web: vllm serve $MODEL --host 0.0.0.0 --port $PORT --max-num-seqs 8\r\n"
            "release:   pip install vllm\n"
            "  indented: vllm serve not-a-process\n"
            "worker: sh -c 'vllm serve m2 --port 9000'\n")
    found = extract("Procfile", text)
    assert [i.origin for i in found] == [("procfile", "shell"), ("procfile", "shell")]
    web, worker = found
    assert not web.deployment.env_complete  # config vars, or foreman's .env
    assert web.anchor == Span(Pos(2, 6), Pos(2, 16))
    assert [(t.text, t.literal) for t in web.args][:2] == [("$MODEL", False), ("--host", True)]
    port = web.args[4]
    assert (port.text, port.literal, written(text, port.span)) == ("$PORT", False, "$PORT")
    assert web.args[-1].span == Span(Pos(2, 67), Pos(2, 68))
    assert worker.args[-1].span == Span(Pos(5, 37), Pos(5, 41))


def test_a_line_without_a_command_declares_nothing() -> None:
    assert extract("Procfile", "web:\nweb vllm serve m\n") == []
