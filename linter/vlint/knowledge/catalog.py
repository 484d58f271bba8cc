"""What each vLLM release accepts, read from the generated data in ``vlint_rules``.

Loading is lazy and cached: a run that targets one release reads that release's keyframe and
the few deltas after it (``vlint_rules.store``).  Facts that span releases (when an option
string was present, when it was first marked deprecated) come from ``lifecycle.json``, so they
need no release to be loaded.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

import vlint_rules
from vlint_rules import store

DATA = Path(vlint_rules.__file__).parent / "data"


@dataclass(frozen=True)
class OptionSpec:
    """One argparse action of a release's parser."""

    strings: tuple[str, ...]
    dest: str
    action: str
    nargs: int | str | None
    const: Any
    type: Mapping[str, Any] | None
    choices: tuple[Any, ...] | None
    default: Any
    default_known: bool
    deprecated: str | None
    deprecated_warning: str | None = None
    negative_strings: frozenset[str] | None = None
    hidden: frozenset[str] = frozenset()

    def stores(self, string: str) -> bool | None:
        """The value a value-less boolean option string stores; None if not boolean."""
        if self.action == "store_true":
            return True
        if self.action == "store_false":
            return False
        if self.negative_strings is not None:
            return string not in self.negative_strings
        return None

    @property
    def takes_value(self) -> bool:
        return self.nargs != 0 and self.action not in _FLAG_ACTIONS

    @property
    def name(self) -> str:
        longs = [s for s in self.strings if s.startswith("--")]
        return longs[0] if longs else self.strings[0]


_FLAG_ACTIONS = frozenset(
    {"store_true", "store_false", "store_const", "count", "help", "version", "boolean_optional"}
)


@dataclass(frozen=True, eq=False)
class ParserSpec:
    options: tuple[OptionSpec, ...]
    positionals: tuple[Mapping[str, Any], ...]
    features: Mapping[str, Any]
    allow_abbrev: bool

    @cached_property
    def by_string(self) -> Mapping[str, OptionSpec]:
        return {string: option for option in self.options for string in option.strings}

    @cached_property
    def long_strings(self) -> tuple[str, ...]:
        return tuple(sorted(s for s in self.by_string if s.startswith("--")))

    @cached_property
    def by_dest(self) -> Mapping[str, OptionSpec]:
        found: dict[str, OptionSpec] = {}
        for option in self.options:
            found.setdefault(option.dest, option)
        return found

    def feature(self, name: str) -> bool:
        """Whether the generator's probe of the real parser found this behaviour."""
        found = self.features.get(name)
        if isinstance(found, Mapping):
            return bool(found.get("supported"))
        return bool(found)


@dataclass(frozen=True, eq=False)
class Release:
    version: Version
    raw: Mapping[str, Any]

    def __str__(self) -> str:
        return str(self.version)

    @cache
    def parser(self, entry: str = "serve") -> ParserSpec | None:
        data = self.raw.get(entry)
        if not data:
            return None
        return ParserSpec(
            options=tuple(_option(o) for o in data["options"]),
            positionals=tuple(data.get("positionals", ())),
            features=data.get("features", {}),
            allow_abbrev=bool(data.get("parser", {}).get("allow_abbrev", True)),
        )

    def ships_module(self, module: str) -> bool | None:
        """Whether the release's package has ``module`` (``vllm.entrypoints.api_server``), as
        the generator found it in the release's sources; None where the data does not say."""
        modules: Mapping[str, bool] = self.raw.get("modules") or {}
        return modules.get(module)

    @cached_property
    def types(self) -> Mapping[str, Mapping[str, Any]]:
        types: Mapping[str, Mapping[str, Any]] = self.raw.get("types", {})
        return types

    def type_of(self, option: OptionSpec) -> Mapping[str, Any] | None:
        spec = option.type
        if spec is None:
            return None
        ref = spec.get("id") if isinstance(spec, Mapping) else spec
        if isinstance(ref, str) and ref in self.types:
            found = {**self.types[ref], "id": ref}
            if found.get("kind") == "config_json":
                found["human_ints"] = self._json_human_ints
            return found
        return spec

    @cached_property
    def _json_human_ints(self) -> bool:
        """Whether bare human-readable numbers (``1k``) inside a config JSON are expanded: the
        generator's probe of the dotted form, which came with the JSON one."""
        parser = self.parser("serve") or self.parser("api_server")
        return parser is not None and parser.feature("dotted_json_human_int")

    @cache
    def engine_fields(self, callee: str) -> Mapping[str, Mapping[str, Any]]:
        """Keyword arguments accepted by ``EngineArgs``/``AsyncEngineArgs``/``LLM``."""
        engine = self.raw.get("engine_args", {})
        fields = {f["name"]: f for f in engine.get("AsyncEngineArgs" if callee == "AsyncEngineArgs"
                                                    else "EngineArgs", ())}
        if callee == "LLM":
            llm = self.raw.get("llm_params", {})
            params = {name: {"name": name} for name in llm.get("params", ())}
            if llm.get("var_keyword", True):
                return {**fields, **params}
            return params
        return fields

    @cached_property
    def env_vars(self) -> frozenset[str]:
        return frozenset(self.raw.get("env_vars", ()))

    @cached_property
    def api_key_paths(self) -> tuple[str, ...]:
        """The path prefixes the release's API server answers only with the API key (``/v1``;
        later also ``/v2``, ``/inference``, ``/cohere``), from its authentication middleware
        (``rules/generator/server_auth.py``)."""
        return tuple(self.raw.get("api_key_paths", ()))


