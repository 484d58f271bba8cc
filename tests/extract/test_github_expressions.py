"""GitHub ``${{ ... }}`` expressions in workflow ``run:`` scripts: one word each for the shell,
kept as written, not literal, at their exact file positions (issue 15)."""

from __future__ import annotations

from packaging.version import Version

from vlint.engine.lint import lint_text
from vlint.engine.report import Report
from vlint.extract.launcher import _mask_expressions, extract
from vlint.model import Pos, Span

WORKFLOW = (
    "on: push\n"
    "jobs:\n"
    "  serve:\n"
    "    runs-on: gpu\n"
    "    steps:\n"
    "      - run: |\n"
    "          vllm serve ${{ inputs.model }} --max-model-len ${{ steps.x.outputs.len }} "
    "--host 127.0.0.1\n"
)


def test_expression_is_one_unresolved_token_at_its_place() -> None:
    (found,) = extract(".github/workflows/serve.yml", WORKFLOW)
    words = [(t.text, t.literal) for t in found.args]
    assert words == [
        ("${{ inputs.model }}", False),
        ("--max-model-len", True),
        ("${{ steps.x.outputs.len }}", False),
        ("--host", True),
        ("127.0.0.1", True),
    ]
    assert found.args[0].span == Span(Pos(7, 22), Pos(7, 41))
    assert found.args[2].span == Span(Pos(7, 58), Pos(7, 84))


def test_expression_inside_a_quoted_word_with_quotes_of_its_own() -> None:
    text = (
        "runs:\n  using: composite\n  steps:\n    - run: >-\n"
        "        vllm serve m \"--served-model-name=${{ format('{0} {1}', a, b) }}\" --port 1\n"
    )
    (found,) = extract("action.yml", text)
    name = found.args[1]
    assert name.text == "--served-model-name=${{ format('{0} {1}', a, b) }}"
    assert not name.literal
    assert name.span == Span(Pos(5, 23), Pos(5, 74))  # after the closing quote
    assert [t.text for t in found.args[2:]] == ["--port", "1"]
    assert found.args[2].literal


def test_masking_keeps_length_and_line_breaks() -> None:
    text = "a ${{ x\n }} b ${{ y }}"
    masked, offsets = _mask_expressions(text)
    assert len(masked) == len(text)
    assert masked.count("\n") == 1
    assert masked == "a xxxxx\nxxx b xxxxxxxx"
    assert offsets == [*range(2, 7), *range(8, 11), *range(14, 22)]


def test_an_unclosed_expression_is_left_as_written() -> None:
    masked, offsets = _mask_expressions("vllm serve ${{ m --port 1")
    assert masked == "vllm serve ${{ m --port 1"
    assert offsets == []


def test_many_unclosed_openings_are_linear() -> None:
    text = "${{" * 50_000
    masked, offsets = _mask_expressions(text)
    assert masked == text and offsets == []


def test_no_false_needs_a_value_or_unexpected_positional() -> None:
    findings = lint_text(".github/workflows/serve.yml", "launcher", WORKFLOW,
                         [Version("0.33.0")], Report())
    assert [f.code for f in findings] == []


def test_a_literal_mistake_beside_an_expression_is_still_found() -> None:
    text = WORKFLOW.replace("--host 127.0.0.1", "--swap-space 4")
    findings = lint_text(".github/workflows/serve.yml", "launcher", text,
                         [Version("0.33.0")], Report())
    assert [f.code for f in findings] == ["VL103"]  # removed-flag
