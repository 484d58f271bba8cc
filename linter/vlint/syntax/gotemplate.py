"""A Helm template rendered with its chart's own values, every output character traced to where
it came from.

Helm renders a chart's templates with Go's ``text/template`` and the Sprig functions, reading
``.Values`` from the chart's ``values.yaml`` (helm/helm ``pkg/engine/engine.go``,
``pkg/chart/loader/load.go``).  vlint renders the subset real charts use to write a container's
command, arguments, image and environment, statically and within fixed bounds, and keeps for
every character it writes its origin: an offset in the values file (a value written there),
``TEMPLATE`` (text of the template, or written by a function such as ``quote``), or ``UNKNOWN``
(an action vlint does not evaluate, kept as written).

Read: text with ``{{- ``/`` -}}`` trimming and ``{{/* */}}`` comments; ``if``/``else if``/
``else``, ``with``, ``range`` (over lists and mappings, with ``$i, $v :=``), variables
(``$x := ...``, ``$x = ...``, ``$``), named templates (``define``, rendered where ``include``
or ``template`` uses them, from the file itself or the chart's other files, at most 16 deep; one
holding an action not read is unknown); fields of ``.Values``,
``.Chart`` (``Name``, ``Version``, ``AppVersion`` from ``Chart.yaml``), ``.``, ``$.``; the
functions ``default``, ``required``, ``quote``, ``squote``, ``toString``, ``int``, ``int64``,
``trim``, ``lower``, ``upper``, ``printf`` (``%s``, ``%v``, ``%d``), ``toYaml``, ``toJson``,
``indent``, ``nindent``, ``not``, ``and``, ``or``, ``eq``, ``ne``, ``empty``, ``list``,
``index``, ``hasKey``, ``ternary``, ``tpl`` (a value rendered as a template, its own
characters at their places); ``fail`` writes nothing and marks the rendering ``incomplete``
(Helm would stop there: the values an install must add).  Anything else (``.Release``,
``.Capabilities``, ``lookup``, ...) is unknown.  An
unknown value in a condition takes its first branch (as ``vlint.extract.helm.mask`` reads a
template); one that writes YAML structure (a pipeline ending in ``toYaml``, ``indent`` or
``nindent``, or ``include``) writes nothing and the rendering is marked ``incomplete``; any other
is kept as written, masked, at ``UNKNOWN``.

Values are typed as Helm reads them (``sigs.k8s.io/yaml``: YAML 1.1 booleans, numbers as
``float64``): a number prints as Go's ``%v`` prints a ``float64``, so ``1000000`` would print
``1e+06``; numbers of seven or more integer digits (from 1e6) are unknown rather than guessed.
A value printed as written in the values file keeps its characters' offsets there; one Helm
prints differently (``0.850`` as ``0.85``, ``yes`` as ``true``) is ``TEMPLATE``.

Bounds: at most ``MAX_OUTPUT`` characters written, ``MAX_STEPS`` actions evaluated, ``MAX_DEPTH``
nested blocks; beyond them ``render`` returns None.
"""

from __future__ import annotations

import math
from collections import ChainMap
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias

from vlint.syntax import yamlpos

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node, ScalarNode

TEMPLATE = -1
UNKNOWN = -2
MAX_OUTPUT = 1 << 20
MAX_STEPS = 50_000
MAX_DEPTH = 64
_MAX_INCLUDES = 16

# Helm reads values as YAML 1.1 (go-yaml v2 through sigs.k8s.io/yaml): these plain scalars are
# booleans and nulls there.
YAML11_TRUE = frozenset("y Y yes Yes YES on On ON true True TRUE".split())
YAML11_FALSE = frozenset("n N no No NO off Off OFF false False FALSE".split())
YAML_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE, _FALSE, _NULL = YAML11_TRUE, YAML11_FALSE, YAML_NULL
_NUMBER = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_WORD = re.compile(
    r'"(?:[^"\\\n]|\\.)*"|`[^`]*`|\'(?:[^\'\\]|\\.)\'|:=|[()|,=]'
    r"|\$[A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*|(?:\.[A-Za-z0-9_]+)+|\."
    r"|[-+]?[0-9][0-9A-Za-z_.+-]*|[A-Za-z_][A-Za-z0-9_]*|\S"
)
_CHART_FIELDS = {"Name": "name", "Version": "version", "AppVersion": "appVersion"}
_STRUCTURAL = frozenset({"toYaml", "indent", "nindent", "include", "template", "tpl"})
_STRUCTURAL_ENDS = frozenset({"toYaml", "indent", "nindent"})


class _Opaque:
    """The value of a variable set from an action that cannot be evaluated."""


class _Unknown(Exception):
    """A value that cannot be known statically."""


class _TooBig(Exception):
    """The rendering ran past its bounds."""


