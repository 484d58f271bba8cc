"""A Kubernetes file: the launches of its manifests (``vlint.extract.kubernetes``) and of the
scripts its ConfigMaps hold.

A ConfigMap's ``data`` often holds the program a container runs, mounted as a file
(https://kubernetes.io/docs/concepts/configuration/configmap/#using-configmaps-as-files-from-a-pod):
``serve.py: |`` with ``AsyncEngineArgs(...)``, ``start.sh: |`` with ``vllm serve ...``.  A key
named ``*.py`` is read as Python, one named ``*.sh``/``*.bash`` or holding a ``#!`` shell script
as shell, each character at its place in the manifest (a block scalar's lines after their
indentation).  A value that does not name vLLM, or that does not parse, is not read.  This module
sits above the manifest reader so that the manifest reader, which the shell extractor's
here-documents use, never imports the shell and Python extractors.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from vlint.errors import Unparsable
from vlint.extract import kubernetes, python, shell
from vlint.extract.nested import ExtractContext, embedded, relocate
from vlint.model import Invocation, Token
from vlint.syntax import yamlpos

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

KIND = kubernetes.KIND
claims = kubernetes.claims
_SCRIPT_SUFFIXES = (".sh", ".bash")


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    """Every vLLM launch of the manifests in ``text`` and of their ConfigMaps' scripts; raises
    Unparsable on invalid YAML."""
    documents = kubernetes.documents_of(text)
    source = yamlpos.SourceIndex(text)
    found = kubernetes.extract_documents(path, source, documents, KIND, {})
    if "ConfigMap" in text:
        for document in documents:
            found.extend(_scripts(path, source, document))
    return found


def _scripts(path: str, source: yamlpos.SourceIndex, document: Node) -> list[Invocation]:
    if yamlpos.mapping_node(document) is None:
        return []
    kind = yamlpos.mapping_get(document, "kind")
    data = yamlpos.mapping_get(document, "data")
    if kind is None or not yamlpos.is_scalar(kind) or yamlpos.scalar_value(kind) != "ConfigMap" \
            or data is None or yamlpos.mapping_node(data) is None:
        return []
    found: list[Invocation] = []
    for key, value in yamlpos.mapping_items(data):
        if not yamlpos.is_scalar(value) or yamlpos.is_null(value):
            continue
        name = str(key.value)
        token = yamlpos.scalar_token(source, value)
        if "vllm" not in token.text.lower():
            continue
        is_python = name.endswith(".py")
        if not is_python and not (name.endswith(_SCRIPT_SUFFIXES)
                                  or kubernetes.SHELL_SHEBANG.match(token.text.lstrip())):
            continue
        block = embedded(_lines(token))
        try:
            inside = (python.extract(path, block.text) if is_python
                      else shell.extract(path, block.text))
        except Unparsable:
            continue
        found.extend(replace(relocate(invocation, block), origin=(KIND, *invocation.origin))
                     for invocation in inside)
    return found


def _lines(token: Token) -> list[tuple[int, int, str]]:
    """A scalar's text as (file line, characters cut, text) per line: each line of a block
    scalar sits on a file line of its own, after its indentation."""
    lines: list[tuple[int, int, str]] = []
    offset = 0
    for text in token.text.split("\n"):
        at = token.pos(min(offset, len(token.text)))
        lines.append((at.line, at.column - 1, text))
        offset += len(text) + 1
    return lines
