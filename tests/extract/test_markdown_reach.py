"""Markdown launches outside shell fences: PowerShell fences, indented blocks, command
paragraphs and code spans, each at its exact position in the ``.md`` file."""

from __future__ import annotations

import pytest

from vlint.extract.markdown import extract
from vlint.model import Invocation, Pos, Span, Token

RUN = "docker run --rm --gpus all -p 8001:8000 vllm/vllm-openai:v0.9.0 --model m --max-num-seqs 8"


def arg(invocation: Invocation, text: str) -> Token:
    return next(token for token in invocation.args if token.text == text)


@pytest.mark.parametrize("language", ["powershell", "ps1", "pwsh", "PowerShell"])
def test_powershell_fence_without_powershell_syntax_is_shell(language: str) -> None:
    text = f"Run it:\n\n```{language}\n{RUN}\n```\n"
    (found,) = extract("a.md", text)
    assert arg(found, "--max-num-seqs").span == Span(Pos(4, 75), Pos(4, 89))
    assert found.origin == ("markdown", "shell")


@pytest.mark.parametrize("syntax", [
    "docker run --gpus all `\n  vllm/vllm-openai:v0.9.0 --model m `\n  --max-num-seqs 8",
    "docker run -e HF_TOKEN=$env:HF_TOKEN vllm/vllm-openai:v0.9.0 --model m",
    "docker run -e HF_TOKEN=${Env:HF_TOKEN} vllm/vllm-openai:v0.9.0 --model m",
    "$a = @('--model', 'm')\ndocker run vllm/vllm-openai:v0.9.0 @a",
    "docker run -v C:\\models:/models vllm/vllm-openai:v0.9.0 --model /models/m",
])
def test_powershell_syntax_is_not_read_as_shell(syntax: str) -> None:
    assert extract("a.md", f"```powershell\n{syntax}\n```\n") == []


def test_indented_code_block() -> None:
    text = "Serve:\n\n    vllm serve org/m --max-num-seqs 8\n\nThen curl.\n"
    (found,) = extract("a.md", text)
    assert found.anchor == Span(Pos(3, 5), Pos(3, 15))
    assert arg(found, "--max-num-seqs").span == Span(Pos(3, 22), Pos(3, 36))


def test_indented_block_without_a_command_is_not_read() -> None:
    assert extract("a.md", "Output:\n\n    vllm serve is starting\n    INFO ready\n") == []


def test_command_paragraph_with_continuations() -> None:
    text = (
        "Docker:\n\n"
        "docker run --gpus all \\\n"
        "    -p 8000:8000 \\\n"
        "    vllm/vllm-openai:v0.9.0 \\\n"
        "    --model org/m --max-num-seqs 8 \n"
    )
    (found,) = extract("a.md", text)
    assert arg(found, "--model").span == Span(Pos(6, 5), Pos(6, 12))
    assert arg(found, "8").span == Span(Pos(6, 34), Pos(6, 35))
    assert found.origin == ("markdown", "shell")


def test_command_paragraphs_each_line_and_leading_space() -> None:
    text = " vllm serve org/a   --port 7890 \n\nvllm serve org/b\n\nvllm serve    org/c\n"
    first, second, third = extract("a.md", text)
    assert arg(first, "--port").span == Span(Pos(1, 21), Pos(1, 27))
    assert second.anchor.start == Pos(3, 1)
    assert third.args[0].text == "org/c"
    assert third.args[0].span == Span(Pos(5, 15), Pos(5, 20))


def test_command_paragraph_in_a_blockquote_list() -> None:
    text = "> - python3 -m vllm.entrypoints.openai.api_server \\\n>   --model org/m --port 1\n"
    (found,) = extract("a.md", text)
    assert arg(found, "--port").span == Span(Pos(2, 19), Pos(2, 25))


@pytest.mark.parametrize("prose", [
    "vllm serve starts the OpenAI-compatible server.",
    "vllm serve org/m\nthen open the browser at port 8000.",
    "vllm serve *org/m* --port 1",
    "vllm serve org/m --port 1 (see [the docs](https://docs.vllm.ai))",
    "docker run is how the image starts.",
    "vllm serve --help",
    "vllm serve org/m -h",
    "vllm serve",
    "Then vllm serve org/m --port 1",
])
def test_prose_paragraphs_are_not_read(prose: str) -> None:
    assert extract("a.md", f"Intro.\n\n{prose}\n") == []


def test_paragraph_placeholder_is_unresolved() -> None:
    (found,) = extract("a.md", "vllm serve <model> --max-num-seqs 8\n")
    assert [(t.text, t.literal) for t in found.args][:1] == [("$model_", False)]
    assert arg(found, "--max-num-seqs").span == Span(Pos(1, 20), Pos(1, 34))


def test_code_spans_that_are_commands() -> None:
    text = (
        "First `pip install vllm`, then run `vllm serve org/m --max-num-seqs 8` and,\n"
        "in a container, `` docker run --gpus all vllm/vllm-openai:v0.9.0 --model org/n ``.\n"
    )
    first, second = extract("a.md", text)
    assert arg(first, "--max-num-seqs").span == Span(Pos(1, 54), Pos(1, 68))
    assert arg(second, "org/n").span == Span(Pos(2, 74), Pos(2, 79))


def test_code_span_in_a_heading_and_the_same_text_twice() -> None:
    text = "## Run `vllm serve org/m`\n\n`x` and `vllm serve org/m` again: `vllm serve org/m`\n"
    spans = [arg(found, "org/m").span for found in extract("a.md", text)]
    assert spans == [
        Span(Pos(1, 20), Pos(1, 25)), Span(Pos(3, 21), Pos(3, 26)), Span(Pos(3, 47), Pos(3, 52)),
    ]