@dataclass(frozen=True)
class Text:
    """Characters with their origins: ``origins[i]`` is an offset in the values file,
    ``TEMPLATE`` or ``UNKNOWN``."""

    chars: str
    origins: tuple[int, ...]

    def __add__(self, other: Text) -> Text:
        return Text(self.chars + other.chars, self.origins + other.origins)


def _concat(parts: Sequence[Text]) -> Text:
    """The texts one after the other, joined once (never a copy per piece)."""
    return Text("".join(p.chars for p in parts),
                tuple(origin for p in parts for origin in p.origins))


def _written(chars: str) -> Text:
    return Text(chars, (TEMPLATE,) * len(chars))


@dataclass(frozen=True)
class _Value:
    """A value during rendering: a values node, a string with origins, a Go scalar, the root
    (``.``, ``$``), the chart's fields, or a list of values."""

    node: Node | None = None
    text: Text | None = None
    scalar: object = None
    root: bool = False
    chart: bool = False
    items: tuple[_Value, ...] | None = None


_NIL = _Value()


@dataclass
class Rendering:
    """The rendered text, each character's origin, where each character the template wrote
    as its own text sits in the template (``template_origins``: an offset, or ``TEMPLATE``
    for characters of values and functions), and the template's own characters behind every
    ``UNKNOWN`` one (``written``, by output offset)."""

    text: str
    origins: tuple[int, ...]
    template_origins: tuple[int, ...]
    written: dict[int, str] = field(default_factory=dict)
    incomplete: bool = False


@dataclass
class _Action:
    start: int
    end: int
    body: str


_Piece: TypeAlias = "tuple[int, int] | _Action"
_Scope: TypeAlias = "ChainMap[str, _Value]"


def render(
    template: str, values: Node | None, values_text: str, chart: Node | None,
    *, enabled: bool = False, defines: Mapping[str, Define] | None = None,
    borrowed: frozenset[int] = frozenset(),
) -> Rendering | None:
    """``template`` rendered with ``values`` (the values file's root node, parsed from
    ``values_text``) and ``chart`` (``Chart.yaml``'s root node); None when the template cannot
    be read (an unclosed action) or the rendering runs past its bounds.  ``defines``: the named
    templates of the chart's other files (``_helpers.tpl``), by name.  ``enabled``: every
    ``if`` without an ``else`` whose test is false takes its branch all the same (the parts of
    a chart its defaults leave off, ``reasoning.enabled: false``, as an install that enables
    them renders them; an ``if``/``else`` chooses as the values say).  ``borrowed``: the ids of
    value nodes another file holds (the chart's defaults under an override file merged into
    them): what they print is ``TEMPLATE``, not an offset of ``values_text``."""
    pieces = _lex(template)
    if pieces is None:
        return None
    renderer = _Renderer(template, values, yamlpos.SourceIndex(values_text), chart)
    renderer.enabled = enabled
    renderer.borrowed = borrowed
    renderer.defines = {**define_blocks(template, pieces), **(defines or {})}
    try:
        renderer.block(pieces, 0, len(pieces), _Value(root=True), ChainMap(), 0)
    except _TooBig:
        return None
    return Rendering("".join(renderer.chars), tuple(renderer.origins),
                     tuple(renderer.template_origins), renderer.written, renderer.incomplete)


@dataclass(frozen=True)
class Define:
    """A named template: its file's text and pieces, and the pieces of its body."""

    text: str
    pieces: tuple[_Piece, ...]
    first: int
    last: int


def defines(template: str) -> dict[str, Define]:
    """The named templates (``{{ define "name" }}...{{ end }}``) of a file, by name."""
    pieces = _lex(template)
    return {} if pieces is None else define_blocks(template, pieces)


def define_blocks(template: str, pieces: Sequence[_Piece]) -> dict[str, Define]:
    found: dict[str, Define] = {}
    frozen = tuple(pieces)
    index = 0
    while index < len(frozen):
        piece = frozen[index]
        if isinstance(piece, _Action) and _keyword(piece) == "define":
            branches, after = _branches(frozen, index, len(frozen))
            name = _WORD.findall(piece.body)[1:2]
            if name and name[0].startswith('"') and branches:
                first, last, _ = branches[0]
                found[_unquote(name[0])] = Define(template, frozen, first, last)
            index = after
            continue
        index += 1
    return found


def _lex(template: str) -> list[_Piece] | None:
    """Text ranges and actions, with ``{{-``/``-}}`` trimming applied to the text around them."""
    pieces: list[_Piece] = []
    index = 0
    trim_next = False
    size = len(template)
    while index < size:
        opening = template.find("{{", index)
        if opening < 0:
            opening = size
        start = index
        if trim_next:
            while start < opening and template[start] in " \t\r\n":
                start += 1
        if opening == size:
            pieces.append((start, size))
            break
        body_start = opening + 2
        stop = opening
        if template.startswith("- ", body_start) or template.startswith("-\t", body_start) or \
                template.startswith("-\n", body_start):
            body_start += 1
            while stop > start and template[stop - 1] in " \t\r\n":
                stop -= 1
        pieces.append((start, stop))
        closing = _closing(template, body_start)
        if closing < 0:
            return None
        body_end = closing
        trim_next = False
        if closing - 1 >= body_start and template[closing - 1] == "-" and (
                closing - 2 < body_start or template[closing - 2] in " \t\r\n"):
            body_end = closing - 1
            trim_next = True
        pieces.append(_Action(opening, closing + 2, template[body_start:body_end].strip()))
        index = closing + 2
    return pieces


