"""Hand-curated facts in ``vlint_rules/curated/*.toml``, each with its release range and source.

TOML, not YAML: the standard library reads it in about a millisecond, on every run.  Each
document has one loader here, returning typed values; rules and normalisers never read the
TOML themselves.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import Version

import vlint_rules

CURATED = Path(vlint_rules.__file__).parent / "curated"


@cache
def document(name: str) -> Mapping[str, Any]:
    with (CURATED / f"{name}.toml").open("rb") as handle:
        return tomllib.load(handle)


def _holds(releases: SpecifierSet, version: Version) -> bool:
    return releases.contains(version, prereleases=True)


# -- bounds.toml: cross-field scheduler bounds (VL3xx) ------------------------------------------


@dataclass(frozen=True)
class Bound:
    """``left <op> product(right)`` must hold in ``releases`` when ``when`` holds."""

    code: str
    name: str
    severity: str
    when: Mapping[str, Any]
    left: str
    op: str
    right: tuple[str, ...]
    releases: SpecifierSet
    source: str
    vllm_message: str

    def requirement(self) -> str:
        return f"{self.left} {self.op} {' * '.join(self.right)}"

    def holds_in(self, version: Version) -> bool:
        return _holds(self.releases, version)


@cache
def bounds(code: str) -> tuple[Bound, ...]:
    """The curated bounds of the rule ``code``, one per era."""
    return tuple(
        Bound(
            code=entry["code"],
            name=entry["name"],
            severity=entry["severity"],
            when=entry.get("when") or {},
            left=entry["left"],
            op=entry["op"],
            right=tuple(entry["right"]),
            releases=SpecifierSet(entry.get("vllm", "")),
            source=entry.get("source", ""),
            vllm_message=entry.get("vllm_message", ""),
        )
        for entry in document("bounds").get("bounds", ())
        if entry["code"] == code
    )


@cache
def chunked_prefill_era(version: Version) -> Mapping[str, Any] | None:
    """What the release does with chunked prefill turned off (``facts.chunked_prefill_eras``
    of bounds.toml: ``disable``, ``honoured_with_env``, ``ignored_with_env``, ``help``)."""
    facts: Mapping[str, Any] = document("bounds").get("facts") or {}
    for era in facts.get("chunked_prefill_eras", ()):
        if _holds(SpecifierSet(era["vllm"]), version):
            found: Mapping[str, Any] = era
            return found
    return None


# -- renames.toml: removed option strings and what replaces them (VL103) -----------------------


@dataclass(frozen=True)
class Rename:
    """A curated removal (``renames.toml``): what replaces ``old``, if anything."""

    old: str
    last: str
    replacement: str
    since: str
    fix: str
    help: str
    source: str


@cache
def renames() -> Mapping[str, Rename]:
    return _renames("renames")


def _renames(name: str) -> Mapping[str, Rename]:
    """The ``[[renames]]`` of the curated file ``name``, by their ``old`` name."""
    return {
        entry["old"]: Rename(
            old=entry["old"],
            last=entry["last"],
            replacement=entry.get("replacement", ""),
            since=entry.get("since", ""),
            fix=entry.get("fix", ""),
            help=entry.get("help", ""),
            source=entry.get("source", ""),
        )
        for entry in document(name).get("renames", ())
    }


# -- env_renames.toml: environment variables vLLM stopped reading (VL404) ------------------------


@cache
def env_renames() -> Mapping[str, Rename]:
    """What replaced each variable vLLM no longer reads (``env_renames.toml``, the shape of
    ``renames.toml``)."""
    return _renames("env_renames")


# -- keywords.toml: Python keywords a string breaks (VL207) ------------------------------------


@dataclass(frozen=True)
class StringBreak:
    """In ``releases``, a string given for ``setting`` breaks vLLM's computation of a default
    unless ``unless_written`` is written; vLLM then fails with ``vllm_message``."""

    setting: str
    unless_written: str
    releases: SpecifierSet
    vllm_message: str


@cache
def _string_breaks() -> tuple[StringBreak, ...]:
    return tuple(
        StringBreak(
            setting=fact["setting"],
            unless_written=fact["unless_written"],
            releases=SpecifierSet(fact["vllm"]),
            vllm_message=str(fact["vllm_message"]),
        )
        for fact in document("keywords").get("string_breaks_defaults", ())
    )


def string_breaks(setting: str, version: Version) -> tuple[StringBreak, ...]:
    """The curated breaks of a string for ``setting`` that hold in the release ``version``."""
    return tuple(fact for fact in _string_breaks()
                 if fact.setting == setting and _holds(fact.releases, version))


# -- images.toml: image repositories known to hold vLLM, and what their tags say -------------


@dataclass(frozen=True)
class ImageRepository:
    """A repository of ``images.toml``: how its tags name the vLLM release inside (``tags``:
    ``release``, ``pattern``, ``map`` or ``own``, as the file's header says)."""

    repository: str
    tags: str
    pattern: str = ""
    not_releases: frozenset[str] = frozenset()
    key: str = ""
    releases: Mapping[str, str] = field(default_factory=dict)
    source: str = ""


@cache
def image_repositories() -> Mapping[str, ImageRepository]:
    """The curated image repositories, by repository name."""
    return {
        entry["repository"]: ImageRepository(
            repository=entry["repository"],
            tags=entry["tags"],
            pattern=entry.get("pattern", ""),
            not_releases=frozenset(entry.get("not_releases", ())),
            key=entry.get("key", ""),
            releases=dict(entry.get("releases", {})),
            source=entry.get("source", ""),
        )
        for entry in document("images").get("repositories", ())
    }


# -- engine_wrappers.toml: other libraries' classes that start vLLM's engine -------------------


@dataclass(frozen=True)
class EngineWrapper:
    """A class that builds vLLM's engine (``callee``: ``vllm.LLM(...)`` or
    ``AsyncEngineArgs(...)``) from its own keywords: those in ``passed`` go to it unchanged,
    those in ``renamed`` under the engine's name for them, the mapping given as ``unpacked`` is
    unpacked into it, and a non-empty ``client_when`` keyword makes the class a client of a
    running server instead."""

    passed: frozenset[str]
    unpacked: str
    client_when: str | None
    source: str
    renamed: Mapping[str, str] = field(default_factory=dict)
    callee: str = "LLM"


@cache
def engine_wrappers() -> Mapping[str, EngineWrapper]:
    """Each curated wrapper class by every qualified name it is imported by."""
    found: dict[str, EngineWrapper] = {}
    for row in document("engine_wrappers").get("wrappers", ()):
        wrapper = EngineWrapper(frozenset(row["passed"]), str(row["unpacked"]),
                                row.get("client_when"), str(row["source"]),
                                {str(k): str(v) for k, v in row.get("renamed", {}).items()},
                                str(row.get("callee", "LLM")))
        for name in row["names"]:
            found[str(name)] = wrapper
    return found