@pytest.mark.parametrize("span", [
    "`vllm serve --help`", "`vllm serve`", "`vllm serve org/m -h`", "`vllm serve` is the command",
    "`docker run` starts it", "`python -m vllm.entrypoints.openai.api_server`",
])
def test_code_spans_that_are_no_launch(span: str) -> None:
    assert extract("a.md", f"Use {span} here.\n") == []


def test_code_span_over_two_lines_is_not_read() -> None:
    assert extract("a.md", "Run `vllm serve org/m\n--port 1` now.\n") == []


def test_a_yaml_fence_holding_part_of_a_manifest_is_read_as_kubernetes() -> None:
    text = (
        "Add an API key to the deployment:\n"
        "   ```yaml\n"
        "   spec:\n"
        "     containers:\n"
        "     - name: vllm\n"
        "       image: vllm/vllm-openai:v0.9.0\n"
        "       command: [\"vllm\", \"serve\", \"m\", \"--max-num-seqs\", \"8\"]\n"
        "   ```\n"
    )
    (found,) = extract("a.md", text)
    assert found.origin == ("markdown", "kubernetes")
    assert arg(found, "--max-num-seqs").span.start == Pos(7, 41)
    # A YAML fence that is no manifest part and no other kind stays unread.
    assert extract("a.md", "```yaml\nservice: web\nreplicas: 2\n```\n") == []


@pytest.mark.parametrize("prompt", [
    "$ ", "(venv) $ ", "user@gpu01:~$ ", "(vllm) user@gpu01:~/app$ ", "[root@node0 ~]# ",
    "bash-5.2$ ", "me@mac % ",
])
@pytest.mark.parametrize("language", ["console", "bash", ""])
def test_a_transcripts_prompt_is_not_part_of_the_command(prompt: str, language: str) -> None:
    if language == "bash" and prompt.startswith("["):
        pytest.skip("a bash block's first line must be a prompt a shell comment is not")
    text = f"```{language}\n{prompt}vllm serve org/m --max-num-seqs 8\nINFO: ready\n```\n"
    (found,) = extract("a.md", text)
    start = len(prompt) + 1
    assert found.anchor == Span(Pos(2, start), Pos(2, start + 10))
    assert [t.text for t in found.args] == ["org/m", "--max-num-seqs", "8"]


def test_a_comment_in_a_shell_block_is_no_prompt() -> None:
    text = "```bash\n# start it\nvllm serve org/m --port 1\n```\n"
    (found,) = extract("a.md", text)
    assert found.anchor.start == Pos(3, 1)


@pytest.mark.parametrize("language", ["cmd", "bat", "batch"])
def test_a_windows_command_block_continues_with_a_caret(language: str) -> None:
    text = (f"```{language}\nvllm serve org/m ^\n  --max-num-seqs 8 ^\n  --port %PORT%\n```\n")
    (found,) = extract("a.md", text)
    assert [t.text for t in found.args] == ["org/m", "--max-num-seqs", "8", "--port", "$PORT_"]
    assert arg(found, "8").span == Span(Pos(3, 18), Pos(3, 19))
    port = found.args[-1]
    assert not port.literal and port.span == Span(Pos(4, 10), Pos(4, 16))


@pytest.mark.parametrize("language", ["python", "pycon", "shell", "py"])
def test_an_interactive_python_session_is_read_without_its_prompts(language: str) -> None:
    text = (f"```{language}\n>>> from vllm import LLM\n>>> llm = LLM(\n...     model='org/m',\n"
            "...     max_model_len=4096)\n>>> print(llm)\n<vllm.LLM object>\n```\n")
    (found,) = extract("a.md", text)
    assert found.style == "python"
    [model, length] = found.keywords
    assert model.value_span == Span(Pos(4, 15), Pos(4, 22))
    assert length.name.span == Span(Pos(5, 9), Pos(5, 22))


def test_a_code_span_that_names_only_a_flag_is_prose() -> None:
    text = "1. `vllm serve --tensorizer` reads weights from S3.\n"
    assert extract("a.md", text) == []
    named = "Run `vllm serve --model org/m --port 8000` and wait.\n"
    (found,) = extract("a.md", named)
    assert [t.text for t in found.args] == ["--model", "org/m", "--port", "8000"]


def test_a_compose_service_shown_without_services_is_read_as_compose() -> None:
    text = ("```yaml\nvllm:\n  image: vllm/vllm-openai:v0.9.2\n  command:\n"
            "    - --model\n    - org/m\n    - --max-num-seqs\n    - 16k\n```\n")
    (found,) = extract("a.md", text)
    assert found.origin == ("markdown", "compose") and found.target == "0.9.2"
    assert arg(found, "16k").span == Span(Pos(8, 7), Pos(8, 10))
    assert extract("a.md", "```yaml\nlogging:\n  level: debug\n  file: vllm.log\n```\n") == []


def test_the_continuation_prompt_of_a_transcript_is_not_a_redirection() -> None:
    text = "```console\nroot@node:/# vllm serve m \\\n>   --max-num-seqs 4\n```\n"
    (found,) = extract("a.md", text)
    assert [t.text for t in found.args] == ["m", "--max-num-seqs", "4"]
    assert arg(found, "4").span == Span(Pos(3, 20), Pos(3, 21))
