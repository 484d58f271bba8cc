"""Helm charts: templates and values files, read without rendering anything.

A template is not YAML until Helm renders it.  vlint does not render: every ``{{ ... }}``
expression is replaced by a placeholder of the same length (line breaks kept), so every other
character keeps its exact position, and a value that touches a placeholder is an unresolved
value (kept as written, not literal).  A line holding nothing but template actions
(``{{- if ... }}``, ``{{- end }}``, ``{{- toYaml .Values.x | nindent 8 }}``) becomes blank, so
both branches of a conditional are read.  The result is read as a Kubernetes manifest.  When
the masked text is still not YAML, each ``---`` document is tried alone and those that fail are
skipped: a template is never reported as unparsable.

Values files are not manifests; only argument lists that certainly reach vLLM are read, so that
a guess never produces a finding:

- ``vllmConfig.extraArgs`` (the vLLM production stack), appended to ``vllm serve MODEL``;
- ``args:`` or ``extraArgs:`` beside a vLLM server image (``image: vllm/vllm-openai:TAG``, or
  ``repository:`` + ``tag:``), the server's arguments;
- ``engine: VLLM`` with ``args:`` (KubeAI) and containers, as in a manifest.

In such a fragment the model is given by the chart, so a stand-in (not literal) model is put
first.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from vlint.errors import Unparsable
from vlint.extract import deployment, kubernetes
from vlint.extract.argv import recognise_all
from vlint.knowledge.images import is_server_image, release_from_image
from vlint.model import Deployment, Invocation, Located, Pos, Token
from vlint.syntax import yamlpos
from vlint.syntax.yamlpos import SourceIndex
from vlint.discover import helm_claims

# The kind's claim lives with kind detection (``vlint.discover``).
claims = helm_claims

if TYPE_CHECKING:
    from vlint.extract.nested import ExtractContext
    from ruamel.yaml.nodes import Node

    from vlint.extract.kubernetes import _Reader
    from vlint.syntax.yamlpos import SourceIndex

KIND = "helm"
_PLACEHOLDER = "x"
_DOCUMENT = re.compile(r"^---", re.MULTILINE)
_ARG_LISTS = ("args", "extraArgs")
_MAX_DEPTH = 64
_OPENERS = frozenset({"if", "with", "range", "define", "block"})


def mask(text: str) -> tuple[str, dict[Pos, str]]:
    """The text with template actions masked, and each masked character's position and text.

    Lines that hold only actions become blank, and so do the lines of every ``else`` branch:
    the text read is the rendering in which each conditional takes its first branch, so two
    exclusive branches never give contradictory arguments.
    """
    chars = list(text)
    unresolved: dict[Pos, str] = {}
    source = SourceIndex(text)
    actions_at: dict[int, list[str]] = {}
    for start, end in _actions(text):
        actions_at.setdefault(source.pos(start).line, []).append(text[start:end])
        for index in range(start, end):
            if text[index] not in "\r\n":
                chars[index] = _PLACEHOLDER
                unresolved[source.pos(index)] = text[index]
    lines = "".join(chars).split("\n")
    skipping: list[bool] = []  # one entry per open if/with/range: inside its else branch?
    for number, line in enumerate(lines, start=1):
        bare = line.rstrip("\r")
        pure = bool(bare.strip()) and all(
            Pos(number, column) in unresolved
            for column, char in enumerate(bare, start=1)
            if not char.isspace()
        )
        if pure or any(skipping):
            lines[number - 1] = " " * len(bare) + line[len(bare) :]
        for action in actions_at.get(number, []):
            _follow(action, skipping)
    return "\n".join(lines), unresolved


def _actions(text: str) -> list[tuple[int, int]]:
    """Each ``{{ ... }}``, the shortest from each leftmost ``{{`` (one pass: a lazy regular
    expression rescans the rest of the text from every unclosed ``{{``)."""
    found = []
    start = text.find("{{")
    while start >= 0:
        close = text.find("}}", start + 2)
        if close < 0:
            break
        found.append((start, close + 2))
        start = text.find("{{", close + 2)
    return found


def _follow(action: str, skipping: list[bool]) -> None:
    words = action.strip("{}").strip("-").strip().split()
    word = words[0] if words else ""
    if word in _OPENERS:
        skipping.append(False)
    elif word == "else" and skipping:
        skipping[-1] = True
    elif word == "end" and skipping:
        skipping.pop()


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    """Every vLLM launch in a chart template or values file; never raises on a template."""
    masked, unresolved = mask(text)
    source = yamlpos.SourceIndex(masked)
    documents = _documents(masked, strict="{{" not in text)
    found = kubernetes.extract_documents(path, source, documents, KIND, unresolved)
    reader = kubernetes._Reader(path, source, KIND, unresolved)
    for document in documents:
        found.extend(_values(reader, document, None, 0))
    return [_restore(invocation, unresolved) for invocation in found]


def _restore(invocation: Invocation, unresolved: Mapping[Pos, str]) -> Invocation:
    """Template characters back as written, and every token touching one not literal."""

    def restored(token: Token) -> Token:
        touched = [unresolved.get(p) for p in token.positions[:-1]]
        if all(t is None for t in touched):
            return token
        text = "".join(t if t is not None else c for c, t in zip(token.text, touched, strict=True))
        return Token(text, token.positions, literal=False)

    env = {
        name: replace(variable, value=restored(variable.value))
        for name, variable in invocation.deployment.env.items()
    }
    return replace(
        invocation,
        args=tuple(restored(t) for t in invocation.args),
        deployment=replace(invocation.deployment, env=env),
    )


def _documents(masked: str, *, strict: bool) -> list[Node]:
    """The masked text's documents; without templates, invalid YAML is Unparsable."""
    try:
        return yamlpos.parse_documents(masked)
    except Unparsable:
        if strict:
            raise
    lines = masked.split("\n")
    starts = [0, *(masked.count("\n", 0, m.start()) for m in _DOCUMENT.finditer(masked)), len(lines)]
    documents: list[Node] = []
    for first, last in zip(starts, starts[1:], strict=False):
        alone = "\n".join(
            line if first <= number < last else "" for number, line in enumerate(lines)
        )
        try:
            documents.extend(yamlpos.parse_documents(alone))
        except Unparsable:
            continue
    return documents


def _image_of(reader: _Reader, node: Node) -> Located[str] | None:
    """A mapping's vLLM server image: ``image: REF``, ``image: {repository, tag}``, or
    ``repository:`` + ``tag:`` beside the arguments (at the repository: its tag may be
    missing)."""
    image_node = yamlpos.mapping_get(node, "image")
    holder = image_node if image_node is not None and yamlpos.mapping_node(image_node) else node
    if image_node is not None and holder is node:
        token = reader.token(image_node)
        if token is None or not token.literal:
            return None
        reference = deployment.image(token)
    else:
        repository = reader.token(yamlpos.mapping_get(holder, "repository"))
        tag = reader.token(yamlpos.mapping_get(holder, "tag"))
        if repository is None or not repository.literal:
            return None
        text = repository.text
        if tag is not None and tag.literal and tag.text:
            text = f"{text}:{tag.text}"
        reference = Located(text, repository.sub_span(0))
    return reference if is_server_image(reference.value) else None


def _values(
    reader: _Reader, node: Node, image: Located[str] | None, depth: int,
    seen: set[tuple[int, Located[str] | None]] | None = None,
) -> list[Invocation]:

    # An alias is its anchored node again: visiting it once per alias would take exponential
    # time on nested aliases ("billion laughs").
    seen = set() if seen is None else seen
    if depth > _MAX_DEPTH or (id(node), image) in seen:
        return []
    seen.add((id(node), image))
    if yamlpos.mapping_node(node) is None:
        found: list[Invocation] = []
        for item in yamlpos.sequence_items(node):
            found.extend(_values(reader, item, image, depth + 1, seen))
        return found
    image = _image_of(reader, node) or image
    found = []
    config = yamlpos.mapping_get(node, "vllmConfig")
    if config is not None and yamlpos.mapping_node(config) is not None:
        extra = yamlpos.mapping_get(config, "extraArgs")
        if extra is not None:
            found.extend(_fragment(reader, extra, image))
    own_image = _image_of(reader, node)
    if own_image is not None and all(
        yamlpos.mapping_get(node, key) is None for key in ("containers", "engine", "command")
    ):
        for name in _ARG_LISTS:
            listed = yamlpos.mapping_get(node, name)
            if listed is not None:
                found.extend(_fragment(reader, listed, own_image))
    for key, value in yamlpos.mapping_items(node):
        if key.value not in ("vllmConfig", "containers", "initContainers", *_ARG_LISTS):
            found.extend(_values(reader, value, image, depth + 1, seen))
    return found


def _fragment(reader: _Reader, node: Node, image: Located[str] | None) -> list[Invocation]:
    """Arguments the chart appends after ``vllm serve MODEL``."""
    words = reader.words(node)
    if not words:
        return []
    facts = Deployment(image=image)
    if words[0].text in ("vllm", "python", "python3", "sh", "bash"):
        found = recognise_all(words, path=reader.path, kind=KIND,
                              image=None if image is None else image.value)
        return [deployment.enclosed(invocation, KIND, facts) for invocation in found]
    anchor = reader.list_span(node)
    model = Token("MODEL", (anchor.start,) * 5 + (anchor.start,), literal=False)
    return [
        Invocation(
            reader.path,
            (KIND,),
            "cli",
            anchor,
            entry="serve",
            args=(model, *words),
            deployment=facts,
            target=release_from_image(image.value) if image else None,
        )
    ]

