"""Renderers: one module per output format, registered here explicitly."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Protocol, cast

from vlint.engine.report import Report


class Renderer(Protocol):
    def render(self, report: Report) -> str: ...


RENDERERS: Mapping[str, str] = {
    "concise": "vlint.render.concise",
    "full": "vlint.render.full",
    "github": "vlint.render.github",
    "json": "vlint.render.json_output",
    "sarif": "vlint.render.sarif",
}


def renderer(name: str) -> Renderer:
    return cast(Renderer, importlib.import_module(RENDERERS[name]))
