"""User configuration: ``vlint.toml``, ``.vlint.toml`` or ``[tool.vlint]`` in ``pyproject.toml``.

The file is found by walking up from the linted paths (the first folder that has one wins), or
named with ``--config``.  This is the one edge where pydantic validates user input; the rest of
vlint sees a frozen :class:`Config`.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vlint.model import Severity

if TYPE_CHECKING:
    from vlint.lint import Settings
    from vlint.policy import Policy

CONFIG_NAMES = ("vlint.toml", ".vlint.toml", "pyproject.toml")
# The entry point group of policy packs (vlint.policy.installed reads them).
ENTRY_POINT_GROUP = "vlint.policies"


class ConfigError(Exception):
    """A configuration file vlint cannot use; the message names the file and the remedy."""


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

    @property
    def folder(self) -> Path:
        return self.path.parent


def find(paths: Sequence[str]) -> Path | None:
    """The configuration file for ``paths``: walking up from each path in turn, first found."""
    for given in paths:
        start = Path(os.path.abspath("." if given == "-" else given))
        folder = start if start.is_dir() else start.parent
        for candidate in (folder, *folder.parents):
            found = _config_in(candidate)
            if found is not None:
                return found
    return None


def _config_in(folder: Path) -> Path | None:
    for name in CONFIG_NAMES:
        path = folder / name
        if path.is_file() and (name != "pyproject.toml" or _has_tool_table(path)):
            return path
    return None


def _has_tool_table(path: Path) -> bool:
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return isinstance(data.get("tool"), dict) and "vlint" in data["tool"]


def load(path: Path) -> Config:
    """Read and validate one configuration file (a pyproject.toml without the table is empty)."""
    from vlint.config_schema import validate

    options = validate(path, _table(path))
    if isinstance(options, list):
        raise ConfigError("\n".join(f"invalid config: {path}: {problem}" for problem in options))
    if options.target_version is not None:
        _check_target(path, options.target_version)
    from vlint.presets import combine

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
        policies=preset.policies + _policies(path, options.policies),
        warnings_as_errors=preset.warnings_as_errors,
    )


def _policies(path: Path, files: Sequence[str]) -> tuple[Policy, ...]:
    from vlint.policy import load_file

    found: list[Policy] = []
    for name in files:
        policy_path = path.parent / name
        if not policy_path.is_file():
            raise ConfigError(f"invalid config: {path}: policies: no policy file {name!r}")
        found.extend(load_file(policy_path, str(path.parent)))
    return tuple(found)


def _table(path: Path) -> Mapping[str, Any]:
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except OSError as error:
        raise ConfigError(f"invalid config: {path}: cannot read it ({error.strerror})") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"invalid config: {path}: not valid TOML ({error})") from None
    if path.name != "pyproject.toml":
        return data
    table = data.get("tool", {}).get("vlint", {})
    if not isinstance(table, dict):
        raise ConfigError(f"invalid config: {path}: [tool.vlint] must be a table")
    return table


def _check_target(path: Path, target: str) -> None:
    from vlint import catalog

    try:
        catalog.resolve_target(target)
    except catalog.UnknownTarget:
        raise ConfigError(
            f"invalid config: {path}: target-version {target!r} is not a release or range "
            f"vlint knows; use one within vLLM {catalog.known_range()}"
        ) from None


def for_run(paths: Sequence[str], explicit: str | None, isolated: bool) -> Config | None:
    """The configuration a run uses: ``--config``, else the one found, none when isolated."""
    if isolated:
        return None
    if explicit is not None:
        return load(Path(explicit))
    found = find(paths)
    return None if found is None else load(found)


def merge(config: Config | None, flags: Settings) -> Settings:
    """``flags`` (from the command line) over ``config``: a flag given replaces the key."""
    from dataclasses import replace

    if config is None:
        return replace(flags, policies=_with_packs(flags.policies))
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
        policies=_with_packs(flags.policies + config.policies),
        warnings_as_errors=config.warnings_as_errors,
    )


def _with_packs(policies: tuple[Policy, ...]) -> tuple[Policy, ...]:
    """``policies`` and those of installed packs; vlint.policy (its import costs a run about
    4 ms) only when there are any."""
    if not policies and not may_have_packs():
        return ()
    from vlint.policy import installed, unique

    return unique(policies + installed())


def may_have_packs() -> bool:
    """False when no distribution on ``sys.path`` can declare a policy pack: no
    ``entry_points.txt`` of a ``.dist-info`` or ``.egg-info`` folder names the group.  Importing
    importlib.metadata and reading every distribution costs every run tens of milliseconds;
    these few reads do not.
    Anything this scan cannot see (a zip on the path, a finder of distributions besides the
    path's) makes it answer True."""
    import sys
    from importlib.machinery import PathFinder

    if any(f is not PathFinder and hasattr(f, "find_distributions") for f in sys.meta_path):
        return True
    group = ENTRY_POINT_GROUP.encode()
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            if os.path.isfile(entry):
                return True
            continue
        for name in names:
            if name.endswith((".dist-info", ".egg-info")):
                try:
                    with open(os.path.join(entry or ".", name, "entry_points.txt"), "rb") as file:
                        if group in file.read():
                            return True
                except OSError:
                    continue
    return False