def _option(data: Mapping[str, Any]) -> OptionSpec:
    deprecated = data.get("deprecated")
    return OptionSpec(
        strings=tuple(data["strings"]),
        dest=data["dest"],
        action=data.get("action", "store"),
        nargs=data.get("nargs"),
        const=data.get("const"),
        type=data.get("type"),
        choices=tuple(data["choices"]) if data.get("choices") is not None else None,
        default=data.get("default"),
        default_known=bool(data.get("default_known", False)),
        deprecated=(deprecated.get("message") or "deprecated") if deprecated else None,
        deprecated_warning=deprecated.get("warning") if deprecated else None,
        hidden=frozenset(data.get("hidden") or ()),
        negative_strings=(
            frozenset(data["negative_strings"]) if data.get("negative_strings") is not None
            else None
        ),
    )


def _data(name: str) -> Mapping[str, Any]:
    with (DATA / name).open(encoding="utf-8") as handle:
        loaded: Mapping[str, Any] = json.load(handle)
    return loaded


@cache
def index() -> Mapping[str, Any]:
    return _data("index.json")


@cache
def known_releases() -> tuple[Version, ...]:
    return tuple(sorted(Version(v) for v in index()["releases"]))


def newest() -> Version:
    return known_releases()[-1]


@cache
def _names() -> Mapping[Version, str]:
    return {Version(v): v for v in index()["releases"]}


def _read(name: str) -> Mapping[str, Any]:
    with (DATA / "releases" / f"{name}.json").open(encoding="utf-8") as handle:
        stored: Mapping[str, Any] = json.load(handle)
    return stored


# Stored forms of the releases rebuilt so far (keyframes and deltas share them).
_STORED: dict[str, Any] = {}


@cache
def load(version: str | Version) -> Release:
    wanted = Version(str(version))
    name = _names().get(wanted)
    if name is None:
        raise KeyError(str(version))
    return Release(wanted, store.unpack(name, _read, _STORED))


class UnknownTarget(ValueError):
    """A target version or range that names no known release; ``reason`` says why, in words
    a message can quote (``not a vLLM release; nearest: 0.12.0``)."""

    def __init__(self, text: str, reason: str) -> None:
        super().__init__(text)
        self.text = text
        self.reason = reason


def resolve_target(text: str) -> tuple[Version, ...]:
    """The known releases a ``--target-version`` value names: one release, or a range."""
    return target(text).releases


@dataclass(frozen=True)
class Target:
    """The known releases a target names, and a note when they are a stand-in."""

    releases: tuple[Version, ...]
    note: str | None = None


def target(text: str) -> Target:
    """Resolve a release (``0.10.1``, ``v0.10.1``) or a PEP 440 range (``>=0.8,<0.11``).

    A target newer than every known release is checked as the newest known one, with a note
    (its flags are most likely the newest's plus some); an unknown release inside or below the
    known range raises UnknownTarget, since judging it by another release gives false errors.
    """
    text = text.strip()
    known = known_releases()
    try:
        version = Version(text.removeprefix("v"))
    except InvalidVersion:
        version = None
    if version is not None:
        if version in known:
            return Target((version,))
        if version > known[-1]:
            return Target((known[-1],), _newer_note(text))
        if version < known[0]:
            raise UnknownTarget(text, "older than every release vlint knows")
        raise UnknownTarget(text, f"not a vLLM release; nearest: {nearest(version)}")
    try:
        specifier = SpecifierSet(text)
    except InvalidSpecifier as error:
        raise UnknownTarget(text, "neither a release (0.32.0) nor a range (>=0.31,<0.33)"
                            ) from error
    matched = tuple(v for v in known if specifier.contains(v, prereleases=True))
    if matched:
        return Target(matched)
    if any(v > known[-1] and specifier.contains(v, prereleases=True)
           for v in _versions_named(specifier)):
        return Target((known[-1],), _newer_note(text))
    raise UnknownTarget(text, "no release vlint knows is in that range")


