"""libyaml's nodes (vlint.syntax.fastyaml) equal pure ruamel.yaml's, or ruamel is used."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from vlint.syntax import fastyaml

ROOT = Path(__file__).parent.parent
CORPUS = Path("/work/shared/corpus/real")
FILES = sorted(
    p for folder in (ROOT / "tests", ROOT / "examples", CORPUS) if folder.is_dir()
    for p in folder.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()
)

pytestmark = pytest.mark.skipif(fastyaml._loader_class() is None, reason="no libyaml")


def _shape(node: Any, seen: dict[int, int]) -> object:
    """Everything the extractors read of a node: kind, tag, marks, value, style, aliases."""
    if id(node) in seen:
        return ("alias", seen[id(node)])
    seen[id(node)] = len(seen)
    start, end = node.start_mark, node.end_mark
    head = (type(node).__name__, node.tag, start.index, start.line, start.column, end.index,
            end.line, end.column)
    if type(node).__name__ == "ScalarNode":
        return (*head, node.value, node.style)
    if type(node).__name__ == "SequenceNode":
        return (*head, node.flow_style, [_shape(item, seen) for item in node.value])
    return (*head, node.flow_style,
            [(_shape(key, seen), _shape(value, seen)) for key, value in node.value])


def _ruamel(text: str) -> list[object] | None:
    yaml = YAML(typ="safe", pure=True)
    try:
        return [_shape(n, {}) for n in yaml.compose_all(text) if n is not None]
    except Exception:  # noqa: BLE001
        return None


def _same_or_fallback(text: str) -> bool:
    """True when libyaml was used (and agreed), False when it left the text to ruamel."""
    fast = fastyaml.compose_with_libyaml(text)
    if fast is None:
        return False
    assert [_shape(n, {}) for n in fast] == _ruamel(text)
    return True


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_yaml_input(path: Path) -> None:
    _same_or_fallback(path.read_text("utf-8"))


@pytest.mark.parametrize("text", [
    "a: 1\nb: [x, 'y', \"z\\u00e9\"]\n",
    "a: 1",  # no final line break: the end mark stays on the last line
    "é: 日本\r\nb: |\r\n  z\r\n  w\r\n",
    "base: &b {x: 1, y: yes}\nother:\n  <<: *b\n  z: 0o17\n",
    "--- !custom\nk: !!str 5\n---\n- >\n  folded\n  text\n\n  more\n- 1.5\n- ~\n",
    "list:\n- a\n- b: c\n  d: 'it''s'\n",
])
def test_agrees(text: str) -> None:
    assert _same_or_fallback(text)


@pytest.mark.parametrize("text", [
    "%YAML 1.1\n---\na: yes\n",  # a directive: libyaml reads YAML 1.1
    "a:\n  b:\nc: 1\n",  # empty values sit elsewhere in ruamel
    "a: 1\t\nb: 2\n",  # tabs
    "a: x\u2028y\n",  # a line break in YAML 1.1 only
    "a: [1, 2\n",  # invalid: ruamel words the error
])
def test_left_to_ruamel(text: str) -> None:
    assert not _same_or_fallback(text)


def test_small_runs_keep_ruamel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastyaml, "_LOADER", [])
    monkeypatch.setattr(fastyaml, "_read", [0])
    small = "a: 1\n" * (fastyaml.WORTH_IMPORTING // 10)
    assert fastyaml.compose(small) is None
    assert fastyaml.compose(small) is not None
