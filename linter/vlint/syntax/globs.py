"""Gitignore-style globs rooted at a folder (the configuration file's), for exclude and
per-file-ignores."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

PathMatcher = Callable[[str | Path, bool], bool]


def matcher(root: str, patterns: Sequence[str]) -> PathMatcher:
    """Whether a path (a folder when the flag is true) matches one of ``patterns`` under ``root``.

    Paths outside ``root`` never match.
    """
    import pathspec  # lazy: only runs with path patterns need it

    spec = pathspec.GitIgnoreSpec.from_lines(patterns)
    base = Path(os.path.abspath(root))

    def match(path: str | Path, is_dir: bool = False) -> bool:
        try:
            relative = Path(os.path.abspath(path)).relative_to(base)
        except ValueError:
            return False
        if relative == Path("."):
            return False
        return spec.match_file(relative.as_posix() + ("/" if is_dir else ""))

    return match