def nearest(version: Version) -> Version:
    """The known release a user most likely meant by an unknown one inside the known range: the
    last of its own minor series below it (0.12.5: 0.12.0), else the last release below it."""
    known = known_releases()
    below = [v for v in known if v < version]
    same_series = [v for v in below if v.release[:2] == version.release[:2]]
    return (same_series or below or known)[-1]


def _versions_named(specifier: SpecifierSet) -> Iterable[Version]:
    """The versions a range names, and the next ones: enough to see if it lies above ours."""
    for clause in specifier:
        try:
            named = Version(clause.version.replace(".*", ""))
        except InvalidVersion:
            continue
        release = named.release
        yield named
        yield Version(".".join(map(str, (*release[:-1], release[-1] + 1))))
        yield Version(".".join(map(str, (*release, 1))))


def _newer_note(text: str) -> str:
    return (f"vLLM {text} is newer than every release vlint knows; checked as "
            f"{newest()}, the newest known (flags added since are not known yet)")


def known_range() -> str:
    known = known_releases()
    return f"{known[0]} to {known[-1]}"


@dataclass(frozen=True)
class Lifetime:
    """The known releases that had an option string: ``first`` and ``last``, and ``ranges`` of
    consecutive known releases (a string can disappear and come back)."""

    first: Version
    last: Version
    ranges: tuple[tuple[Version, Version], ...] = ()
    deprecated_in: Version | None = None
    deprecated_message: str | None = None

    def present_in(self, version: Version) -> bool:
        return any(low <= version <= high for low, high in self.ranges or ((self.first, self.last),))


@cache
def lifecycle() -> Mapping[str, Any]:
    return _data("lifecycle.json")


@cache
def option_lifetimes(entry: str = "serve") -> Mapping[str, Lifetime]:
    """Every option string of this entry point (``serve``, ``api_server``) in any known release:
    the releases that had it, and where it was first marked deprecated."""
    facts = lifecycle().get(entry) or {}
    versions = {name: Version(name) for name in index()["releases"]}
    deprecated = facts.get("deprecated", {})
    lifetimes: dict[str, Lifetime] = {}
    for string, spans in facts.get("options", {}).items():
        ranges = tuple((versions[low], versions[high]) for low, high in spans)
        mark = deprecated.get(string)
        lifetimes[string] = Lifetime(
            ranges[0][0], ranges[-1][1], ranges,
            versions[mark["release"]] if mark else None,
            (mark.get("message") or "deprecated") if mark else None,
        )
    return lifetimes


@cache
def _entry_releases(entry: str) -> frozenset[Version]:
    facts = lifecycle().get(entry) or {}
    return frozenset(Version(name) for name in facts.get("releases", ()))


def has_entry(version: Version, entry: str) -> bool:
    """Whether the release has this entry point (``vllm serve`` came after the api_server
    module)."""
    return version in _entry_releases(entry)


def option_strings(version: Version, entry: str = "serve") -> frozenset[str]:
    """The option strings of one release's entry point (empty if it has none), without loading
    the release."""
    return frozenset(string for string, life in option_lifetimes(entry).items()
                     if life.present_in(version))


def added_removed(a: Version, b: Version, entry: str = "serve"
                  ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The option strings release ``b`` has that ``a`` has not, and those ``a`` has that ``b``
    has not (sorted)."""
    before, after = option_strings(a, entry), option_strings(b, entry)
    return tuple(sorted(after - before)), tuple(sorted(before - after))


def release_list(versions: Sequence[str]) -> str:
    """``0.31.0 and 0.32.0``, ``0.30.0 to 0.33.0`` (every known release between), or a list."""
    if len(versions) <= 2:
        return " and ".join(versions)
    known = _release_names()
    first, last = known.index(versions[0]), known.index(versions[-1])
    if known[first : last + 1] == tuple(versions):
        return f"{versions[0]} to {versions[-1]}"
    return ", ".join(versions)


@cache
def _release_names() -> tuple[str, ...]:
    return tuple(str(v) for v in known_releases())
