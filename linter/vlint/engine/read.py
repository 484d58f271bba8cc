"""The one reader: the files of a run, confined to its roots, prefiltered, with their kind.

Files are read only inside the linted roots (``discover.confined_read``): a symlink found in a
walked folder that leads out of the repository is skipped with a note, never read.  The byte
prefilter and the kind (name and bytes only) come before any decoding or parsing.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from vlint.discover import (
    Refused, Source, TooLarge, confined_read, ignore_notes, kind_of, prefilter, walk,
)
from vlint.settings import STDIN_AS_SHELL, Settings
from vlint.syntax.globs import PathMatcher, matcher


class Counted:
    """How many files the reader looked at (linted or not)."""

    def __init__(self) -> None:
        self.files = 0


def read(
    paths: Sequence[str], settings: Settings, roots: Sequence[Path], counted: Counted
) -> Iterator[Source | str]:
    """Every file of ``paths`` that may launch vLLM, in order, with a note (a ``str``) for each
    skipped one; ``-`` is standard input (``settings.stdin_text``)."""
    noted: set[str] = set()
    for path in dict.fromkeys(paths):
        yield from ignore_notes(path) if path != "-" else ()
    for path in _expand(paths, settings):
        if path == "-":
            name = settings.stdin_filename or "-"
            # Under a C locale Python reads undecodable stdin bytes as lone surrogates: give the
            # bytes back, so that they are "not UTF-8" as they would be in a file.
            data = (settings.stdin_text or "").encode("utf-8", "surrogateescape")
        else:
            name = path
            try:
                data = confined_read(path, roots, settings.max_file_size)
            except TooLarge as refused:
                counted.files += 1
                if prefilter(refused.head, name) and kind_of(name, refused.head) is not None:
                    yield f"{path}: skipped ({refused.reason})"
                continue
            except Refused as refused:
                yield f"{path}: skipped ({refused.reason})"
                continue
        counted.files += 1
        if not prefilter(data, name):
            continue
        kind = kind_of(name, data)
        unnamed = path == "-" and settings.stdin_filename in (None, "-")
        if kind is None and not unnamed:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            yield f"{name}: skipped (not UTF-8)"
            continue
        if kind is None:
            kind = "shell"
            yield STDIN_AS_SHELL
        if kind == "compose":
            yield from _dotenv_note(name, noted)
        yield Source(name, kind, text)


def read_referenced(path: str, roots: Sequence[Path], max_size: int) -> str:
    """A file another file names (a vLLM --config file), read as ``read`` reads one; raises
    ``Refused`` with the reason for the note (``not UTF-8`` included)."""
    try:
        return confined_read(path, roots, max_size).decode("utf-8")
    except UnicodeDecodeError:
        raise Refused("not UTF-8") from None


def _dotenv_note(compose: str, noted: set[str]) -> Iterator[str]:
    """The note for the ``.env`` beside a compose file that vlint could not read (whole), once."""
    from vlint.extract.compose import dotenv_beside  # lazy: only runs that read compose need it

    env, dotenv = dotenv_beside(compose)
    if dotenv.problem is not None and env not in noted:
        noted.add(env)
        yield f"{env}: {dotenv.problem}"


def _expand(paths: Sequence[str], settings: Settings) -> Iterable[str]:
    """The files of ``paths``, each once however often it is given (twice, as ``./x`` and
    ``x``, or by a folder that holds it): the first spelling wins."""
    excluded = _excluded(settings)
    seen: set[str] = set()
    for path in dict.fromkeys(paths):
        for each in [path] if path == "-" else walk([path], excluded):
            key = each if each == "-" else os.path.normpath(os.path.abspath(each))
            if key not in seen:
                seen.add(key)
                yield each


def _excluded(settings: Settings) -> PathMatcher | None:
    """Whether a walked path is excluded: by the ``exclude`` of the settings of the folder it is
    in, with ``per_file``."""
    per_file = settings.per_file
    if per_file is None:
        return _exclude_matcher(settings.config_dir or ".", settings.exclude)

    def excluded(path: str | Path, is_dir: bool) -> bool:
        own = per_file(str(path))
        match = _exclude_matcher(own.config_dir or ".", own.exclude)
        return match is not None and match(path, is_dir)

    return excluded


_MATCHERS: dict[tuple[str, tuple[str, ...]], PathMatcher] = {}


def _exclude_matcher(root: str, patterns: tuple[str, ...]) -> PathMatcher | None:
    if not patterns:
        return None
    if (root, patterns) not in _MATCHERS:
        _MATCHERS[root, patterns] = matcher(root, patterns)
    return _MATCHERS[root, patterns]
