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
from dataclasses import replace
from typing import TYPE_CHECKING

from vlint.model import Invocation, Pos

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

    from vlint.syntax.yamlpos import SourceIndex

KIND = "launcher"
_ACTION_NAME = re.compile(r"(^|[_.\-])action\.ya?ml$")
_TOP = r"^{}:[ \t]*(#.*)?\r?$"
_RUNS = re.compile(rb"^runs:", re.MULTILINE)
_JOBS = re.compile(rb"^jobs:", re.MULTILINE)
_RUNS_ON = re.compile(rb"^\s+runs-on:", re.MULTILINE)
_RESOURCES = re.compile(rb"^resources:", re.MULTILINE)
_SKY_SHELL = re.compile(rb"^(run|setup):", re.MULTILINE)
_DSTACK_TYPE = re.compile(rb"^type:[ \t]*['\"]?(service|task|dev-environment)\b", re.MULTILINE)
_COMMANDS = re.compile(rb"^commands:", re.MULTILINE)


def claims(path: str, data: bytes) -> bool:
    """A workflow or composite action, a SkyPilot task, or a dstack configuration."""
    normalised = path.replace(os.sep, "/")
    name = os.path.basename(normalised)
    if "/.github/workflows/" in "/" + normalised:
        return True
    if _ACTION_NAME.search(name) and _RUNS.search(data):
        return True
    if _JOBS.search(data) and _RUNS_ON.search(data):
        return True
    if _RESOURCES.search(data) and _SKY_SHELL.search(data):
        return True
    return bool(_DSTACK_TYPE.search(data) and _COMMANDS.search(data))


def extract(path: str, text: str) -> list[Invocation]:
    """Every vLLM launch in the file's shell texts; raises Unparsable for invalid YAML."""
    from vlint.syntax import yamlpos

    source = yamlpos.SourceIndex(text)
    found: list[Invocation] = []
    for document in yamlpos.parse_documents(text):
        if yamlpos.mapping_node(document) is None:
            continue
        target = _image_release(document)
        for script in _scripts(document):
            found.extend(
                replace(invocation, target=invocation.target or target)
                for invocation in _shell(path, source, script)
            )
    return found


def _image_release(document: Node) -> str | None:
    """The release a dstack ``image:`` pins; the commands run inside that image."""
    from vlint.syntax import yamlpos
    from vlint.extract.argv import release_from_image

    image = yamlpos.mapping_get(document, "image")
    if image is None or not yamlpos.is_scalar(image) or yamlpos.is_null(image):
        return None
    return release_from_image(yamlpos.scalar_value(image))


def _scripts(document: Node) -> list[Node]:
    from vlint.syntax import yamlpos

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
    from vlint.syntax import yamlpos

    found: list[Node] = []
    for step in yamlpos.sequence_items(steps) if steps is not None else []:
        run = yamlpos.mapping_get(step, "run") if yamlpos.mapping_node(step) is not None else None
        if run is not None and yamlpos.is_scalar(run):
            found.append(run)
    return found


def _shell(path: str, source: SourceIndex, node: Node) -> list[Invocation]:
    from vlint.extract import shell
    from vlint.syntax import yamlpos

    assert yamlpos.is_scalar(node)
    if yamlpos.is_null(node):
        return []
    positions = yamlpos.scalar_positions(source, node)
    last = len(positions) - 1

    def locate(offset: int) -> Pos:
        return positions[min(offset, last)]

    found = shell.extract(path, yamlpos.scalar_value(node), locate)
    return [replace(invocation, kind=KIND) for invocation in found]
