"""User configuration: ``vlint.toml``, ``.vlint.toml`` or ``[tool.vlint]`` in ``pyproject.toml``.

Each file linted uses the nearest configuration file at or above it, never one above its
repository's root (the nearest folder holding ``.git``); ``--config`` names one file for all,
``--isolated`` reads none.  Options on the command line override every file's configuration.
Configuration files and the policy files they name are read only inside their repository.
This is the one edge where pydantic validates user input; the rest of vlint sees a frozen
:class:`Config`.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vlint.config.codes import Known, UnknownCode
from vlint.discover import Refused, confined_read, linted_roots, repository_root
from vlint.errors import ConfigError
from vlint.knowledge import catalog
from vlint.model import Severity
from vlint.settings import LIVENESS_BUDGET, Settings

if TYPE_CHECKING:
    from vlint.policy.policies import Policy

CONFIG_NAMES = ("vlint.toml", ".vlint.toml", "pyproject.toml")
# The entry point group of policy packs (vlint.policy.policies.installed reads them).
# Configuration and policy files are small; a bigger one is refused, not read.
MAX_CONFIG_SIZE = 2**20


@dataclass(frozen=True)
class Config:
    path: Path
    target_version: str | None = None
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] | None = None
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    severity: tuple[tuple[str, Severity], ...] = ()
    fail_on: Severity = "warning"
    policies: tuple[Policy, ...] = ()
    warnings_as_errors: bool = False
    policy_packs: tuple[str, ...] = ()
    liveness_budget: int = LIVENESS_BUDGET

    @property
    def folder(self) -> Path:
        return self.path.parent


def for_files(
    paths: Sequence[str],
    explicit: str | None,
    isolated: bool,
    flags: Settings,
    packs: Sequence[str] = (),
) -> Settings:
    """The settings of a run: ``flags`` (the command line, and the policy ``packs`` it names)
    over the configuration ``--config`` names, none when isolated, else over each file's own
    (``Settings.per_file``).  ``paths`` are the linted paths: no pack is imported from inside
    them."""

    untrusted = linted_roots(paths)
    if isolated or explicit is not None:
        return merge(for_run(paths, explicit, isolated), flags, packs, untrusted)
    return replace(flags, per_file=Nearest(flags, tuple(packs), untrusted))


class Nearest:
    """Each file's settings: the command line over the nearest configuration file at or above
    the file, within its repository.  Files with the same configuration file get the same
    Settings object (so that they are linted and filtered together); every folder and file is
    looked at once per run."""

    def __init__(self, flags: Settings, packs: tuple[str, ...], untrusted: tuple[Path, ...]):
        self._flags = flags
        self._packs = packs
        self._untrusted = untrusted
        self._folders: dict[str, Path | None] = {}
        self._settings: dict[Path | None, Settings] = {}

    def __call__(self, path: str) -> Settings:
        folder = os.getcwd() if path == "-" else os.path.dirname(os.path.abspath(path))
        found = self.config_of(folder)
        if found not in self._settings:
            loaded = None if found is None else load(found)
            self._settings[found] = merge(loaded, self._flags, self._packs, self._untrusted)
        return self._settings[found]

    def policies(self) -> tuple[Policy, ...]:
        """The policies of every file's settings made so far."""
        return tuple(p for settings in self._settings.values() for p in settings.policies)

    def config_of(self, folder: str) -> Path | None:
        """The configuration file at or above ``folder`` (absolute), within its repository."""
        walked: list[str] = []
        root: Path | None = None
        found: Path | None = None
        while folder not in self._folders:
            walked.append(folder)
            if root is None:

                root = repository_root(folder) or Path(os.sep)
            found = _config_in(Path(folder))
            parent = os.path.dirname(folder)
            if found is not None or parent == folder or os.path.realpath(folder) == str(root):
                break
            folder = parent
        else:
            found = self._folders[folder]
        for each in walked:
            self._folders[each] = found
        return found


def find(paths: Sequence[str]) -> Path | None:
    """The configuration file of the first of ``paths`` (its nearest, within its repository)."""

    given = paths[0] if paths else "."
    start = os.path.abspath(given)
    if given == "-":
        folder = os.getcwd()
    else:
        folder = start if os.path.isdir(start) else os.path.dirname(start)
    return Nearest(Settings(), (), ()).config_of(folder)


def _config_in(folder: Path) -> Path | None:
    for name in CONFIG_NAMES:
        path = folder / name
        if os.path.lexists(path) and (name != "pyproject.toml" or _has_tool_table(path)):
            return path
    return None


def _roots(path: Path) -> tuple[Path, ...]:
    """Where a configuration file and the files it names may be: its repository, or its own
    folder outside any repository."""

    folder = path.parent.resolve()
    return (repository_root(str(folder)) or folder,)


def _has_tool_table(path: Path) -> bool:
    data = _toml(path, _roots(path))
    return isinstance(data.get("tool"), dict) and "vlint" in data["tool"]