def _closing(template: str, index: int) -> int:
    """The offset of the ``}}`` that ends the action whose body starts at ``index`` (-1: none);
    quoted strings may hold ``}}``, and a comment ends at ``*/``."""
    size = len(template)
    body = index
    while body < size and template[body] in " \t\r\n":
        body += 1
    if template.startswith("/*", body):
        end = template.find("*/", body)
        return -1 if end < 0 else template.find("}}", end)
    while index < size:
        char = template[index]
        if char in "\"'`":
            end = index + 1
            while end < size and template[end] != char:
                end += 2 if char != "`" and template[end] == "\\" else 1
            index = end + 1
            continue
        if template.startswith("}}", index):
            return index
        index += 1
    return -1


def _keyword(action: _Action) -> str:
    word = action.body.split(None, 1)
    return word[0] if word else ""


class _Renderer:
    def __init__(self, template: str, values: Node | None, source: yamlpos.SourceIndex,
                 chart: Node | None) -> None:
        self.template = template
        self.values = values
        self.source = source
        self.chart = chart
        self.chars: list[str] = []
        self.origins: list[int] = []
        self.template_origins: list[int] = []
        self.written: dict[int, str] = {}
        self.incomplete = False
        self.enabled = False
        self.borrowed: frozenset[int] = frozenset()
        self.steps = 0
        self.defines: Mapping[str, Define] = {}
        self.includes = 0  # nested include depth
        self.base: tuple[int, ...] | None = None  # the origins of a ``tpl`` template's text

    # -- blocks ---------------------------------------------------------------------------

    def block(self, pieces: Sequence[_Piece], first: int, last: int, dot: _Value,
              scope: _Scope, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise _TooBig
        index = first
        while index < last:
            piece = pieces[index]
            if not isinstance(piece, _Action):
                chars = self.template[piece[0]:piece[1]]
                if self.base is not None:
                    # ``tpl``: the template is a value, its own characters at their places.
                    self.emit(Text(chars, self.base[piece[0]:piece[1]]), piece[0])
                else:
                    self.emit(_written(chars), piece[0])
                index += 1
                continue
            self.step()
            word = _keyword(piece)
            if word in ("if", "with", "range", "define", "block"):
                branches, after = _branches(pieces, index, last)
                if word in ("define",):
                    pass
                elif word == "block":
                    self.incomplete = True
                else:
                    self.control(word, pieces, branches, dot, scope, depth)
                index = after
                continue
            if word in ("end", "else", "break", "continue") or piece.body.startswith("/*"):
                index += 1
                continue
            if word == "template":
                self.action(_Action(piece.start, piece.end, "include" + piece.body[8:]), dot,
                            scope)
                index += 1
                continue
            self.action(piece, dot, scope)
            index += 1

    def control(self, word: str, pieces: Sequence[_Piece], branches: list[tuple[int, int, str]],
                dot: _Value, scope: _Scope, depth: int) -> None:
        for first, last, head in branches:
            words = head.split(None, 1)
            rest = words[1] if len(words) > 1 else ""
            if words and words[0] == "else" and rest.startswith(("if ", "with ")):
                word, rest = rest.split(None, 1)[0], rest.split(None, 1)[1]
            elif words and words[0] == "else":
                self.block(pieces, first, last, dot, scope.new_child(), depth + 1)
                return
            names, rest = _declaration(rest)
            try:
                value = self.pipeline(rest, dot, scope)
            except _Unknown:
                value = None
            if word == "range":
                if value is None:
                    self.incomplete = True
                    return
                elements = self.elements(value)
                if elements is None:
                    self.incomplete = True
                    return
                if not elements:
                    continue
                for key, element in elements:
                    inner = scope.new_child()
                    if len(names) == 2:
                        inner[names[0]], inner[names[1]] = key, element
                    elif names:
                        inner[names[0]] = element
                    self.block(pieces, first, last, element, inner, depth + 1)
                return
            truth = True if value is None else self.truth(value)
            if value is None:
                self.incomplete = True
            if not truth and self.enabled and word == "if" and words[0] == "if" and \
                    len(branches) == 1:
                truth = True  # a part switched off (no else: nothing else is written there)
            if truth:
                inner = scope.new_child()
                if names and value is not None:
                    inner[names[0]] = value
                chosen = value if word == "with" and value is not None else dot
                self.block(pieces, first, last, chosen, inner, depth + 1)
                return

    def action(self, action: _Action, dot: _Value, scope: _Scope) -> None:
        names, rest = _declaration(action.body)
        if _WORD.findall(rest)[:1] == ["fail"]:
            # The chart refusing its values (a part enabled without what it needs): Helm
            # stops; what it would write otherwise is still read, and marked incomplete.
            self.incomplete = True
            return
        structural = self.structural(action, rest)
        try:
            value = self.pipeline(rest, dot, scope)
        except _Unknown:
            if names:
                for name in names:
                    scope[name] = _Value(scalar=_Opaque)
                return
            if structural:
                self.incomplete = True
                return
            self.unknown(action)
            return
        if names:
            _assign(scope, names[-1], value, declared=_declares(action.body))
            return
        try:
            self.emit(self.printed(value))
        except _Unknown:
            if structural:
                self.incomplete = True
            else:
                self.unknown(action)

    def include(self, name: str, dot: _Value) -> Text:
        """A named template rendered with ``dot``: what its values write keeps their places;
        unknown when it is not known, holds an unknown action, or nests too deep."""
        define = self.defines.get(name)
        if define is None:
            raise _Unknown
        return self.nested(define.text, define.pieces, define.first, define.last, dot, None)

    def tpl(self, text: Text, dot: _Value) -> Text:
        """Sprig's ``tpl``: a string (a value) rendered as a template with ``dot``; its own
        characters keep their places, its actions give theirs."""
        if "{{" not in text.chars:
            return text
        pieces = _lex(text.chars)
        if pieces is None:
            raise _Unknown
        return self.nested(text.chars, pieces, 0, len(pieces), dot, text.origins)

    def nested(self, template: str, pieces: Sequence[_Piece], first: int, last: int,
               dot: _Value, base: tuple[int, ...] | None) -> Text:
        """Another template's pieces rendered with ``dot``, sharing this rendering's steps;
        its text's own characters at ``base`` (a ``tpl`` value's origins) or written."""
        if self.includes >= _MAX_INCLUDES:
            raise _Unknown
        inner = _Renderer(template, self.values, self.source, self.chart)
        inner.defines, inner.enabled, inner.steps = self.defines, self.enabled, self.steps
        inner.borrowed = self.borrowed
        inner.includes, inner.base = self.includes + 1, base
        try:
            inner.block(pieces, first, last, dot, ChainMap(), 0)
        finally:
            self.steps = inner.steps
        if inner.incomplete or UNKNOWN in inner.origins:
            raise _Unknown
        return Text("".join(inner.chars), tuple(inner.origins))

    def structural(self, action: _Action, pipeline: str) -> bool:
        """Whether an action writes YAML structure: its pipeline ends in ``toYaml``,
        ``indent`` or ``nindent``, or it is alone on its line and includes a named template."""
        words = _WORD.findall(pipeline)
        last = [w for i, w in enumerate(words) if i == 0 or words[i - 1] == "|"]
        if last and last[-1] in _STRUCTURAL_ENDS:
            return True
        line_start = self.template.rfind("\n", 0, action.start) + 1
        line_end = self.template.find("\n", action.end)
        line_end = len(self.template) if line_end < 0 else line_end
        alone = not self.template[line_start:action.start].strip() and \
            not self.template[action.end:line_end].strip()
        return alone and bool(_STRUCTURAL & set(words))

    def unknown(self, action: _Action) -> None:
        """An action kept as written, masked (``x``) so that it stays one YAML word."""
        written = self.template[action.start:action.end].replace("\n", " ")
        start = len(self.chars)
        self.emit(Text("x" * len(written), (UNKNOWN,) * len(written)), action.start)
        for index, char in enumerate(written):
            self.written[start + index] = char

    def emit(self, text: Text, template_start: int | None = None) -> None:
        """Write ``text``; ``template_start``: it is the template's own text from there."""
        if len(self.chars) + len(text.chars) > MAX_OUTPUT:
            raise _TooBig
        self.chars.extend(text.chars)
        self.origins.extend(text.origins)
        if template_start is None:
            self.template_origins.extend((TEMPLATE,) * len(text.chars))
        else:
            self.template_origins.extend(range(template_start, template_start + len(text.chars)))

    def step(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _TooBig

    # -- pipelines ------------------------------------------------------------------------

    def pipeline(self, source: str, dot: _Value, scope: _Scope) -> _Value:
        words = _WORD.findall(source)
        value, rest = self.parse_pipeline(words, 0, dot, scope)
        if rest != len(words):
            raise _Unknown
        return value

    def parse_pipeline(self, words: list[str], index: int, dot: _Value,
                       scope: _Scope, depth: int = 0) -> tuple[_Value, int]:
        if depth > MAX_DEPTH:
            raise _Unknown  # ``((((...))))`` past any real template's nesting
        piped: _Value | None = None
        while True:
            operands: list[_Value] = []
            name: str | None = None
            while index < len(words) and words[index] not in ("|", ")"):
                word = words[index]
                if word == "(":
                    value, index = self.parse_pipeline(words, index + 1, dot, scope, depth + 1)
                    if index >= len(words) or words[index] != ")":
                        raise _Unknown
                    index += 1
                    operands.append(value)
                    continue
                if not operands and name is None and _IDENTIFIER.fullmatch(word) and \
                        word not in ("true", "false", "nil"):
                    name = word
                else:
                    operands.append(self.term(word, dot, scope))
                index += 1
            if piped is not None:
                operands.append(piped)
            if name is not None:
                self.step()
                piped = self.call(name, operands)
            elif len(operands) == 1:
                piped = operands[0]
            else:
                raise _Unknown
            if index < len(words) and words[index] == "|":
                index += 1
                continue
            return piped, index

    def term(self, word: str, dot: _Value, scope: _Scope) -> _Value:
        if word.startswith('"'):
            return _Value(text=_written(_unquote(word)))
        if word.startswith("`"):
            return _Value(text=_written(word[1:-1]))
        if word in ("true", "false"):
            return _Value(scalar=word == "true")
        if word == "nil":
            return _NIL
        if word[0] in "0123456789+-" and _NUMBER.fullmatch(word):
            return _Value(scalar=float(word))
        if word.startswith("$"):
            name, _, fields = word.partition(".")
            if name == "$":
                base = _Value(root=True)
            elif name in scope:
                base = scope[name]
            else:
                raise _Unknown
            return self.fields(base, fields.split(".") if fields else [])
        if word.startswith("."):
            return self.fields(dot, [f for f in word.split(".")[1:] if f])
        raise _Unknown

    def fields(self, base: _Value, names: list[str]) -> _Value:
        value = base
        for name in names:
            if value.scalar is _Opaque:
                raise _Unknown
            if value.root:
                if name == "Values":
                    value = _Value(node=self.values) if self.values is not None else _NIL
                elif name == "Chart":
                    value = _Value(chart=True)
                else:
                    raise _Unknown
            elif value.chart:
                key = _CHART_FIELDS.get(name)
                node = None if key is None or self.chart is None else _child(self.chart, key)
                if key is None or node is None or not yamlpos.is_scalar(node):
                    raise _Unknown
                value = _Value(text=_written(yamlpos.scalar_value(node)))
            elif value.node is not None and yamlpos.mapping_node(value.node) is not None:
                child = _child(value.node, name)
                value = _NIL if child is None else _Value(node=child)
            elif value is _NIL or (value.node is not None and yamlpos.is_null(value.node)):
                raise _Unknown  # a field of nothing: Helm fails ("nil pointer evaluating")
            else:
                raise _Unknown
        return value

    def call(self, name: str, args: list[_Value]) -> _Value:
        if name == "default" and len(args) == 2:
            return args[0] if self.empty(args[1]) else args[1]
        if name == "required" and len(args) == 2:
            if args[1] is _NIL or self.printed(args[1]).chars == "":
                raise _Unknown
            return args[1]
        if name in ("quote", "squote") and args:
            quote = '"' if name == "quote" else "'"
            parts: list[Text] = []
            for arg in args:
                if arg is not _NIL:
                    parts.extend([_written(" "), self.quoted(arg, quote)] if parts else
                                 [self.quoted(arg, quote)])
            return _Value(text=_concat(parts))
        if name == "toString" and len(args) == 1:
            return _Value(text=self.printed(args[0]))
        if name in ("int", "int64") and len(args) == 1:
            return self.integer(args[0])
        if name in ("trim", "lower", "upper") and len(args) == 1:
            text = self.printed(args[0])
            if name == "trim":
                stripped = text.chars.strip()
                start = len(text.chars) - len(text.chars.lstrip())
                return _Value(text=Text(stripped, text.origins[start:start + len(stripped)]))
            changed = text.chars.lower() if name == "lower" else text.chars.upper()
            if len(changed) != len(text.chars):
                raise _Unknown
            return _Value(text=Text(changed, text.origins))
        if name == "printf" and args:
            return _Value(text=self.printf(args[0], args[1:]))
        if name in ("indent", "nindent") and len(args) == 2:
            return _Value(text=self.indented(args[1], args[0], name == "nindent"))
        if name == "toYaml" and len(args) == 1:
            return _Value(text=self.yaml(args[0], 0))
        if name == "toJson" and len(args) == 1:
            return _Value(text=self.json(args[0]))
        if name == "include" and len(args) == 2:
            return _Value(text=self.include(self.printed(args[0]).chars, args[1]))
        if name == "tpl" and len(args) == 2:
            return _Value(text=self.tpl(self.printed(args[0]), args[1]))
        if name == "list":
            return _Value(items=tuple(args))
        if name == "index" and len(args) >= 2:
            return self.indexed(args[0], args[1:])
        if name == "hasKey" and len(args) == 2:
            node = args[0].node
            if node is None or yamlpos.mapping_node(node) is None:
                raise _Unknown
            return _Value(scalar=_child(node, self.printed(args[1]).chars) is not None)
        if name == "ternary" and len(args) == 3:
            return args[0] if self.truth(args[2]) else args[1]
        if name == "not" and len(args) == 1:
            return _Value(scalar=not self.truth(args[0]))
        if name == "empty" and len(args) == 1:
            return _Value(scalar=self.empty(args[0]))
        if name == "and" and args:
            for arg in args:
                if not self.truth(arg):
                    return arg
            return args[-1]
        if name == "or" and args:
            for arg in args:
                if self.truth(arg):
                    return arg
            return args[-1]
        if name in ("eq", "ne") and len(args) >= 2:
            first = self.plain(args[0])
            equal = any(first == self.plain(other) for other in args[1:])
            return _Value(scalar=equal if name == "eq" else not equal)
        raise _Unknown

    # -- values ---------------------------------------------------------------------------

    def plain(self, value: _Value) -> object:
        """The value as a Go scalar (str, float, bool or None) for comparisons."""
        if value.scalar is _Opaque or value.root or value.chart or value.items is not None:
            raise _Unknown
        if value.text is not None:
            return value.text.chars
        if value.node is None:
            return value.scalar
        node = value.node
        if not yamlpos.is_scalar(node):
            raise _Unknown
        return _typed(node)

    def truth(self, value: _Value) -> bool:
        return not self.empty(value)

    def empty(self, value: _Value) -> bool:
        if value is _NIL:
            return True
        if value.items is not None:
            return not value.items
        node = value.node
        if node is not None and not yamlpos.is_scalar(node):
            return not (yamlpos.mapping_items(node) if yamlpos.mapping_node(node) is not None
                        else yamlpos.sequence_items(node))
        if value.root or value.chart:
            return False
        scalar = self.plain(value)
        return scalar is None or scalar is False or scalar == "" or scalar == 0.0

    def indexed(self, value: _Value, keys: list[_Value]) -> _Value:
        """Sprig/Go ``index``: a mapping's value by key, a list's by position."""
        for key in keys:
            if value.items is not None:
                position = self.plain(key)
                if not isinstance(position, float) or not 0 <= position < len(value.items):
                    raise _Unknown
                value = value.items[int(position)]
                continue
            node = value.node
            if node is None or yamlpos.is_scalar(node):
                raise _Unknown
            if yamlpos.mapping_node(node) is not None:
                child = _child(node, self.printed(key).chars)
                value = _NIL if child is None else _Value(node=child)
                continue
            position = self.plain(key)
            items = yamlpos.sequence_items(node)
            if not isinstance(position, float) or not 0 <= position < len(items):
                raise _Unknown
            value = _Value(node=items[int(position)])
        return value

    def elements(self, value: _Value) -> list[tuple[_Value, _Value]] | None:
        if value.items is not None:
            return [(_Value(scalar=float(i)), item) for i, item in enumerate(value.items)]
        node = value.node
        if value is _NIL or (node is not None and yamlpos.is_null(node)):
            return []
        if node is None:
            return None
        if yamlpos.mapping_node(node) is not None:
            # Go ranges over a map in key order; each key written at its place.
            pairs = sorted(yamlpos.mapping_items(node), key=lambda pair: str(pair[0].value))
            return [(_Value(text=self.at_node(k, str(k.value))), _Value(node=v))
                    for k, v in pairs]
        if yamlpos.is_scalar(node):
            return None
        return [(_Value(scalar=float(i)), _Value(node=item))
                for i, item in enumerate(yamlpos.sequence_items(node))]

    def printed(self, value: _Value) -> Text:
        """What ``{{ value }}`` writes (Go's ``%v``; ``<no value>`` written as nothing).  In a
        rendering with the chart's parts ``enabled``, an empty value of the values file (``""``,
        ``0``, null) is the placeholder an install that enables them must fill: unknown."""
        if value.scalar is _Opaque or value.root or value.chart or value.items is not None:
            raise _Unknown
        if self.enabled and value.node is not None and self.empty(value):
            raise _Unknown
        if value.text is not None:
            return value.text
        if value.node is None:
            return _written(_go_scalar(value.scalar))
        node = value.node
        if not yamlpos.is_scalar(node):
            raise _Unknown  # Go prints a map or a slice its own way: map[a:b], [a b]
        typed = _typed(node)
        shown = _go_scalar(typed)
        return self.at_node(node, shown)

    def at_node(self, node: ScalarNode, shown: str) -> Text:
        """``shown`` at the scalar's own characters when it is what the file holds there."""
        if yamlpos.scalar_value(node) != shown or id(node) in self.borrowed:
            return _written(shown)
        offsets = yamlpos.scalar_offsets(self.source, node)
        return Text(shown, tuple(offsets[: len(shown)]))

    def quoted(self, value: _Value, quote: str) -> Text:
        text = self.printed(value)
        if quote == "'":
            return _written("'") + text + _written("'")
        chars: list[str] = ['"']
        origins: list[int] = [TEMPLATE]
        for char, origin in zip(text.chars, text.origins, strict=True):
            escaped = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(char)
            if escaped is None and not char.isprintable():
                raise _Unknown
            for piece in escaped or char:
                chars.append(piece)
                origins.append(origin)
        chars.append('"')
        origins.append(TEMPLATE)
        return Text("".join(chars), tuple(origins))

    def integer(self, value: _Value) -> _Value:
        scalar = self.plain(value)
        if isinstance(scalar, bool) or scalar is None:
            return _Value(scalar=float(bool(scalar)))
        if isinstance(scalar, str):
            if not re.fullmatch(r"[-+]?[0-9]{1,15}", scalar.strip()):
                raise _Unknown
            number = int(scalar.strip())
        elif isinstance(scalar, float):
            number = int(scalar)
        else:
            raise _Unknown
        digits = str(number)
        if value.node is not None and yamlpos.is_scalar(value.node):
            return _Value(text=self.at_node(value.node, digits))
        return _Value(text=_written(digits))

    def printf(self, form: _Value, args: list[_Value]) -> Text:
        pattern = self.printed(form).chars
        out: list[Text] = []
        queue = iter(args)
        pieces = re.split(r"(%%|%[svd])", pattern)
        for piece in pieces:
            if piece == "%%":
                out.append(_written("%"))
            elif piece in ("%s", "%v", "%d"):
                arg = next(queue, None)
                if arg is None:
                    raise _Unknown
                shown = self.integer(arg) if piece == "%d" else arg
                out.append(self.printed(shown))
            elif "%" in piece:
                raise _Unknown
            else:
                out.append(_written(piece))
        if next(queue, None) is not None:
            raise _Unknown
        return _concat(out)

    def indented(self, value: _Value, width: _Value, new_line: bool) -> Text:
        count = self.plain(width)
        if not isinstance(count, float) or not 0 <= count <= 256:
            raise _Unknown
        pad = _written(" " * int(count))
        text = self.printed(value)
        out = [_written("\n"), pad] if new_line else [pad]
        start = 0
        for index, char in enumerate(text.chars):
            if char == "\n":
                out.extend([Text(text.chars[start:index + 1], text.origins[start:index + 1]),
                            pad])
                start = index + 1
        out.append(Text(text.chars[start:], text.origins[start:]))
        return _concat(out)

    def yaml(self, value: _Value, depth: int) -> Text:
        """Sprig's ``toYaml`` of a values subtree (block style, Go's yaml.v2 layout for plain
        strings; a string that needs quoting is written double-quoted)."""
        if depth > MAX_DEPTH:
            raise _TooBig
        lines = self.yaml_lines(value, depth)
        out: list[Text] = []
        for line in lines:
            out.extend([_written("\n"), line] if out else [line])
        return _concat(out)

    def yaml_lines(self, value: _Value, depth: int) -> list[Text]:
        self.step()
        node = value.node
        if value is _NIL or (node is not None and yamlpos.is_null(node)):
            return [_written("null")]
        if node is None or yamlpos.is_scalar(node):
            return [self.yaml_scalar(value)]
        lines: list[Text] = []
        if yamlpos.mapping_node(node) is not None:
            items = yamlpos.mapping_items(node)
            if not items:
                return [_written("{}")]
            for key, child in sorted(items, key=lambda pair: str(pair[0].value)):
                name = self.at_node(key, str(key.value)) if yamlpos.is_scalar(key) else None
                if name is None or not _plain_safe(name.chars):
                    raise _Unknown
                inner = self.yaml_lines(_Value(node=child), depth + 1)
                if _nested(child):
                    lines.append(name + _written(":"))
                    lines.extend(_written("  ") + line for line in inner)
                else:
                    lines.append(name + _written(": ") + inner[0])
            return lines
        items_ = yamlpos.sequence_items(node)
        if not items_:
            return [_written("[]")]
        for item in items_:
            inner = self.yaml_lines(_Value(node=item), depth + 1)
            lines.append(_written("- ") + inner[0])
            lines.extend(_written("  ") + line for line in inner[1:])
        return lines

    def yaml_scalar(self, value: _Value) -> Text:
        text = self.printed(value)
        scalar = self.plain(value)
        if isinstance(scalar, str) and not _plain_safe(scalar):
            return self.quoted(value, '"')
        return text

    def json(self, value: _Value) -> Text:
        node = value.node
        self.step()
        if node is not None and not yamlpos.is_scalar(node):
            if yamlpos.mapping_node(node) is not None:
                raise _Unknown
            out = [_written("[")]
            for number, item in enumerate(yamlpos.sequence_items(node)):
                if number:
                    out.append(_written(","))
                out.append(self.json(_Value(node=item)))
            out.append(_written("]"))
            return _concat(out)
        scalar = self.plain(value)
        if isinstance(scalar, str):
            return self.quoted(value, '"')
        return self.printed(value) if scalar is not None else _written("null")


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _branches(
    pieces: Sequence[_Piece], index: int, last: int
) -> tuple[list[tuple[int, int, str]], int]:
    """The branches of the block opened at ``pieces[index]``: (first, last, head) with the
    head's text (``if COND``, ``else if COND``, ``else``), and the index after its ``end``."""
    opening = pieces[index]
    assert isinstance(opening, _Action)
    branches: list[tuple[int, int, str]] = []
    head = opening.body
    start = index + 1
    depth = 0
    cursor = index + 1
    while cursor < last:
        piece = pieces[cursor]
        if isinstance(piece, _Action):
            word = _keyword(piece)
            if word in ("if", "with", "range", "define", "block"):
                depth += 1
            elif word == "end":
                if depth == 0:
                    branches.append((start, cursor, head))
                    return branches, cursor + 1
                depth -= 1
            elif word == "else" and depth == 0:
                branches.append((start, cursor, head))
                head, start = piece.body, cursor + 1
        cursor += 1
    branches.append((start, last, head))
    return branches, last


_DECLARATION = re.compile(r"\s*(\$[A-Za-z0-9_]*)\s*(?:,\s*(\$[A-Za-z0-9_]*)\s*)?:?=\s*")


def _assign(scope: _Scope, name: str, value: _Value, declared: bool) -> None:
    """``$x := v`` declares ``$x`` in the innermost block; ``$x = v`` sets the ``$x`` the
    blocks around it declared (Go's text/template: an assignment reaches the enclosing
    scope, as in ``{{ $found = true }}`` inside a ``range``)."""
    if not declared:
        for level in scope.maps:
            if name in level:
                level[name] = value
                return
    scope[name] = value


def _declares(body: str) -> bool:
    """Whether an action's variables are declared (``:=``), not assigned (``=``)."""
    match = _DECLARATION.match(body)
    return match is not None and ":=" in match.group(0)


def _declaration(body: str) -> tuple[list[str], str]:
    """A pipeline's declared variables (``$i, $v := X``, ``$x = X``) and the rest."""
    match = _DECLARATION.match(body)
    if match is None:
        return [], body
    return [name for name in match.groups() if name], body[match.end():]


def _child(node: Node, name: str) -> Node | None:
    return yamlpos.mapping_get(node, name) if yamlpos.mapping_node(node) is not None else None


def _typed(node: ScalarNode) -> object:
    """A scalar as Helm reads it: str, float (every number), bool or None."""
    text = yamlpos.scalar_value(node)
    tag = str(node.tag)
    if node.style:
        return text
    if tag.endswith(":null") or text in _NULL:
        return None
    if tag.endswith(":bool") or text in _TRUE or text in _FALSE:
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    if tag.endswith((":int", ":float")) and _NUMBER.fullmatch(text):
        try:
            return float(text)
        except ValueError:
            raise _Unknown from None
    if tag.endswith((":int", ":float")):
        raise _Unknown  # 0x1F, 0o17, .inf: Go's reading not reproduced here
    return text


def _go_scalar(scalar: object) -> str:
    """How Go's ``%v`` prints a Helm value (a float64 for every number)."""
    if scalar is None:
        return ""
    if scalar is True:
        return "true"
    if scalar is False:
        return "false"
    if isinstance(scalar, float):
        if scalar != scalar or scalar in (float("inf"), float("-inf")):
            raise _Unknown
        if scalar == 0:
            return "-0" if math.copysign(1.0, scalar) < 0 else "0"
        if scalar == int(scalar) and abs(scalar) < 1e6:
            return str(int(scalar))
        if abs(scalar) >= 1e6 or (scalar != 0 and abs(scalar) < 1e-4):
            raise _Unknown  # Go switches to e-notation; not reproduced
        return repr(scalar)
    if isinstance(scalar, str):
        return scalar
    raise _Unknown


def _unquote(word: str) -> str:
    body = word[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


_PLAIN = re.compile(r"[A-Za-z0-9_./]|[A-Za-z0-9_./-][A-Za-z0-9_./=+-]+")


def _plain_safe(text: str) -> bool:
    """Whether a string can be written as a plain YAML scalar that reads back as itself."""
    return bool(_PLAIN.fullmatch(text)) and text not in _TRUE | _FALSE | _NULL and \
        not _NUMBER.fullmatch(text)


def _nested(node: Node) -> bool:
    if yamlpos.is_scalar(node) or yamlpos.is_null(node):
        return False
    if yamlpos.mapping_node(node) is not None:
        return bool(yamlpos.mapping_items(node))
    return bool(yamlpos.sequence_items(node))
