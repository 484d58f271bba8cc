"""Extractors: one per file kind, each turning a file's text into invocations."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Protocol, cast

from vlint.model import Invocation


class Extractor(Protocol):
    def extract(self, path: str, text: str) -> list[Invocation]: ...


EXTRACTORS: Mapping[str, str] = {
    "compose": "vlint.extract.compose",
    "dockerfile": "vlint.extract.dockerfile",
    "helm": "vlint.extract.helm",
    "kubernetes": "vlint.extract.kubernetes",
    "launcher": "vlint.extract.launcher",
    "markdown": "vlint.extract.markdown",
    "python": "vlint.extract.python",
    "shell": "vlint.extract.shell",
    "systemd": "vlint.extract.systemd",
    "vllm-config": "vlint.extract.vllm_config",
}


def extractor(kind: str) -> Extractor:
    return cast(Extractor, importlib.import_module(EXTRACTORS[kind]))
