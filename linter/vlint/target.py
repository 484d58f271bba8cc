"""Which vLLM release(s) a launch is checked against, and the release a project pins.

A launch is checked against the target the user gave (``--target-version`` or the
configuration's), else the release its image pins (the tag of an image repository known to hold
vLLM, ``knowledge/images.py``, or a ``pip install vllm==X`` in the Dockerfile it is built from),
else the project's pin, else the newest release vlint knows (``releases_for``).  An image known
to hold vLLM whose tag names no release (``vllm/vllm-openai:nightly-cu130``, a digest alone, a
vendor version vlint has no mapping for) falls back to the pins or the default, with a note
saying so.

The project's pin comes from lock files, requirements files or ``pyproject.toml``, looked up from a linted file's folder upwards, stopping at the repository root (a folder with
``.git``), or at the file's own folder outside a repository; every pin file is read through the
confined reader, so a symlink out of the repository (or a FIFO) is never read.  The nearest folder with a pin wins; within one folder a lock file's exact version
beats a requirement's specifier.  Only the ``vllm`` distribution counts.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

from packaging.version import Version

from vlint.discover import Refused, confined_read, linted_roots
from vlint.knowledge.images import LATEST, unversioned_note
from vlint.knowledge import catalog
from vlint.model import Invocation

_LOCKS = ("uv.lock", "poetry.lock", "pdm.lock")
_SPECIFIER_STARTS = frozenset("=<>~!")
_REQUIREMENTS = re.compile(r"^requirements.*\.(txt|in)$")


class Choice(NamedTuple):
    """The releases one launch is checked against, the notes saying why, and whether nothing
    named them (the newest known release was taken)."""

    releases: tuple[Version, ...]
    notes: tuple[str, ...] = ()
    defaulted: bool = False


def user_target(text: str) -> Choice:
    """The releases a ``--target-version`` (or a configuration's target) names."""
    resolved = catalog.target(text)
    return Choice(tuple(resolved.releases), (resolved.note,) if resolved.note else ())


def releases_for(invocation: Invocation, given: Sequence[Version] | None) -> Choice:
    """The releases ``invocation`` is checked against: ``given`` (the user's target), else its
    image tag, else its project's pins, else the newest release vlint knows."""
    if given is not None:
        return Choice(tuple(given))
    where = f"{invocation.path}:{invocation.anchor.start.line}"
    if invocation.target is not None:
        if invocation.target == LATEST:
            return Choice((catalog.newest(),), (
                f"{where}: the image tag means the latest vLLM release; checked as "
                f"{catalog.newest()}, the newest vlint knows (pin the tag)",))
        if is_install_pin(invocation.target):
            installs = f"{where}: the image's build installs vllm{invocation.target}"
            return pinned(invocation.target, installs, installs)
        return pinned(invocation.target, f"{where}: image pins vLLM {invocation.target}",
                      f"{where}: image tag")
    unversioned = unversioned_note(invocation.image) if invocation.image else None
    by_project = project_releases(invocation.path)
    if by_project is None:
        by_project = Choice((catalog.newest(),), defaulted=True)
    if unversioned is None:
        return by_project
    fallback = "the project's pins" if not by_project.defaulted else "the default release"
    note = f"{where}: {unversioned}; checked against {fallback}"
    return by_project._replace(notes=(note, *by_project.notes))


def is_install_pin(target: str) -> bool:
    """Whether an invocation's ``target`` is the specifier of a vLLM install in the image's
    build (``==0.9.2``, ``>=0.9``: ``RUN pip install vllm==0.9.2``), not an image tag's release.
    """
    return target[:1] in _SPECIFIER_STARTS


def project_releases(path: str) -> Choice | None:
    """The releases the project's own pins name (lock, requirements, pyproject), if any."""
    specifier = pinned_specifier(path)
    if specifier is None:
        return None
    pins = f"{path}: the project pins vllm{specifier}"
    return pinned(specifier, pins, pins)


def pinned(text: str, pins: str, noted: str) -> Choice:
    """The known releases a pin names; none (with a note) when the catalog does not cover it,
    since judging a pinned old release by another release's flags gives false errors."""
    try:
        resolved = catalog.target(text)
    except catalog.UnknownTarget:
        return Choice((), (f"{pins}, which this catalog does not cover "
                           f"({catalog.known_range()}); not checked (pass --target-version to "
                           "check it against a known release)",))
    notes = (f"{noted}: {resolved.note}",) if resolved.note else ()
    return Choice(tuple(resolved.releases), notes)


# Lock files of large projects run to megabytes; nothing bigger is a lock file vlint reads.
MAX_PIN_FILE_SIZE = 32 * 2**20  # bytes


def pinned_specifier(path: str) -> str | None:
    """The vLLM version or specifier the project around ``path`` pins, if any."""
    folder = Path(path).resolve().parent
    return _nearest(folder, linted_roots([path])[0])


@cache
def _nearest(folder: Path, root: Path) -> str | None:
    if folder != root and not folder.is_relative_to(root):
        return None
    found = _in_folder(folder, root)
    if found is not None or folder == root or folder.parent == folder:
        return found
    return _nearest(folder.parent, root)


def _in_folder(folder: Path, root: Path) -> str | None:
    for name in _LOCKS:
        version = _locked(folder / name, root)
        if version is not None:
            return f"=={version}"
    try:
        names = sorted(p.name for p in folder.iterdir() if _REQUIREMENTS.match(p.name))
    except OSError:
        return None
    for name in names:
        specifier = _required(folder / name, root)
        if specifier is not None:
            return specifier
    return _from_pyproject(folder / "pyproject.toml", root)


def _text(path: Path, root: Path) -> str | None:
    """The file's text, read inside ``root`` only; None when it is absent or refused."""
    if not os.path.lexists(path):
        return None
    try:
        return confined_read(str(path), (root,), MAX_PIN_FILE_SIZE).decode("utf-8", "replace")
    except Refused:
        return None


def _toml(path: Path, root: Path) -> dict[str, Any] | None:
    text = _text(path, root)
    if text is None:
        return None
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None


def _locked(path: Path, root: Path) -> str | None:
    document = _toml(path, root)
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
    from packaging.requirements import InvalidRequirement, Requirement  # lazy: 15 ms, rare

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
    from packaging.utils import canonicalize_name  # lazy: only for a name that may be vllm

    return canonicalize_name(name) == "vllm"


def _required(path: Path, root: Path) -> str | None:
    text = _text(path, root)  # never a FIFO named requirements.txt, which would block the read
    for line in (text or "").splitlines():
        found = _specifier_of(line)
        if found is not None:
            return found
    return None


def _from_pyproject(path: Path, root: Path) -> str | None:
    document = _toml(path, root)
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
