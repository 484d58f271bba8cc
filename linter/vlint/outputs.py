"""Where findings go: the terminal format (chosen for GitHub Actions) and extra output files.

``--output-format`` is what the terminal shows; when it is not given, GitHub Actions
(``GITHUB_ACTIONS=true``) gets ``github`` annotations and everything else ``full``.  Each
``--output FORMAT:PATH`` also writes that format to PATH, atomically.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import click

if TYPE_CHECKING:
    from vlint.lint import Report


class Output(NamedTuple):
    format: str
    path: Path


def terminal_format(given: str | None, environ: Mapping[str, str] = os.environ) -> str:
    if given is not None:
        return given
    return "github" if environ.get("GITHUB_ACTIONS") == "true" else "full"


def parse_output(spec: str, formats: Sequence[str]) -> Output:
    name, sep, path = spec.partition(":")
    if not sep or not path or name not in formats:
        raise ValueError(
            f"{spec!r} is not FORMAT:PATH with FORMAT one of {', '.join(formats)} "
            "(for example sarif:vlint.sarif)"
        )
    return Output(name, Path(path))


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the whole new one."""
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def write_outputs(report: Report, outputs: Sequence[Output]) -> None:
    from vlint.report import renderer

    for output in outputs:
        write_atomically(output.path, renderer(output.format).render(report))


def format_option(ctx: click.Context, param: click.Parameter, value: str | None) -> str:
    """click callback for ``--output-format``: the automatic choice when it is not given."""
    return terminal_format(value)


def output_option(
    ctx: click.Context, param: click.Parameter, values: Sequence[str]
) -> tuple[Output, ...]:
    """click callback for the repeatable ``--output FORMAT:PATH``."""
    from vlint.report import RENDERERS

    try:
        return tuple(parse_output(value, sorted(RENDERERS)) for value in values)
    except ValueError as error:
        raise click.BadParameter(str(error), ctx, param) from None
