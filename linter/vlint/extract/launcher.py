"""CI and launcher YAML: the shell that GitHub Actions, SkyPilot and dstack run.

- GitHub Actions workflows (``.github/workflows/*.yml``): ``jobs.<id>.steps[].run``;
  composite actions (``action.yml``): ``runs.steps[].run``;
- SkyPilot tasks (``resources:`` with ``setup:`` / ``run:``; ``resources.image_id:
  docker:IMAGE`` is the container they run in, whose tag gives the target);
- dstack configurations (``type: service|task|dev-environment`` with a ``commands:`` list,
  each item its own shell text).

A workflow job's service containers (``jobs.<id>.services.<name>``) of a vLLM server image are
launches of the image's own entry point, with their ``env:``.

Each shell text is a YAML scalar (often a ``|`` or ``>`` block) handed to the shell extractor
with a locator built from the scalar's per-character file positions, so spans are exact.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from vlint.extract import deployment, shell
from vlint.knowledge.images import image_entry, is_server_image, release_from_image
from vlint.model import Deployment, EnvVar, GpuCount, Invocation, Located, Pos, Token
from vlint.syntax import yamlpos
from vlint.discover import launcher_claims

# The kind's claim lives with kind detection (``vlint.discover``).
claims = launcher_claims

if TYPE_CHECKING:
    from vlint.extract.nested import ExtractContext
    from ruamel.yaml.nodes import Node

    from vlint.syntax.yamlpos import SourceIndex

KIND = "launcher"


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    """Every vLLM launch in the file's shell texts; raises Unparsable for invalid YAML."""
    source = yamlpos.SourceIndex(text)
    found: list[Invocation] = []
    for document in yamlpos.parse_documents(text):
        if yamlpos.mapping_node(document) is None:
            continue
        task_image = _task_image(source, document)
        target = _image_release(document) or (
            release_from_image(task_image.value) if task_image is not None else None)
        facts = Deployment(image=task_image, gpus=_accelerators(source, document))
        for script in _scripts(document):
            found.extend(
                deployment.enclosed(invocation, KIND, facts, target)
                for invocation in _shell(path, source, script)
            )
        found.extend(_service_containers(path, source, document))
    return found


def _service_containers(path: str, source: SourceIndex, document: Node) -> list[Invocation]:
    """A workflow job's service containers (``jobs.<id>.services.<name>``) of a vLLM server
    image: each starts the image's own entry point, with the ``env:`` given (GitHub Actions
    takes no command for a service container: ``image``, ``env``, ``ports``, ``volumes``,
    ``options``, ``credentials``; https://docs.github.com/en/actions/reference/workflows-and-
    actions/workflow-syntax#jobsjob_idservices)."""
    found: list[Invocation] = []
    jobs = yamlpos.mapping_node(yamlpos.mapping_get(document, "jobs"))
    for _, job in yamlpos.mapping_items(jobs) if jobs is not None else []:
        services = yamlpos.mapping_node(yamlpos.mapping_get(job, "services")) \
            if yamlpos.mapping_node(job) is not None else None
        for _, service in yamlpos.mapping_items(services) if services is not None else []:
            if yamlpos.mapping_node(service) is None:
                continue
            node = yamlpos.mapping_get(service, "image")
            if node is None or not yamlpos.is_scalar(node) or yamlpos.is_null(node):
                continue
            token = yamlpos.scalar_token(source, node)
            if "${{" in token.text or not is_server_image(token.text):
                continue
            image = deployment.image(token)
            target = release_from_image(image.value)
            facts = Deployment(image=image, env=_env(source, yamlpos.mapping_get(service, "env")))
            found.append(Invocation(path, (KIND,), "cli", image.span, deployment=facts,
                                    target=target, entry=image_entry(target),
                                    entry_from_image=True))
    return found


def _accelerators(source: SourceIndex, document: Node) -> Located[GpuCount | None] | None:
    """The GPUs a SkyPilot task asks for: ``resources.accelerators: NAME[:COUNT]`` (one GPU
    without a count; a choice among several kinds is not one count)."""
    resources = yamlpos.mapping_get(document, "resources")
    if resources is None or yamlpos.mapping_node(resources) is None:
        return None
    node = yamlpos.mapping_get(resources, "accelerators")
    if node is None or not yamlpos.is_scalar(node) or yamlpos.is_null(node):
        return None
    token = yamlpos.scalar_token(source, node)
    name, colon, count = token.text.partition(":")
    known = bool(name.strip()) and "{" not in token.text and "," not in token.text
    value = (deployment.gpu_count(count) if colon else 1) if known else None
    return deployment.at(token, value)


def _env(source: SourceIndex, node: Node | None) -> dict[str, EnvVar]:
    """An ``env:`` mapping's variables; a value with a ``${{ }}`` expression is not literal."""
    variables: list[EnvVar | None] = []
    mapping = yamlpos.mapping_node(node)
    for key, value in yamlpos.mapping_items(mapping) if mapping is not None else []:
        if not yamlpos.is_scalar(value):
            continue
        token = yamlpos.scalar_token(source, value)
        if "${{" in token.text:
            token = token.with_text(token.text, literal=False)
        variables.append(deployment.named(yamlpos.scalar_token(source, key), token))
    return deployment.environment(variables)


