from __future__ import annotations

from vlint.extract.markdown import extract
from vlint.model import Invocation, Pos, Span, Token


def arg(invocation: Invocation, text: str) -> Token:
    return next(token for token in invocation.args if token.text == text)


def test_bash_fence_positions() -> None:
    text = "# t\n\n```bash\nvllm serve m --max-num-seqs 8\n```\n"
    (found,) = extract("a.md", text)
    assert found.anchor == Span(Pos(4, 1), Pos(4, 11))
    assert arg(found, "--max-num-seqs").span == Span(Pos(4, 14), Pos(4, 28))


def test_indented_fence_in_list_maps_each_line_back() -> None:
    text = "1. step\n\n   ```sh\n   vllm serve m \\\n     --max-num-seqs 8\n   ```\n"
    (found,) = extract("a.md", text)
    assert found.anchor.start == Pos(4, 4)
    assert arg(found, "--max-num-seqs").span == Span(Pos(5, 6), Pos(5, 20))
    assert arg(found, "8").span == Span(Pos(5, 21), Pos(5, 22))


def test_console_prompts_only_and_continuations() -> None:
    text = (
        "```console\n"
        "$ vllm serve m \\\n"
        "    --max-num-seqs 8\n"
        "vllm serve output --not-a-command\n"
        "# vllm serve root --port 1\n"
        "```\n"
    )
    first, second = extract("a.md", text)
    assert first.anchor.start == Pos(2, 3)
    assert arg(first, "--max-num-seqs").span.start == Pos(3, 5)
    assert [t.text for t in second.args] == ["root", "--port", "1"]
    assert second.anchor.start == Pos(5, 3)


def test_untagged_block_only_when_it_looks_like_vllm() -> None:
    text = "```\nvllm serve m\n```\n\n```\nls -l\n```\n\n```text\nvllm serve m\n```\n"
    (found,) = extract("a.md", text)
    assert found.anchor.start == Pos(2, 1)


def test_python_fence_relocated() -> None:
    text = "> ```python\n> from vllm import LLM\n> LLM(model='m', max_num_seqs=8)\n> ```\n"
    (found,) = extract("a.md", text)
    (model, seqs) = found.keywords
    assert seqs.name.span == Span(Pos(3, 18), Pos(3, 30))
    assert seqs.value_span == Span(Pos(3, 31), Pos(3, 32))


def test_yaml_fence_claimed_by_compose_nested_shell() -> None:
    text = (
        "- item\n\n"
        "  ```yaml\n"
        "  services:\n"
        "    llm:\n"
        "      image: ubuntu\n"
        "      command: sh -c 'vllm serve m --max-num-seqs 8'\n"
        "  ```\n"
    )
    (found,) = extract("a.md", text)
    assert arg(found, "--max-num-seqs").span == Span(Pos(7, 36), Pos(7, 50))


def test_unparsable_snippets_are_skipped() -> None:
    text = "```yaml\nservices:\n  a: [\n```\n\n```python\nLLM(\n```\n\n```sh\nvllm serve m\n```\n"
    (found,) = extract("a.md", text)
    assert found.anchor.start == Pos(11, 1)


def test_placeholder_is_an_unresolved_value() -> None:
    text = "```bash\nvllm serve <model> --max-model-len <n_of_tokens> # up to 131072\n```\n"
    (found,) = extract("a.md", text)
    assert [(t.text, t.literal) for t in found.args] == [
        ("$model_", False), ("--max-model-len", True), ("$n_of_tokens_", False)
    ]
    assert found.args[2].span == Span(Pos(2, 36), Pos(2, 49))
