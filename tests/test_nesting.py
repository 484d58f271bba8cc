"""Nesting: one context for every extractor, generic relocation, exact file positions (B1, B2)."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args, get_origin, get_type_hints

import pytest

from tests._support.reachable import positions
from vlint.engine.lint import lint
from vlint.extract import EXTRACTORS, ExtractContext, Extractor, extractor, markdown, nested, shell
from vlint.extract.nested import Embedded, embedded, moved, relocate
from vlint.model import Invocation, LineIndex, Pos, Span, Token
from vlint.model.positions import clear_line_tables
from vlint.settings import Settings

# -- B1: the findings of a fenced YAML or Dockerfile block are at their file positions -------

GUIDE = """\
# Deploying

Some prose first.

- Compose, inside a list item:

  ```yaml
  services:
    vllm:
      image: vllm/vllm-openai:v0.10.1
      environment:
        VLLM_ATTENTON_BACKEND: FLASH_ATTN
      command: ["vllm", "serve", "meta-llama/Llama-3.1-8B", "--port", "8000"]
  ```

A Dockerfile:

```dockerfile
FROM vllm/vllm-openai:v0.10.1
CMD ["vllm", "serve", "meta-llama/Llama-3.1-8B"]
```

A workflow:

```yaml
name: serve
on: push
jobs:
  serve:
    runs-on: ubuntu-latest
    steps:
      - run: |
          vllm serve meta-llama/Llama-3.1-8B
            --port 8000
```
"""


def where(text: str, needle: str, occurrence: int = 0, after: int = 0) -> Pos:
    """The file position of ``needle`` (its ``occurrence``-th match), ``after`` characters on."""
    offset = -1
    for _ in range(occurrence + 1):
        offset = text.index(needle, offset + 1)
    return LineIndex(text).pos(offset + after)


def test_b1_fenced_yaml_and_dockerfile_findings_are_at_filepositions(tmp_path: Path) -> None:
    path = tmp_path / "guide.md"
    path.write_text(GUIDE)
    report = lint([str(path)], Settings(target="0.10.1"))
    found = {(f.code, f.span.start) for f in report.findings}
    # Before the fix these were 5:7, 6:16, 2:7 and 8:45: lines counted from each fence.
    line_end = len("          vllm serve meta-llama/Llama-3.1-8B")
    expected = {
        ("VL404", where(GUIDE, "VLLM_ATTENTON_BACKEND")),
        ("VL401", where(GUIDE, '"vllm", "serve"', 0, after=1)),
        ("VL401", where(GUIDE, '"vllm", "serve"', 1, after=1)),
        ("VL406", Pos(where(GUIDE, "vllm serve meta-llama/Llama-3.1-8B\n").line, line_end + 1)),
    }
    assert expected <= found, sorted(found)
    assert expected == {
        ("VL404", Pos(12, 9)), ("VL401", Pos(13, 18)), ("VL401", Pos(20, 7)), ("VL406", Pos(33, 45))
    }


# -- every extractor takes a context; nested texts get the parent's origin -------------------


def test_every_extractor_takes_a_context() -> None:
    for kind, load in EXTRACTORS.items():
        module: Extractor = load()
        assert module.extract("x", "", ExtractContext((kind,))) == [], kind
        assert extractor(kind) is module


def test_inner_context_extends_the_origin() -> None:
    outer = ExtractContext(("markdown",))
    inner = outer.inner("compose").inner("shell", lambda offset: Pos(9, offset + 1))
    assert inner.origin == ("markdown", "compose", "shell")
    assert inner.locator("ignored")(3) == Pos(9, 4)
    assert outer.locator("ab\ncd")(3) == Pos(2, 1)


def test_nested_launches_carry_the_chain_of_kinds() -> None:
    origins = [launch.origin for launch in markdown.extract("guide.md", GUIDE)]
    assert origins == [
        ("markdown", "compose"), ("markdown", "dockerfile"), ("markdown", "launcher", "shell")
    ]


def test_markdown_hands_its_locator_to_the_shell_reader() -> None:
    text = "intro\n\n> ```bash\n> vllm serve m --port 8000\n> ```\n"
    (launch,) = markdown.extract("README.md", text)
    assert launch.args[-1].span == Span(Pos(4, 23), Pos(4, 27))
    (alone,) = shell.extract("s.sh", "vllm serve m --port 8000", ExtractContext(("shell",)))
    assert alone.args[-1].span == Span(Pos(1, 21), Pos(1, 25))


# -- relocation is generic: no field of an invocation can be forgotten ------------------------

_T = TypeVar("_T")


def _sample(hint: Any, depth: int = 0) -> Any:
    """A value of type ``hint`` in which every place that can hold a position holds one."""
    assert depth < 12, hint
    origin = get_origin(hint)
    if hint is Pos:
        return Pos(1, 1)
    if hint is Span:
        return Span(Pos(1, 1), Pos(1, 3))
    if hint is Token:
        return Token("ab", (Pos(1, 1), Pos(1, 2), Pos(1, 3)))
    if hint in (str, object) or isinstance(hint, TypeVar):
        return "x"
    if hint is bool:
        return True
    if hint is int:
        return 1
    if hint is type(None):
        return None
    if origin is Literal:
        return get_args(hint)[0]
    if origin in (typing.Union, types.UnionType):
        # The first member that can hold a position, else the first that is not None.
        options = [a for a in get_args(hint) if a is not type(None)]
        samples = [_sample(a, depth + 1) for a in options]
        with_positions = [s for s in samples if positions(s)]
        return (with_positions or samples)[0]
    if origin is tuple:
        return (_sample(get_args(hint)[0], depth + 1),)
    if origin in (Mapping, dict) or origin is typing.Mapping:
        return {"NAME": _sample(get_args(hint)[1], depth + 1)}
    cls = origin or hint
    if dataclasses.is_dataclass(cls):
        hints = get_type_hints(cls)
        arguments = dict(zip(getattr(cls, "__parameters__", ()), get_args(hint)))
        values = {}
        for f in dataclasses.fields(cls):
            field_hint = hints[f.name]
            values[f.name] = _sample(arguments.get(field_hint, field_hint), depth + 1)
        build: Any = cls
        return build(**values)
    raise AssertionError(f"no sample for {hint!r}: teach this test the new type")


def test_relocation_moves_every_field_of_an_invocation() -> None:
    invocation = _sample(Invocation)
    block = Embedded("x\n", (40,), (6,))
    relocated = relocate(invocation, block)
    for f in dataclasses.fields(Invocation):
        before, after = getattr(invocation, f.name), getattr(relocated, f.name)
        assert positions(after) == [block.move(p) for p in positions(before)], f.name
    # Every field that can hold a position was given one, so each was checked above.
    fields = dataclasses.fields(Invocation)
    holding = [f.name for f in fields if positions(getattr(invocation, f.name))]
    assert {"anchor", "args", "keywords", "deployment", "repeated_entry", "line_breaks",
            "config_false"} <= set(holding)
    assert all(p.line == 40 for p in positions(relocated))
    # What carries no position is kept as it was.
    assert relocated.path == invocation.path and relocated.origin == invocation.origin


def test_moved_keeps_values_and_recurses_into_containers() -> None:
    token = Token("ab", (Pos(1, 1), Pos(1, 2), Pos(1, 3)), literal=False)
    value: dict[str, Any] = {"a": (token, [Span(Pos(2, 1), Pos(2, 2))]), "b": 3}
    shifted = moved(value, lambda p: Pos(p.line + 1, p.column))
    assert shifted["b"] == 3
    moved_token, spans = shifted["a"]
    assert moved_token.text == "ab" and not moved_token.literal
    assert moved_token.positions == (Pos(2, 1), Pos(2, 2), Pos(2, 3))
    assert spans == [Span(Pos(3, 1), Pos(3, 2))]


# -- a fenced block is extracted as the same file on its own, moved -------------------------

FENCED = {
    "yaml": "services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.1\n"
            "    environment:\n      VLLM_X: '1'\n    command: serve m --port 8000\n",
    "dockerfile": "FROM vllm/vllm-openai:v0.10.1\nENV VLLM_X=1\nCMD [\"vllm\", \"serve\", \"m\"]\n"
                  "RUN vllm serve m \\\n  --port 8000\n",
    "python": "from vllm import LLM\nllm = LLM(model='m', max_model_len=4096)\n",
}
STANDALONE = {"yaml": "compose", "dockerfile": "dockerfile", "python": "python"}


@pytest.mark.parametrize("language", sorted(FENCED))
def test_a_fence_is_its_text_alone_moved_into_the_file(language: str) -> None:
    body = FENCED[language]
    indent = "   "
    text = "# Title\n\nprose\n\n" + f"{indent}```{language}\n"
    text += "".join(indent + line + "\n" for line in body.splitlines()) + f"{indent}```\n"
    inside = markdown.extract("README.md", text)
    alone = extractor(STANDALONE[language]).extract("README.md", body)
    assert inside and len(inside) == len(alone)
    lines = body.count("\n") + 1
    block = Embedded(body, tuple(range(6, 6 + lines)), (len(indent),) * lines)
    for got, expected in zip(inside, alone):
        assert positions(got) == positions(moved(expected, block.move))


# -- B2: one line table per text, however many positions are looked up -----------------------


def _fence(commands: int) -> str:
    lines = [f"vllm serve m{i} --port {8000 + i} \\\n  --max-model-len 16k"
             for i in range(commands)]
    return "# doc\n\n```bash\n" + "\n".join(lines) + "\n```\n"


def test_b2_line_tables_do_not_grow_with_the_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[int] = []
    real = LineIndex.__init__

    def counted(self: LineIndex, text: str) -> None:
        built.append(len(text))
        real(self, text)

    monkeypatch.setattr(LineIndex, "__init__", counted)
    counts = []
    for commands in (10, 400):
        clear_line_tables()
        built.clear()
        found = markdown.extract("README.md", _fence(commands))
        assert len(found) == commands
        for launch in found:  # every position of every token, looked up
            for token in launch.args:
                token.positions
        counts.append(len(built))
    # One table for the document and one for the fence, whatever their size (the slow code
    # rebuilt the fence's table on every lookup: 67 s for this fence).
    assert counts[0] == counts[1] <= 2


def test_embedded_locate_uses_one_table() -> None:
    block = embedded([(7, 2, "ab"), (8, 4, "cd")])
    assert [block.locate(o) for o in range(6)] == [
        Pos(7, 3), Pos(7, 4), Pos(7, 5), Pos(8, 5), Pos(8, 6), Pos(8, 7)
    ]
    assert nested.Embedded.locate is Embedded.locate


def test_a_script_in_a_quoted_word_ends_before_the_words_closing_quote() -> None:
    # The last word of `bash -c "... 'v'"` ended after the outer `"` (a span one too wide).
    text = "bash -c \"vllm serve m --x 'v'\"\n"
    (launch,) = shell.extract("s.sh", text)
    assert [t.text for t in launch.args] == ["m", "--x", "v"]
    assert launch.args[-1].span == Span(Pos(1, 28), Pos(1, 30))
    assert launch.args[-1].sub_span(0) == Span(Pos(1, 28), Pos(1, 29))
