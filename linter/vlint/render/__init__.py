"""Renderers: one module per output format, registered here explicitly.

Each format's loader imports its module and returns it typed as a ``Renderer``, so mypy checks
every module against the Protocol.  The imports are lazy: a run imports only the format it
prints (the JSON and SARIF modules are not on a terminal run's path).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from vlint.engine.report import Report


class Renderer(Protocol):
    def render(self, report: Report) -> str: ...


def _concise() -> Renderer:
    from vlint.render import concise  # lazy: a run imports only the format it prints

    return concise


def _full() -> Renderer:
    from vlint.render import full  # lazy: as above

    return full


def _github() -> Renderer:
    from vlint.render import github  # lazy: as above

    return github


def _json() -> Renderer:
    from vlint.render import json_output  # lazy: as above

    return json_output


def _sarif() -> Renderer:
    from vlint.render import sarif  # lazy: as above

    return sarif


RENDERERS: Mapping[str, Callable[[], Renderer]] = {
    "concise": _concise,
    "full": _full,
    "github": _github,
    "json": _json,
    "sarif": _sarif,
}


def renderer(name: str) -> Renderer:
    """The renderer of format ``name``; a KeyError names a format vlint does not print."""
    return RENDERERS[name]()
