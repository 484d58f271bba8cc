"""What every chart-values shape needs: the arguments a chart writes for a values key, placed in
the values file, and the values read as Helm's templates read them.

A chart writes flags that appear nowhere in the values file (``maxModelLen: 4096`` becomes
``--max-model-len 4096``).  Such a flag is a token whose every character sits at the key that
produced it, its end at the key's end, so a finding on the flag points at the key, and no fix
edits it (it is unwritten, ``Token.unwritten``: the edit would put a flag into the key); its value
is the YAML scalar itself, at its exact characters, and a fix may edit that.  A value Helm
cannot know statically (a masked ``{{ ... }}``, a Flux ``${VAR}``) is not literal; a key whose
value is a list or a mapping gives a value token that is not literal either, at the value's
start.

Helm reads values with ``sigs.k8s.io/yaml`` (go-yaml v2, YAML 1.1: ``yes``/``on`` are
booleans), and a template's ``if`` tests Go template truth: ``false``, ``0``, null and empty
strings and collections are false, anything else (the quoted string ``"false"`` too) is true
(``text/template`` documentation, "The empty values are false, 0, any nil pointer or interface
value, and any array, slice, map, or string of length zero").
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from vlint.discover import Refused, chart_folder, confined_read, linted_roots
from vlint.errors import Unparsable
from vlint.extract import deployment
from vlint.knowledge.images import is_server_image
from vlint.model import Located, Pos, Span, Token
from vlint.syntax import yamlpos

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

    from vlint.extract.kubernetes import _Reader

_TRUE = frozenset("y Y yes Yes YES on On ON true True TRUE".split())
_FALSE = frozenset("n N no No NO off Off OFF false False FALSE".split())
_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_ZERO = re.compile(r"[-+]?(0+|0*\.0*|0+\.?0*[eE][-+]?[0-9]+)")


def key_token(reader: _Reader, node: Node, name: str) -> Token | None:
    """The key ``name`` of the mapping ``node``, as a token at the key."""
    for key, _ in yamlpos.mapping_items(node):
        if key.value == name:
            return yamlpos.scalar_token(reader.source, key)
    return None


def get(node: Node | None, name: str) -> Node | None:
    """``node[name]`` when ``node`` is a mapping."""
    if node is None or yamlpos.mapping_node(node) is None:
        return None
    return yamlpos.mapping_get(node, name)


def items(node: Node | None) -> list[Node]:
    """The items of a list; none for a missing node or one that is not a list."""
    return [] if node is None else yamlpos.sequence_items(node)


def made(text: str, at: Span, literal: bool = True) -> Token:
    """A word the chart writes, every character at ``at``'s start and its end at ``at``'s end;
    all of it unwritten (``Token.unwritten``): no fix may edit the key it sits at."""
    return Token(text, (at.start,) * len(text) + (at.end,), literal, unwritten=len(text))


def flag(text: str, key: Token) -> Token:
    """The flag a chart writes for a values key, at the key."""
    return made(text, key.sub_span(0), key.literal)


def value(reader: _Reader, node: Node) -> Token:
    """A value as the chart's ``{{ .x | quote }}`` writes it: a scalar at its characters (not
    literal when it holds a template); anything else not literal, at its start."""
    token = reader.token(node)
    if token is not None:
        return token
    start = reader.source.pos(node.start_mark.index)
    return Token("", (start,), literal=False)


def stand_in(text: str, at: Pos) -> Token:
    """A word the chart writes from something outside the file (a default of the chart's own
    ``values.yaml``): not literal, at ``at``, unwritten."""
    return Token(text, (at,) * (len(text) + 1), literal=False, unwritten=len(text))


def truth(reader: _Reader, node: Node | None) -> bool | None:
    """Whether a template's ``if`` takes the value as true; None when it cannot be known (a
    template expression).  A missing key is false."""
    if node is None:
        return False
    if not yamlpos.is_scalar(node):
        return bool(node.value)
    token = reader.token(node)
    if token is not None and not token.literal:
        return None
    text = yamlpos.scalar_value(node)
    if node.style:
        return text != ""
    if text in _NULL:
        return False
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    return _ZERO.fullmatch(text) is None


def is_false(reader: _Reader, node: Node | None) -> bool:
    """Whether the value is the boolean ``false`` (what ``ne .enabled false`` compares with)."""
    if node is None or not yamlpos.is_scalar(node) or node.style:
        return False
    token = reader.token(node)
    return token is not None and token.literal and token.text in _FALSE


def whole(token: Token | None) -> int | None:
    """A literal whole number; None for anything else."""
    if token is None or not token.literal:
        return None
    return deployment.whole_number(token.text)


def image(reader: _Reader, node: Node | None) -> Located[str] | None:
    """An image as values files write it, at its repository (or name): ``image: REF``, or a
    mapping of ``repository`` (or ``name``) with ``registry``, ``tag`` and ``digest`` beside it,
    joined as ``REGISTRY/REPOSITORY:TAG@DIGEST``.  None when the reference is not literal."""
    if node is None:
        return None
    if yamlpos.is_scalar(node):
        token = reader.token(node)
        return deployment.image(token) if token is not None and token.literal else None
    if yamlpos.mapping_node(node) is None:
        return None
    repository = reader.token(get(node, "repository")) or reader.token(get(node, "name"))
    if repository is None or not repository.literal or not repository.text:
        return None
    text = repository.text
    registry = reader.token(get(node, "registry"))
    if registry is not None and registry.literal and registry.text:
        text = f"{registry.text}/{text}"
    tag = reader.token(get(node, "tag"))
    if tag is not None and tag.literal and tag.text:
        text = f"{text}:{tag.text}"
    digest = reader.token(get(node, "digest"))
    if digest is not None and digest.literal and digest.text:
        text = f"{text}@{digest.text}"
    return Located(text, repository.sub_span(0))


def server_image(located: Located[str] | None) -> Located[str] | None:
    """``located`` when it names a vLLM server image."""
    return located if located is not None and is_server_image(located.value) else None


def words(reader: _Reader, node: Node | None) -> list[Token] | None:
    """``command:``/``args:`` as charts take them: a list of words, or one string as a single
    word (bjw-s ``container/fields/_args.tpl``: ``kindIs "string"`` appends it whole)."""
    if node is None or yamlpos.is_null(node):
        return None
    if yamlpos.is_scalar(node):
        token = reader.token(node)
        return [token] if token is not None else None
    return reader.words(node)


# -- a template's scalar rendered with its chart's own values ---------------------------------

MAX_VALUES_SIZE = 1 << 20  # bytes of a chart's values.yaml (and Chart.yaml) read
MAX_RENDERED = 1024  # characters of a template scalar rendered
MAX_ACTIONS = 16  # actions in one scalar
MAX_PATH = 32  # keys in one ``.Values.a.b...`` reference
_ACTION = re.compile(r"\{\{(-[ \t\r\n])?((?:(?!\}\}).)*?)([ \t\r\n]-)?\}\}", re.DOTALL)
_WORD = re.compile(r'"[^"\\]*"|\||[^\s|"()`]+|[()`"]')
_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DECIMAL = re.compile(r"0|[1-9][0-9]{0,18}")
# ``.Chart`` fields a template names, and the ``Chart.yaml`` keys they come from.
_CHART_FIELDS = {"AppVersion": "appVersion", "Version": "version", "Name": "name"}


class _Unknown(Exception):
    """A pipeline whose result cannot be known statically."""


class ChartDefaults:
    """A chart's own ``values.yaml`` and ``Chart.yaml``: what a template's ``.Values`` and
    ``.Chart`` hold when the chart is installed with its defaults.

    Helm loads a chart's defaults from ``values.yaml`` beside ``Chart.yaml`` (helm/helm
    ``pkg/chart/loader/load.go``; https://helm.sh/docs/topics/charts/#the-chart-file-structure).
    A release may be installed with other values, so what ``render`` gives is the chart's
    default, never the deployed text for certain: callers use it to decide what a container
    runs and which release its image names, never as the text of a token.
    """

    def __init__(self, values: Node | None, chart: Node | None) -> None:
        self.values = values
        self.chart = chart

    def render(self, written: str, plain: bool = True) -> str | None:
        """What Helm renders for a scalar written with template actions, or None when an action
        is not one read here.  Read: ``.Values.a.b`` (and ``$.Values``), ``.Chart.AppVersion``,
        ``.Chart.Version``, ``.Chart.Name``, string literals, and the functions ``default``,
        ``required``, ``printf`` (``%s`` only), and ``quote``/``squote`` for an action that is
        the whole of a ``plain`` scalar (its quotes are then YAML's).  A missing key renders as the empty
        string (Helm's engine turns ``<no value>`` into ""; ``pkg/engine/engine.go``); a key
        under a missing one is an error there, and unknown here, as are numbers other than
        plain decimals, booleans, lists and mappings (Go prints them its own way)."""
        if len(written) > MAX_RENDERED:
            return None
        whole = plain and _ACTION.fullmatch(written.strip()) is not None
        out: list[str] = []
        last = 0
        try:
            for count, match in enumerate(_ACTION.finditer(written)):
                if count >= MAX_ACTIONS:
                    return None
                literal = written[last : match.start()]
                if match.group(1):
                    literal = literal.rstrip()
                if out and out[-1] == "\x00trim":
                    out.pop()
                    literal = literal.lstrip()
                out.append(literal)
                out.append(self._pipeline(match.group(2), whole) or "")
                if match.group(3):
                    out.append("\x00trim")
                last = match.end()
        except _Unknown:
            return None
        rest = written[last:]
        if out and out[-1] == "\x00trim":
            out.pop()
            rest = rest.lstrip()
        text = "".join(out) + rest
        return None if "{{" in text or "}}" in text else text

    def _pipeline(self, source: str, whole: bool) -> str | None:
        words = _WORD.findall(source)
        if not words or any(w in ("(", ")", "`", '"') for w in words):
            raise _Unknown
        commands: list[list[str]] = [[]]
        for word in words:
            if word == "|":
                commands.append([])
            else:
                commands[-1].append(word)
        value: str | None = None
        for index, command in enumerate(commands):
            if not command:
                raise _Unknown
            piped = [] if index == 0 else [value]
            if index == 0 and len(command) == 1 and not _FIELD.fullmatch(command[0]):
                value = self._term(command[0])
                continue
            value = self._call(command[0], [*map(self._term, command[1:]), *piped], whole)
        return value

    def _call(self, name: str, args: list[str | None], whole: bool) -> str | None:
        # Sprig's functions (https://masterminds.github.io/sprig/): ``default`` gives its first
        # argument when the value is empty, ``required`` fails on an empty value.
        if name == "default" and len(args) == 2:
            return args[1] if args[1] else args[0]
        if name == "required" and len(args) == 2:
            if not args[1]:
                raise _Unknown
            return args[1]
        if name in ("quote", "squote") and len(args) == 1 and whole:
            return args[0] or ""
        if name == "printf" and args and args[0] is not None:
            pieces = args[0].split("%%")
            if any("%" in p.replace("%s", "") for p in pieces) or None in args[1:]:
                raise _Unknown
            if sum(p.count("%s") for p in pieces) != len(args) - 1:
                raise _Unknown
            shown = iter(args[1:])
            return "%".join(re.sub("%s", lambda _: str(next(shown)), p) for p in pieces)
        raise _Unknown

    def _term(self, word: str) -> str | None:
        if word.startswith('"'):
            return word[1:-1]
        parts = word.split(".")
        if parts[0] == "$":
            parts[0] = ""
        if len(parts) == 3 and parts[:2] == ["", "Chart"] and parts[2] in _CHART_FIELDS:
            return self._value(self.chart, [_CHART_FIELDS[parts[2]]])
        if len(parts) < 3 or parts[:2] != ["", "Values"] or len(parts) > MAX_PATH:
            raise _Unknown
        if not all(_FIELD.fullmatch(p) for p in parts[2:]):
            raise _Unknown
        return self._value(self.values, parts[2:])

    @staticmethod
    def _value(node: Node | None, keys: list[str]) -> str | None:
        for key in keys:
            if node is None or yamlpos.mapping_node(node) is None:
                raise _Unknown  # a field of nothing, or of a scalar: Helm fails
            node = yamlpos.mapping_get(node, key)
        if node is None or yamlpos.is_null(node):
            return None
        if not yamlpos.is_scalar(node):
            raise _Unknown
        text = yamlpos.scalar_value(node)
        tag = str(node.tag)
        if tag.endswith(":str") and (node.style or (text not in _TRUE and text not in _FALSE)):
            return text
        if tag.endswith(":int") and _DECIMAL.fullmatch(text):
            return text
        raise _Unknown


def chart_defaults(template: str) -> ChartDefaults | None:
    """The defaults of the chart the template ``template`` belongs to; None when it is not in a
    chart.  Both files are read only inside the template's repository
    (``discover.confined_read``: no symlink out of it, no FIFO, at most MAX_VALUES_SIZE bytes),
    parsed as YAML nodes (nothing constructed, aliases shared, never expanded); a file that
    cannot be read or parsed gives no values (every reference to it is then unknown)."""
    chart = chart_folder(template)
    if chart is None:
        return None
    roots = linted_roots([template])
    return ChartDefaults(_document(os.path.join(chart, "values.yaml"), roots),
                         _document(os.path.join(chart, "Chart.yaml"), roots))


def chart_document(chart: str, linted: str) -> Node | None:
    """The chart's ``Chart.yaml`` (read confined to the repository of ``linted``)."""
    return _document(os.path.join(chart, "Chart.yaml"), linted_roots([linted]))


def _document(path: str, roots: tuple[Path, ...]) -> Node | None:
    if not os.path.lexists(path):
        return None
    try:
        documents = yamlpos.parse_documents(
            confined_read(path, roots, MAX_VALUES_SIZE).decode("utf-8"))
    except (Refused, UnicodeDecodeError, Unparsable):
        return None
    return documents[0] if documents and yamlpos.mapping_node(documents[0]) is not None else None
