from __future__ import annotations

import pytest

from vlint.discover import kind_of
from vlint.extract.justfile import extract
from vlint.model import Invocation, LineIndex, Pos, Span, Token
from vlint.syntax.justfile import read


def written(text: str, span: Span) -> str:
    index = LineIndex(text)
    return text[index.offset(span.start) : index.offset(span.end)]


def arg(invocation: Invocation, text: str) -> Token:
    return next(token for token in invocation.args if token.text == text)


@pytest.mark.parametrize("name", ["justfile", "Justfile", "JUSTFILE", ".justfile", "serve.just",
                                  "mod.just"])
def test_justfile_names(name: str) -> None:
    assert kind_of(f"repo/{name}", b"serve:\n    vllm serve m\n") == "justfile"


def test_recipe_with_interpolations_sigils_and_a_continuation() -> None:
    text = ('model := "meta-llama/Llama-3.1-8B"\n'
            "\n"
            "# start the server\n"
            'serve port="8000": build\n'
            "    @echo starting\n"
            "    -vllm serve {{ model }} --port {{port}} \\\n"
            "        --max-num-seqs 8\n")
    (found,) = extract("justfile", text)
    assert found.origin == ("justfile", "shell")
    assert found.anchor == Span(Pos(6, 6), Pos(6, 16))
    assert [(t.text, t.literal) for t in found.args] == [
        ("{{ model }}", False), ("--port", True), ("{{port}}", False),
        ("--max-num-seqs", True), ("8", True)]
    assert written(text, arg(found, "{{ model }}").span) == "{{ model }}"
    assert arg(found, "--max-num-seqs").span == Span(Pos(7, 9), Pos(7, 23))
    assert found.line_breaks == ()


def test_continuation_is_joined_as_just_joins_it() -> None:
    text = "serve:\n    vllm serve m --port=\\\n        8000\n"
    (recipe,) = read(text).recipes
    assert recipe.body.text == "vllm serve m --port=8000\n"
    (found,) = extract("justfile", text)
    port = arg(found, "--port=8000")
    assert port.positions[6] == Pos(2, 24) and port.positions[7] == Pos(3, 9)


def test_missing_backslash_is_a_line_break() -> None:
    text = "serve:\n\tvllm serve m --port 8000\n\t  --max-num-seqs 8\n"
    (found,) = extract("justfile", text)
    (broken,) = found.line_breaks
    assert broken.orphan == "--max-num-seqs"
    assert broken.span.start == Pos(2, 26)


def test_escaped_braces_are_text() -> None:
    text = "serve:\n    vllm serve m --chat-template '{{{{x}}'\n"
    (found,) = extract("justfile", text)
    template = found.args[-1]
    assert (template.text, template.literal) == ("{{x}}", True)
    assert written(text, template.span) == "{{{{x}}'"


def test_exported_variables_are_the_environment() -> None:
    text = ('export VLLM_API_KEY := "sk-\\"q"\n'
            "export HF_HOME := env('HF_HOME', '/models')\n"
            "port := '8000'\n"
            "serve:\n    vllm serve m\n")
    (found,) = extract("justfile", text)
    env = found.deployment.env
    assert (env["VLLM_API_KEY"].value.text, env["VLLM_API_KEY"].value.literal) == ('sk-"q', True)
    assert written(text, env["VLLM_API_KEY"].value.span) == 'sk-\\"q'
    assert env["VLLM_API_KEY"].name_span == Span(Pos(1, 8), Pos(1, 20))
    assert not env["HF_HOME"].value.literal
    assert "port" not in env


def test_set_export_exports_every_variable() -> None:
    text = "set export\nPORT := '8000'\nserve:\n    vllm serve m --port $PORT\n"
    (found,) = extract("justfile", text)
    assert found.deployment.env["PORT"].value.span == Span(Pos(2, 10), Pos(2, 14))


def test_shebang_and_script_recipes_run_their_interpreter() -> None:
    text = ("[script('bash')]\n"
            "a:\n"
            "    vllm serve m1\n"
            "b:\n"
            "    #!/usr/bin/env bash\n"
            "    set -eu\n"
            "    vllm serve m2 --port 1\n"
            "c:\n"
            "    #!/usr/bin/env python3\n"
            "    import os; os.system('vllm serve m3')\n")
    found = extract("justfile", text)
    assert [(i.anchor.start, i.args[0].text) for i in found] == [
        (Pos(3, 5), "m1"), (Pos(7, 5), "m2")]


def test_a_shell_that_is_not_posix_is_not_read() -> None:
    text = 'set shell := ["nu", "-c"]\nserve:\n    vllm serve m\n'
    assert extract("justfile", text) == []
    text = 'set shell := ["bash", "-uc"]\nserve:\n    vllm serve m\n'
    assert len(extract("justfile", text)) == 1


def test_body_ends_at_column_zero_and_blank_lines_do_not_end_it() -> None:
    text = ("a:\n    echo one\n\n    vllm serve m1\n"
            "# a comment ends it\n    vllm serve not-a-body\n"
            "b := 'x:'\n    vllm serve not-a-body-either\n")
    found = extract("justfile", text)
    assert [i.args[0].text for i in found] == ["m1"]


def test_mentions_only_are_no_launch() -> None:
    text = "install:\n    pip install vllm\n    curl http://localhost:8000/v1/models\n"
    assert extract("justfile", text) == []


def test_a_doc_attribute_naming_a_script_is_not_the_script_attribute() -> None:
    text = ('set shell := ["bash", "-uc"]\n[doc("start the script")]\n[private, script("nu")]\n'
            "a:\n    vllm serve m1\n[doc('the script')]\nb:\n    vllm serve m2\n")
    assert [i.args[0].text for i in extract("justfile", text)] == ["m2"]
