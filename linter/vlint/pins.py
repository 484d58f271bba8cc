"""The vLLM release a project pins: lock files, requirements files, ``pyproject.toml``.

Looked up from a linted file's folder upwards, stopping at the repository root (a folder with
``.git``).  The nearest folder with a pin wins; within one folder a lock file's exact version
beats a requirement's specifier.  Only the ``vllm`` distribution counts.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

_LOCKS = ("uv.lock", "poetry.lock", "pdm.lock")
_REQUIREMENTS = re.compile(r"^requirements.*\.(txt|in)$")


def pinned_specifier(path: str) -> str | None:
    """The vLLM version or specifier the project around ``path`` pins, if any."""
    folder = Path(path).resolve().parent
    return _nearest(folder)


@cache
def _nearest(folder: Path) -> str | None:
    found = _in_folder(folder)
    if found is not None or (folder / ".git").exists() or folder.parent == folder:
        return found
    return _nearest(folder.parent)


def _in_folder(folder: Path) -> str | None:
    for name in _LOCKS:
        version = _locked(folder / name)
        if version is not None:
            return f"=={version}"
    try:
        names = sorted(p.name for p in folder.iterdir() if _REQUIREMENTS.match(p.name))
    except OSError:
        return None
    for name in names:
        specifier = _required(folder / name)
        if specifier is not None:
            return specifier
    return _from_pyproject(folder / "pyproject.toml")


def _toml(path: Path) -> dict[str, Any] | None:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None


def _locked(path: Path) -> str | None:
    document = _toml(path) if path.is_file() else None
    for package in (document or {}).get("package", ()):
        if isinstance(package, dict) and _names_vllm(str(package.get("name", ""))):
            version = package.get("version")
            return str(version) if version else None
    return None


def _specifier_of(line: str) -> str | None:
    text = line.split("#", 1)[0].strip()
    # Only a line that names vllm needs parsing (and packaging, 15 ms to import).
    if not text or text.startswith("-") or "vllm" not in text.lower():
        return None
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        return None
    if not _names_vllm(requirement.name) or not requirement.specifier:
        return None
    return str(requirement.specifier)


def _names_vllm(name: str) -> bool:
    """Whether a distribution name is vllm's (any case: "vllm" has no separators to normalise,
    so a name without it in any case cannot be vllm)."""
    if "vllm" not in name.lower():
        return False
    from packaging.utils import canonicalize_name

    return canonicalize_name(name) == "vllm"


def _required(path: Path) -> str | None:
    if not path.is_file():  # a FIFO named requirements.txt would block the read
        return None
    try:
        lines = path.read_text("utf-8", "replace").splitlines()
    except OSError:
        return None
    for line in lines:
        found = _specifier_of(line)
        if found is not None:
            return found
    return None


def _from_pyproject(path: Path) -> str | None:
    document = _toml(path) if path.is_file() else None
    if not document:
        return None
    project = document.get("project", {})
    lists = [project.get("dependencies", [])]
    lists += list(project.get("optional-dependencies", {}).values())
    lists += list(document.get("dependency-groups", {}).values())
    for entries in lists:
        for entry in entries if isinstance(entries, list) else ():
            found = _specifier_of(entry) if isinstance(entry, str) else None
            if found is not None:
                return found
    return None
