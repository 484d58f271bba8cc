"""CI and launcher YAML: the shell that GitHub Actions, SkyPilot and dstack run.

- GitHub Actions workflows (``.github/workflows/*.yml``): ``jobs.<id>.steps[].run``;
  composite actions (``action.yml``): ``runs.steps[].run``;
- SkyPilot tasks (``resources:`` with ``setup:`` / ``run:``);
- dstack configurations (``type: service|task|dev-environment`` with a ``commands:`` list,
  each item its own shell text).

Each shell text is a YAML scalar (often a ``|`` or ``>`` block) handed to the shell extractor
with a locator built from the scalar's per-character file positions, so spans are exact.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from vlint.extract import deployment, shell
from vlint.knowledge.images import release_from_image
from vlint.model import Deployment, GpuCount, Invocation, Located, Pos
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
        target = _image_release(document)
        facts = Deployment(gpus=_accelerators(source, document))
        for script in _scripts(document):
            found.extend(
                deployment.enclosed(invocation, KIND, facts, target)
                for invocation in _shell(path, source, script)
            )
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


def _image_release(document: Node) -> str | None:
    """The release a dstack ``image:`` pins; the commands run inside that image."""
    image = yamlpos.mapping_get(document, "image")
    if image is None or not yamlpos.is_scalar(image) or yamlpos.is_null(image):
        return None
    return release_from_image(yamlpos.scalar_value(image))


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

    found = shell.extract(path, yamlpos.scalar_value(node), locate)
    return [deployment.enclosed(invocation, KIND) for invocation in found]
