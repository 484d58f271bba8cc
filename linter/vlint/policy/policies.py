"""Organisation policies: YAML files of rules about settings, loaded, validated and compiled once.

A policy file holds ``policies:``, a list of policies.  Each has an ``id`` (the user's own code,
``ORG001``; never ``VL...``), a ``severity``, a ``message``, a ``help`` line, an optional
``scope`` and either declarative rows (``rule: {setting, op, value}`` or ``rules: [...]``, all
of which must hold) or a CEL ``expr`` that must be true.  Evaluation is in
:mod:`vlint.policy.evaluate`.  Every error names the file, line and column.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import distributions
from pathlib import Path
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, SequenceNode

from vlint.errors import ConfigError
from vlint.knowledge import catalog
from vlint.model import Pos, Severity
from vlint.normalise.values import parse_human_int
from vlint.policy.compile import Pattern, compile_expression, compile_pattern, parser_dest
from vlint.syntax.yamlpos import SourceIndex, is_scalar, scalar_positions, scalar_value

# The entry-point group through which an installed package offers policy packs.
ENTRY_POINT_GROUP = "vlint.policies"

OPERATORS = (
    "exists", "absent", "eq", "ne", "in", "not_in", "lt", "le", "gt", "ge", "matches",
    "requires", "conflicts",
)
VALUELESS = frozenset({"exists", "absent"})
NUMERIC = frozenset({"lt", "le", "gt", "ge"})
# Ids of user policies; vlint's own built-in policies (presets) use VLP.
USER_ID = re.compile(r"^(?!VL)[A-Z]{2}[A-Z_]*\d+$")
BUILTIN_ID = re.compile(r"^VLP\d{3}$")


@dataclass(frozen=True)
class Row:
    """One declarative condition: ``setting`` (as the user wrote it), ``op`` and ``value``."""

    setting: str
    op: str
    value: Any
    pattern: Pattern | None = None


@dataclass(frozen=True)
class Scope:
    paths: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    images: tuple[str, ...] = ()
    vllm: str | None = None


@dataclass(frozen=True, eq=False)
class Policy:
    id: str
    name: str
    severity: Severity
    message: str
    help: str
    scope: Scope
    rows: tuple[Row, ...]
    expr: Any  # a compiled CEL expression, or None for rows
    source: str  # where the policy was defined (file:line), for explanations
    root: str  # the folder scope paths are relative to
    # The settings an expression reads, when it reads them only as ``settings.name`` (the
    # others need not be handed to CEL); None when it may read any.
    settings_used: frozenset[str] | None = None


def _fail(origin: str, where: Pos, problem: str) -> ConfigError:
    return ConfigError(f"invalid policy: {origin}:{where.line}:{where.column}: {problem}")


def load_file(path: Path, root: str | None = None) -> list[Policy]:
    """The policies of one file; ``root`` is the folder scope paths are relative to."""
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"invalid policy: {path}: cannot read it ({error})") from None
    return load_text(text, str(path), root or str(path.parent))


def load_text(text: str, origin: str, root: str, builtin: bool = False) -> list[Policy]:
    """The policies in ``text`` (a policy file's content; ``origin`` names it in errors)."""
    from pydantic import ValidationError  # lazy: pydantic is slow to import; only loading needs it
    from vlint.policy.schema import PolicyFile  # lazy: the pydantic models of a policy file

    yaml = YAML(typ="rt")
    try:
        node = yaml.compose(text)
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = Pos(mark.line + 1, mark.column + 1) if mark is not None else Pos(1, 1)
        raise _fail(origin, where, f"not valid YAML ({error.problem or error.context})") from None
    except (YAMLError, ValueError, RecursionError) as error:
        raise ConfigError(f"invalid policy: {origin}: not valid YAML ({error})") from None
    if node is None:
        return []  # an empty file (or only comments) holds no policy
    source = SourceIndex(text)
    data = _plain(node)
    try:
        parsed = PolicyFile.model_validate(data)
    except ValidationError as error:
        item = error.errors()[0]
        loc = tuple(item["loc"])
        message = str(item["msg"]).removeprefix("Value error, ")
        extra = item["type"] == "extra_forbidden"
        if extra:
            message = f"unknown key {loc[-1]!r}"
        elif item["type"] == "literal_error":
            message = f"{item['input']!r} is not one of {item['ctx']['expected']}"
        where = _where(source, node, loc, at_key=extra)
        raise _fail(origin, where, f"{_dotted(loc)}: {message}") from None
    policies = []
    for index, model in enumerate(parsed.policies):
        at = ("policies", index)
        if not (BUILTIN_ID if builtin else USER_ID).match(model.id):
            wanted = "VLP and three digits" if builtin else (
                "two or more upper-case letters then digits (ORG001), not starting with VL (vlint's)"
            )
            raise _fail(
                origin, _where(source, node, (*at, "id")),
                f"{_dotted((*at, 'id'))}: {model.id!r} is not a policy id; use {wanted}",
            )
        policies.append(_build(model, origin, root, source, node, at))
    return policies


def _build(
    model: Any, origin: str, root: str, source: SourceIndex, node: Node, at: tuple[Any, ...]
) -> Policy:
    rows: list[Row] = []
    if model.rule is not None:
        rows.append(_row(model.rule, origin, source, node, (*at, "rule")))
    for index, row in enumerate(model.rules or ()):
        rows.append(_row(row, origin, source, node, (*at, "rules", index)))
    expr = None
    used: frozenset[str] | None = frozenset()
    if model.expr is not None:
        expr = _compile(model.expr, origin, source, node, (*at, "expr"))
        used = settings_used(model.expr)
    scope = model.scope
    if scope is not None and scope.vllm is not None:
        try:
            SpecifierSet(scope.vllm)
        except InvalidSpecifier:
            loc = (*at, "scope", "vllm")
            raise _fail(
                origin, _where(source, node, loc),
                f"{_dotted(loc)}: {scope.vllm!r} is not a version specifier (>=0.10,<0.12)",
            ) from None
    line = _where(source, node, at).line
    return Policy(
        id=model.id,
        name=model.name or model.id.lower(),
        severity=model.severity,
        message=model.message,
        help=model.help,
        scope=Scope() if scope is None else Scope(
            tuple(scope.paths), tuple(scope.kinds), tuple(scope.images), scope.vllm
        ),
        rows=tuple(rows),
        expr=expr,
        source=f"{origin}:{line}",
        root=root,
        settings_used=used,
    )


_FIELD = re.compile(r"\bsettings\.([A-Za-z_]\w*)")
_ANY = re.compile(r"\bsettings\b(?!\.[A-Za-z_])")
_MACRO = re.compile(r"\bsettings\.[A-Za-z_]\w*\s*\(")  # settings.exists(k, ...), a macro
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


def settings_used(expr: str) -> frozenset[str] | None:
    """The names an expression reads as ``settings.name``; None if it reads ``settings``
    another way (``settings['x']``, ``size(settings)``, a macro over it)."""
    code = _STRING.sub("''", expr)
    if _ANY.search(code) or _MACRO.search(code):
        return None
    return frozenset(_FIELD.findall(code))


def _row(model: Any, origin: str, source: SourceIndex, node: Node, at: tuple[Any, ...]) -> Row:
    op, value = model.op, model.value

    def bad(problem: str, key: str = "value") -> ConfigError:
        loc = (*at, key)
        return _fail(origin, _where(source, node, loc), f"{_dotted(loc)}: {problem}")

    for key, name in (("setting", model.setting), ("value", value)):
        if (key == "setting" or op in ("requires", "conflicts")) and isinstance(name, str):
            if not known_setting(name):
                raise bad(f"{name!r} is not a setting of any vLLM release vlint knows "
                          f"({_known_range()})", key)

    if op in VALUELESS:
        return Row(model.setting, op, None)
    if value is None:
        raise bad(f"operator {op!r} needs a value")
    if op in ("requires", "conflicts"):
        if not isinstance(value, str):
            raise bad(f"operator {op!r} takes the name of another setting")
        return Row(model.setting, op, value)
    if op in ("in", "not_in"):
        if not isinstance(value, list):
            raise bad(f"operator {op!r} takes a list")
        return Row(model.setting, op, tuple(_number_or(item) for item in value))
    if op == "matches":
        # RE2, not Python's re: a policy file may come with the pull request it checks, and a
        # backtracking engine runs some patterns in exponential time.
        try:
            return Row(model.setting, op, value, compile_pattern(str(value)))
        except ValueError as error:
            raise bad(
                f"{value!r} is not a regular expression RE2 can run ({error}); RE2 runs in "
                "linear time and has no backreference or lookaround"
            ) from None
    if op in NUMERIC:
        number: object = None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            number = value
        elif isinstance(value, str) and parse_human_int(value).ok:
            number = parse_human_int(value).value
        if number is None:
            raise bad(f"operator {op!r} takes a number (4096, 32K, 16k), not {value!r}")
        return Row(model.setting, op, number)
    return Row(model.setting, op, _number_or(value))


def known_setting(name: str) -> bool:
    """Whether a setting name (flag, destination or unique abbreviation) is one at least one
    known release has, so that a typo in a policy is an error rather than a silent no-op."""
    for version in catalog.known_releases():
        release = catalog.load(version)
        parser = release.parser("serve")
        dest = parser_dest(parser, name)
        if parser is not None and dest in parser.by_dest:
            return True
        if dest in release.engine_fields("LLM"):
            return True
    return False


def _known_range() -> str:
    return catalog.known_range()


def _number_or(value: Any) -> Any:
    """A value as vLLM's unit rules read it: ``32K`` is 32768, ``16k`` 16000."""
    if isinstance(value, str):
        parsed = parse_human_int(value)
        if parsed.ok:
            return parsed.value
    return value


def _compile(text: str, origin: str, source: SourceIndex, node: Node, at: tuple[Any, ...]) -> Any:
    try:
        return compile_expression(text)
    except ValueError as error:
        line, column, message = _cel_error(str(error))
        offsets = [0]
        offsets.extend(i + 1 for i, char in enumerate(text) if char == "\n")
        offset = min(offsets[min(line, len(offsets)) - 1] + column - 1, len(text))
        where = _scalar_char(source, node, at, offset)
        raise _fail(origin, where, f"{_dotted(at)}: {message}") from None


_CEL_ERROR = re.compile(r"<input>:(\d+):(\d+): (.*?)(?:\n|$)")


def _cel_error(text: str) -> tuple[int, int, str]:
    match = _CEL_ERROR.search(text)
    if match is None:
        return 1, 1, text.strip()
    return int(match[1]), int(match[2]), match[3].split(" expecting {")[0].strip()


# -- positions --------------------------------------------------------------------------------


def _plain(node: Node) -> Any:
    """The node graph as plain data, scalars resolved as YAML 1.2 (safe: nothing constructed)."""
    if isinstance(node, MappingNode):
        return {str(_plain(key)): _plain(value) for key, value in node.value}
    if isinstance(node, SequenceNode):
        return [_plain(item) for item in node.value]
    return _scalar(node)


def _scalar(node: Node) -> Any:
    tag, value = str(node.tag), scalar_value(node) if is_scalar(node) else str(node.value)
    if tag.endswith(":null"):
        return None
    if tag.endswith(":bool"):
        return value.lower() == "true"
    if tag.endswith(":int"):
        try:
            return int(value.replace("_", ""), 0)
        except ValueError:
            return value
    if tag.endswith(":float"):
        try:
            return float(value)
        except ValueError:
            return value
    return value


def _child(node: Node, part: Any) -> tuple[Node | None, Node | None]:
    """(key node, value node) of ``part`` in a mapping, or (None, item) in a sequence."""
    if isinstance(node, MappingNode):
        for key, value in node.value:
            if str(key.value) == str(part):
                return key, value
    if isinstance(node, SequenceNode) and isinstance(part, int) and part < len(node.value):
        return None, node.value[part]
    return None, None


def _node_at(root: Node, loc: Sequence[Any], at_key: bool = False) -> Node:
    """The deepest node on ``loc`` (the key node of its last part when ``at_key``)."""
    node = root
    for index, part in enumerate(loc):
        key, value = _child(node, part)
        if value is None:
            break
        last = index == len(loc) - 1
        node = key if at_key and last and key is not None else value
    return node


def _where(source: SourceIndex, root: Node, loc: Sequence[Any], at_key: bool = False) -> Pos:
    return source.pos(_node_at(root, loc, at_key).start_mark.index)


def _scalar_char(source: SourceIndex, root: Node, loc: Sequence[Any], offset: int) -> Pos:
    node = _node_at(root, loc)
    if not is_scalar(node):
        return source.pos(node.start_mark.index)
    positions = scalar_positions(source, node)
    return positions[min(offset, len(positions) - 1)]


def _dotted(loc: Sequence[Any]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


# -- installed policy packs -------------------------------------------------------------------


def installed(names: Sequence[str], untrusted: Sequence[Path] = ()) -> tuple[Policy, ...]:
    """The policies of the installed packs ``names`` (entry point group ``vlint.policies``).

    An entry point names an object (or a function called without arguments) giving a path
    (``str`` or ``Path``) to a policy file, a list of such paths, or a policy file's YAML text.
    Packs are found and imported only through ``sys.path`` entries outside the current folder
    and ``untrusted`` (the linted roots): a checkout cannot install code into vlint.
    """
    if not names:
        return ()
    trusted = [entry for entry in sys.path if _trusted(entry, untrusted)]
    available: dict[str, Any] = {}
    for distribution in distributions(path=trusted):
        for entry in distribution.entry_points.select(group=ENTRY_POINT_GROUP):
            available.setdefault(entry.name, entry)
    found: list[Policy] = []
    for name in names:
        if name not in available:
            raise ConfigError(
                f"invalid policy: policy pack {name!r} is not installed (installed packs: "
                f"{', '.join(sorted(available)) or 'none'}; packs in the current folder or the "
                "linted repository are never loaded)"
            )
        entry = available[name]
        origin = f"{entry.name} ({entry.value})"
        saved = sys.path[:]
        sys.path[:] = trusted
        try:
            provided = entry.load()
            if callable(provided):
                provided = provided()
        except Exception as error:  # noqa: BLE001 - a broken pack is a configuration error
            raise ConfigError(
                f"invalid policy: pack {origin}: cannot load it ({type(error).__name__}: {error})"
            ) from None
        finally:
            sys.path[:] = saved
        found.extend(_from_pack(provided, origin))
    return tuple(found)


def _trusted(entry: str, untrusted: Sequence[Path]) -> bool:
    folder = Path(os.path.abspath(entry or ".")).resolve()
    return not any(folder == root or folder.is_relative_to(root)
                   for root in (Path.cwd().resolve(), *untrusted))


def _from_pack(provided: object, origin: str) -> list[Policy]:
    if isinstance(provided, Path):
        return load_file(provided, ".")
    if isinstance(provided, str):
        if "\n" not in provided and Path(provided).is_file():
            return load_file(Path(provided), ".")
        return load_text(provided, f"pack {origin}", ".")
    if isinstance(provided, (list, tuple)):
        return [policy for item in provided for policy in _from_pack(item, origin)]
    raise ConfigError(
        f"invalid policy: pack {origin}: gives {type(provided).__name__}, not a path, a list of "
        "paths or YAML text"
    )


def unique(policies: tuple[Policy, ...]) -> tuple[Policy, ...]:
    """``policies``, unless two of them share an id (a finding must name one policy)."""
    seen: dict[str, Policy] = {}
    for policy in policies:
        first = seen.setdefault(policy.id, policy)
        if first is not policy:
            raise ConfigError(
                f"invalid policy: {policy.source}: id {policy.id} is already defined at "
                f"{first.source}"
            )
    return policies