def _image_release(document: Node) -> str | None:
    """The release a dstack ``image:`` pins; the commands run inside that image."""
    image = yamlpos.mapping_get(document, "image")
    if image is None or not yamlpos.is_scalar(image) or yamlpos.is_null(image):
        return None
    return release_from_image(yamlpos.scalar_value(image))


def _task_image(source: SourceIndex, document: Node) -> Located[str] | None:
    """The container image a SkyPilot task runs in: ``resources.image_id: docker:IMAGE``
    (https://docs.skypilot.co/en/latest/examples/docker-containers.html); another
    ``image_id`` (a cloud VM image) or one per region (a mapping) runs no container image."""
    resources = yamlpos.mapping_get(document, "resources")
    if resources is None or yamlpos.mapping_node(resources) is None:
        return None
    node = yamlpos.mapping_get(resources, "image_id")
    if node is None or not yamlpos.is_scalar(node) or yamlpos.is_null(node):
        return None
    token = yamlpos.scalar_token(source, node)
    prefix = "docker:"
    if not token.text.startswith(prefix) or len(token.text) == len(prefix):
        return None
    return Located(token.text[len(prefix):], token.sub_span(len(prefix)))


def _scripts(document: Node) -> list[Node]:
    scripts: list[Node] = []
    jobs = yamlpos.mapping_node(yamlpos.mapping_get(document, "jobs"))
    for _, job in yamlpos.mapping_items(jobs) if jobs is not None else []:
        scripts.extend(_step_runs(yamlpos.mapping_get(job, "steps")))
    runs = yamlpos.mapping_node(yamlpos.mapping_get(document, "runs"))
    if runs is not None:
        scripts.extend(_step_runs(yamlpos.mapping_get(runs, "steps")))
    for key in ("setup", "run"):
        node = yamlpos.mapping_get(document, key)
        if node is not None and yamlpos.is_scalar(node):
            scripts.append(node)
    commands = yamlpos.mapping_get(document, "commands")
    if commands is not None:
        scripts.extend(item for item in yamlpos.sequence_items(commands) if yamlpos.is_scalar(item))
    return scripts


def _step_runs(steps: Node | None) -> list[Node]:
    found: list[Node] = []
    for step in yamlpos.sequence_items(steps) if steps is not None else []:
        run = yamlpos.mapping_get(step, "run") if yamlpos.mapping_node(step) is not None else None
        if run is not None and yamlpos.is_scalar(run):
            found.append(run)
    return found


def _shell(path: str, source: SourceIndex, node: Node) -> list[Invocation]:
    assert yamlpos.is_scalar(node)
    if yamlpos.is_null(node):
        return []
    offsets = yamlpos.scalar_offsets(source, node)
    last = len(offsets) - 1

    def locate(offset: int) -> Pos:
        return source.pos(offsets[min(offset, last)])

    text = yamlpos.scalar_value(node)
    masked, expressions = _mask_expressions(text)
    found = shell.extract(path, masked, locate)
    if expressions:
        written = {locate(index): text[index] for index in expressions}
        found = [_unresolved(invocation, written) for invocation in found]
    return [deployment.enclosed(invocation, KIND) for invocation in found]


# GitHub Actions substitutes ``${{ <expression> }}`` in a step's ``run:`` text before the shell
# reads it (https://docs.github.com/en/actions/reference/workflows-and-actions/expressions);
# in SkyPilot's and dstack's shell ``${{`` is a syntax error, so masking it everywhere is safe.
_EXPRESSION_OPEN, _EXPRESSION_CLOSE = "${{", "}}"
_MASK = "x"


def _mask_expressions(text: str) -> tuple[str, list[int]]:
    """``text`` with each ``${{ ... }}`` replaced, character for character, by a plain word (line
    breaks kept), so that the shell reads it as one word whatever it holds; and the offsets
    masked.  One pass: each expression is the shortest from its ``${{``."""
    chars = list(text)
    masked: list[int] = []
    start = text.find(_EXPRESSION_OPEN)
    while start >= 0:
        close = text.find(_EXPRESSION_CLOSE, start + len(_EXPRESSION_OPEN))
        if close < 0:
            break
        end = close + len(_EXPRESSION_CLOSE)
        for index in range(start, end):
            if text[index] not in "\r\n":
                chars[index] = _MASK
                masked.append(index)
        start = text.find(_EXPRESSION_OPEN, end)
    return "".join(chars), masked


def _unresolved(invocation: Invocation, written: Mapping[Pos, str]) -> Invocation:
    """The expressions' characters back as written (by file position), and every token that
    holds one not literal: its value is known only when the workflow runs."""

    def restored(token: Token) -> Token:
        touched = [written.get(p) for p in token.positions[:-1]]
        if all(t is None for t in touched):
            return token
        text = "".join(t if t is not None else c for c, t in zip(token.text, touched, strict=True))
        return token.with_text(text, literal=False)

    env = {name: replace(variable, value=restored(variable.value))
           for name, variable in invocation.deployment.env.items()}
    return replace(invocation, args=tuple(restored(t) for t in invocation.args),
                   deployment=replace(invocation.deployment, env=env))
