"""Renderers: one module per output format, registered here explicitly."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Protocol, cast

from vlint.lint import Report


class Renderer(Protocol):
    def render(self, report: Report) -> str: ...


RENDERERS: Mapping[str, str] = {
    "concise": "vlint.report.concise",
    "full": "vlint.report.full",
    "github": "vlint.report.github",
    "json": "vlint.report.json_output",
    "sarif": "vlint.report.sarif",
}


def renderer(name: str) -> Renderer:
    return cast(Renderer, importlib.import_module(RENDERERS[name]))