def _toml(path: Path, roots: Sequence[Path]) -> dict[str, Any]:
    try:
        text = confined_read(str(path), roots, MAX_CONFIG_SIZE).decode("utf-8")
    except Refused as refused:
        raise ConfigError(f"invalid config: {path}: cannot read it ({refused.reason})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"invalid config: {path}: not UTF-8") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        # tomllib's message names the problem and the line and column, never the text.
        raise ConfigError(f"invalid config: {path}: not valid TOML ({error})") from None


def load(path: Path, explicit: bool = False) -> Config:
    """Read and validate one configuration file (a pyproject.toml without the table is empty).

    ``explicit``: named with ``--config``, so read wherever it is (the files it names stay
    inside its repository)."""
    from vlint.config.schema import validate  # lazy: pydantic, only when a file is read

    roots = _roots(path)
    options = validate(path, _table(path, (path.resolve().parent,) if explicit else roots))
    if isinstance(options, list):
        raise ConfigError("\n".join(f"invalid config: {path}: {problem}" for problem in options))
    if options.target_version is not None:
        _check_target(path, options.target_version)

    from vlint.config.presets import combine  # lazy: only a run with a configuration file

    preset = combine(options.extends)
    select = options.select if options.select is not None else preset.select
    return Config(
        path=path,
        target_version=options.target_version,
        select=None if select is None else tuple(select),
        extend_select=tuple(options.extend_select),
        ignore=None if options.ignore is None else tuple(options.ignore),
        per_file_ignores=tuple((g, tuple(c)) for g, c in options.per_file_ignores.items()),
        exclude=tuple(options.exclude),
        severity=tuple(options.severity.items()),
        fail_on=options.fail_on,
        policies=preset.policies + _policies(path, options.policies, roots),
        warnings_as_errors=preset.warnings_as_errors,
        policy_packs=tuple(options.policy_packs),
        liveness_budget=options.liveness_budget,
    )


def _policies(path: Path, files: Sequence[str], roots: Sequence[Path]) -> tuple[Policy, ...]:
    from vlint.policy.policies import load_text  # lazy: only a configuration with policies

    found: list[Policy] = []
    for name in files:
        policy_path = path.parent / name
        if not os.path.lexists(policy_path):
            raise ConfigError(f"invalid config: {path}: policies: no policy file {name!r}")
        try:
            text = confined_read(str(policy_path), roots, MAX_CONFIG_SIZE).decode("utf-8")
        except Refused as refused:
            raise ConfigError(
                f"invalid config: {path}: policies: cannot read {name!r} ({refused.reason})"
            ) from None
        except UnicodeDecodeError:
            raise ConfigError(f"invalid config: {path}: policies: {name!r} is not UTF-8") from None
        found.extend(load_text(text, str(policy_path), str(path.parent)))
    return tuple(found)


def _table(path: Path, roots: Sequence[Path]) -> Mapping[str, Any]:
    data = _toml(path, roots)
    if path.name != "pyproject.toml":
        return data
    table = data.get("tool", {}).get("vlint", {})
    if not isinstance(table, dict):
        raise ConfigError(f"invalid config: {path}: [tool.vlint] must be a table")
    return table


def _check_target(path: Path, target: str) -> None:
    try:
        catalog.resolve_target(target)
    except catalog.UnknownTarget:
        raise ConfigError(
            f"invalid config: {path}: target-version {target!r} is not a release or range "
            f"vlint knows; use one within vLLM {catalog.known_range()}"
        ) from None


def for_run(paths: Sequence[str], explicit: str | None, isolated: bool) -> Config | None:
    """One configuration for a whole run: ``--config``, else the first path's, none when
    isolated (``vlint confirm``; ``vlint check`` takes each file's with ``for_files``)."""
    if isolated:
        return None
    if explicit is not None:
        return load(Path(explicit), explicit=True)
    found = find(paths)
    return None if found is None else load(found)


def merge(
    config: Config | None,
    flags: Settings,
    packs: Sequence[str] = (),
    untrusted: Sequence[Path] = (),
) -> Settings:
    """``flags`` (from the command line) over ``config``: a flag given replaces the key.  The
    policy packs ``packs`` and the configuration name are loaded, never from ``untrusted``."""
    named = tuple(dict.fromkeys((*packs, *(config.policy_packs if config else ()))))
    installed = _packs(named, tuple(untrusted)) if named else ()
    if config is None:
        return replace(flags, policies=_unique(flags.policies + installed))
    policies = _unique(flags.policies + config.policies + installed)
    _check_codes(config, policies)
    return replace(
        flags,
        target=flags.target or config.target_version,
        select=flags.select or config.select or (),
        extend_select=config.extend_select + flags.extend_select,
        ignore=flags.ignore or config.ignore or (),
        per_file_ignores=config.per_file_ignores,
        exclude=config.exclude,
        severity=config.severity,
        config_dir=str(config.folder),
        policies=policies,
        warnings_as_errors=config.warnings_as_errors,
        fail_on=config.fail_on,
        liveness_budget=config.liveness_budget,
    )


def _check_codes(config: Config, policies: Sequence[Policy]) -> None:
    """ConfigError for a code the configuration names that no rule or policy of it has."""

    known = Known(policies)
    keys = {
        "select": config.select or (), "extend-select": config.extend_select,
        "ignore": config.ignore or (),
        "per-file-ignores": tuple(c for _, codes in config.per_file_ignores for c in codes),
        "severity": tuple(code for code, _ in config.severity),
    }
    for key, codes in keys.items():
        try:
            known.codes(codes)
        except UnknownCode as unknown:
            raise ConfigError(f"invalid config: {config.path}: {key}: {unknown}") from None


@cache
def _packs(names: tuple[str, ...], untrusted: tuple[Path, ...]) -> tuple[Policy, ...]:
    from vlint.policy.policies import installed  # lazy: only a run naming policy packs

    return installed(names, untrusted)


def _unique(policies: tuple[Policy, ...]) -> tuple[Policy, ...]:
    if not policies:
        return ()
    from vlint.policy.policies import unique  # lazy: only a run with policies

    return unique(policies)
