"""ruamel.yaml's node graph, composed by libyaml (PyYAML's C parser) when it can be.

Pure-Python ruamel.yaml takes about 10 ms for a 1 KB Kubernetes manifest; libyaml takes half a
millisecond.  The extractors keep working on ruamel's nodes: libyaml's nodes are copied into
them, with ruamel's own YAML 1.2 resolver choosing every implicit tag, plain style as ruamel
writes it (None) and marks at the same character offsets, lines and columns (libyaml counts
characters, and a CRLF as one break, as ruamel does).

Whatever the two read differently goes to ruamel: a directive (``%YAML``, ``%TAG``: libyaml
reads YAML 1.1), a NEL, LS or PS character (line breaks in 1.1 only), a tab (ruamel rejects
some that libyaml allows), an empty scalar (a key without a value: ruamel places it at the next
token, libyaml just after the colon), and any text libyaml rejects (ruamel then gives the error,
or the nodes where 1.2 allows what 1.1 does not).  ``compose`` returns None for all of these, and
when PyYAML or its C parser is missing.  (tests/test_fastyaml.py compares the two on every
YAML input of the tests and the corpus.)
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

_RUAMEL_ONLY = re.compile(r"^%|[\t\x85\u2028\u2029]", re.MULTILINE)


# Importing PyYAML costs about what ruamel takes to parse 4,000 characters, so a run (a
# pre-commit hook on one compose file) starts with ruamel and moves to libyaml once it has read
# that much YAML; the nodes are the same either way.
WORTH_IMPORTING = 4000
_read = [0]


def compose(text: str) -> list[Node] | None:
    """Every document's node graph (None documents left out), or None: use ruamel."""
    if not _LOADER:
        _read[0] += len(text)
        if _read[0] < WORTH_IMPORTING:
            return None
    return compose_with_libyaml(text)


def compose_with_libyaml(text: str) -> list[Node] | None:
    """``compose`` without waiting until PyYAML is worth importing."""
    if _RUAMEL_ONLY.search(text):
        return None
    loader_class = _loader_class()
    if loader_class is None:
        return None
    loader = loader_class(text)
    try:
        documents = []
        while loader.check_node():
            node = loader.get_node()
            if node is not None:
                documents.append(node)
    except Exception:  # noqa: BLE001 - any libyaml error: ruamel decides, and words the error
        return None
    finally:
        loader.dispose()
    try:
        return _Copier(text).documents(documents)
    except _EmptyScalar:
        return None


class _EmptyScalar(Exception):
    pass


_LOADER: list[Any] = []


def _loader_class() -> Any:
    if not _LOADER:
        _LOADER.append(_make_loader_class())
    return _LOADER[0]


def _make_loader_class() -> Any:
    try:
        from yaml import nodes as c_nodes  # lazy: PyYAML's libyaml binding, only for YAML
        from yaml.cyaml import CParser  # lazy: as above
    except ImportError:
        return None
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode  # lazy: ruamel is heavy
    from ruamel.yaml.resolver import VersionedResolver  # lazy: as above

    resolver = VersionedResolver()  # no loader: YAML 1.2, as ruamel reads a file without %YAML
    kinds = {c_nodes.ScalarNode: ScalarNode, c_nodes.SequenceNode: SequenceNode,
             c_nodes.MappingNode: MappingNode}

    class Loader(CParser):  # type: ignore[misc]
        """libyaml's parser and composer; tags resolved by ruamel's resolver."""

        def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
            return str(resolver.resolve(kinds[kind], value, implicit))

        def descend_resolver(self, parent: Any, index: Any) -> None:
            pass

        def ascend_resolver(self) -> None:
            pass

    return Loader


class _Copier:
    """Copies libyaml's nodes into ruamel's, keeping an alias the same node as its anchor."""

    def __init__(self, text: str) -> None:
        from ruamel.yaml.error import StringMark  # lazy: ruamel is heavy
        from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode  # lazy: as above

        self.text = text
        self.mark = StringMark
        self.scalar, self.sequence, self.mapping = ScalarNode, SequenceNode, MappingNode
        self.copied: dict[int, Node] = {}

    def documents(self, nodes: list[Any]) -> list[Node]:
        return [self.node(node) for node in nodes]

    def _mark(self, mark: Any) -> Any:
        line, column = mark.line, mark.column
        if mark.index == len(self.text) and column == 0 and self.text[-1:] not in ("\n", "\r"):
            # libyaml ends a text without a final line break on a line of its own; ruamel at
            # the end of the last line.
            line -= 1
            column = len(self.text) - 1 - max(self.text.rfind("\n"), self.text.rfind("\r"))
        return self.mark(None, mark.index, line, column, self.text, mark.index)

    def node(self, node: Any) -> Node:
        done = self.copied.get(id(node))
        if done is not None:
            return done
        start, end = self._mark(node.start_mark), self._mark(node.end_mark)
        copy: Node
        if node.id == "scalar":
            if node.value == "" and not node.style:
                raise _EmptyScalar
            copy = self.scalar(node.tag, node.value, start, end, style=node.style or None)
            self.copied[id(node)] = copy
            return copy
        if node.id == "sequence":
            copy = self.sequence(node.tag, [], start, end, flow_style=node.flow_style)
            self.copied[id(node)] = copy
            copy.value.extend(self.node(item) for item in node.value)
            return copy
        copy = self.mapping(node.tag, [], start, end, flow_style=node.flow_style)
        self.copied[id(node)] = copy
        copy.value.extend((self.node(key), self.node(value)) for key, value in node.value)
        return copy
