"""Find the files to lint and decide each one's kind, cheaply.

Kinds come from the file name (``identify``), then the shebang, then content sniffing for
YAML; a byte-level prefilter drops every file that cannot launch vLLM before any parsing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from vlint.globs import PathMatcher

ALWAYS_EXCLUDED = frozenset(
    {".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".mypy_cache",
     ".pytest_cache", ".ruff_cache", ".tox", ".nox", "site-packages"}
)
_COMPOSE_NAME = re.compile(r"^(docker-)?compose([.-].*)?\.ya?ml$|\.compose\.ya?ml$")
_COMPOSE_CONTENT = re.compile(rb"^services:[ \t]*(#.*)?\r?$", re.MULTILINE)
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash"})
_SBATCH = re.compile(rb"^#SBATCH[ \t]", re.MULTILINE)


@dataclass(frozen=True)
class Source:
    path: str
    kind: str
    text: str


def prefilter(data: bytes, path: str = "") -> bool:
    """Whether the file could launch vLLM at all (every launch names ``vllm`` somewhere; a
    vLLM config file, ``vllm-config.yaml``, may name it only in its file name; a KubeAI model
    only as ``engine: VLLM``)."""
    return b"vllm" in data or b"VLLM" in data or "vllm" in os.path.basename(path).lower()


def kind_of(path: str, data: bytes) -> str | None:
    from identify.identify import tags_from_filename

    name = os.path.basename(path)
    tags = tags_from_filename(name)
    if "python" in tags:
        return "python"
    if "shell" in tags or "bash" in tags or "zsh" in tags:
        return "shell"
    if "yaml" in tags:
        return _yaml_kind(path, data)
    if "markdown" in tags:
        return "markdown"
    lowered = name.lower()
    if "dockerfile" in tags or lowered.endswith((".dockerfile", ".containerfile")):
        return "dockerfile"
    if lowered.endswith(".service"):
        return "systemd"
    if lowered.endswith((".sbatch", ".slurm")):
        return "shell"
    if data.startswith(b"#!"):
        interpreter = data[2 : data.find(b"\n") if b"\n" in data else None].split()
        words = [os.path.basename(w.decode("utf-8", "replace")) for w in interpreter]
        if words and words[0] == "env" and len(words) > 1:
            words = words[1:]
        if words and words[0] in _SHELLS:
            return "shell"
        if words and words[0].startswith("python"):
            return "python"
    # A Slurm batch script without a shebang or a known extension is still shell.
    if tags <= {"text"} and _SBATCH.search(data):
        return "shell"
    return None


# YAML kinds in the order they are tried: each module's ``claims(path, data)`` looks at the
# name and the bytes only (no parsing), so the first claim wins cheaply.
YAML_KINDS: tuple[tuple[str, str], ...] = (
    ("compose", "vlint.discover"),
    ("helm", "vlint.extract.helm"),
    ("kubernetes", "vlint.extract.kubernetes"),
    ("launcher", "vlint.extract.launcher"),
    ("vllm-config", "vlint.extract.vllm_config"),
)


def claims(path: str, data: bytes) -> bool:
    """The compose claim: a compose file name, or a top-level ``services:`` key."""
    return bool(_COMPOSE_NAME.search(os.path.basename(path)) or _COMPOSE_CONTENT.search(data))


def _yaml_kind(path: str, data: bytes) -> str | None:
    import importlib

    for kind, module in YAML_KINDS:
        if importlib.import_module(module).claims(path, data):
            return kind
    return None


def walk(paths: Sequence[str], excluded: PathMatcher | None = None) -> Iterator[str]:
    """Every regular file under ``paths``, sorted, skipping VCS and environment folders.

    ``excluded`` (the configuration's ``exclude``) drops files and folders, named ones too, so
    that a pre-commit hook passing file names honours it.
    """
    skip = excluded or (lambda path, is_dir: False)
    for given in paths:
        root = Path(given)
        if root.is_file():
            if not skip(root, False):
                yield given
            continue
        ignored = _gitignore(root)
        if ignored is None and excluded is None:
            yield from _plain_walk(root)
            continue
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(
                d for d in dirs
                if d not in ALWAYS_EXCLUDED and not _ignored(ignored, root, Path(folder, d), True)
                and not skip(Path(folder, d), True)
            )
            for name in sorted(files):
                path = Path(folder, name)
                if not _ignored(ignored, root, path, False) and not skip(path, False):
                    yield str(path)


def _plain_walk(root: Path) -> Iterator[str]:
    """``walk`` when nothing is ignored but ALWAYS_EXCLUDED: the same names, without building a
    Path for every file (a third of the walk).  Folder names from os.walk are already in Path's
    normal form but for the leading ``./`` of the root ``.``, which Path drops."""
    strip = 2 if str(root) == "." else 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in ALWAYS_EXCLUDED)
        for name in sorted(files):
            yield os.path.join(folder, name)[strip:]


def _gitignore(root: Path) -> object | None:
    ignore_file = root / ".gitignore"
    if not ignore_file.is_file():
        return None
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(ignore_file.read_text("utf-8", "replace").splitlines())


def _ignored(spec: object | None, root: Path, path: Path, is_dir: bool) -> bool:
    if spec is None:
        return False
    import pathspec

    assert isinstance(spec, pathspec.PathSpec)
    relative = path.relative_to(root).as_posix() + ("/" if is_dir else "")
    return spec.match_file(relative)
