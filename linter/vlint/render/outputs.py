"""Where findings go: the terminal format (chosen for GitHub Actions) and extra output files.

``--output-format`` is what the terminal shows; when it is not given, GitHub Actions
(``GITHUB_ACTIONS=true``) gets ``github`` annotations and everything else ``full``.  Each
``--output FORMAT:PATH`` also writes that format to PATH, atomically.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import click

from vlint.fix.atomic import replace_file
from vlint.render import RENDERERS, renderer

if TYPE_CHECKING:
    from vlint.engine.report import Report


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


def unwritable(path: Path) -> str | None:
    """Why vlint will not write an output file at ``path``, or None.

    Its folder must exist (vlint creates none) and be reached through no symlink inside the
    current folder, where a linted repository could plant one; the path itself must not be a
    folder.  An existing symlink at ``path`` is replaced, never followed.
    """
    folder = path.parent
    if not folder.is_dir():
        return f"the folder {str(folder)!r} does not exist (vlint does not create folders)"
    if path.is_dir() and not path.is_symlink():
        return f"{str(path)!r} is a folder"
    here = os.getcwd()
    absolute = os.path.abspath(folder)
    if absolute != here and not absolute.startswith(here.rstrip(os.sep) + os.sep):
        return None
    walked = here
    for part in Path(os.path.relpath(absolute, here)).parts:
        walked = os.path.join(walked, part)
        if os.path.islink(walked):
            return f"its folder {str(folder)!r} goes through a symlink ({walked!r})"
    return None


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the whole new one.

    A new file gets the permissions the umask leaves (as ``open`` gives), a replaced one keeps
    its own; a path ``unwritable`` refuses is a usage error.
    """
    problem = unwritable(path)
    if problem is not None:
        raise click.UsageError(f"cannot write {str(path)!r}: {problem}")
    try:
        mode: int | None = stat.S_IMODE(os.stat(path, follow_symlinks=False).st_mode)
    except OSError:
        mode = None
    replace_file(path, text.encode("utf-8"), mode)


def write_outputs(report: Report, outputs: Sequence[Output]) -> None:
    for output in outputs:
        write_atomically(output.path, renderer(output.format).render(report))


def format_option(ctx: click.Context, param: click.Parameter, value: str | None) -> str:
    """click callback for ``--output-format``: the automatic choice when it is not given."""
    return terminal_format(value)


def output_option(
    ctx: click.Context, param: click.Parameter, values: Sequence[str]
) -> tuple[Output, ...]:
    """click callback for the repeatable ``--output FORMAT:PATH``."""
    try:
        parsed = tuple(parse_output(value, sorted(RENDERERS)) for value in values)
    except ValueError as error:
        raise click.BadParameter(str(error), ctx, param) from None
    for output in parsed:
        problem = unwritable(output.path)
        if problem is not None:
            raise click.BadParameter(f"cannot write {str(output.path)!r}: {problem}", ctx, param)
    return parsed
