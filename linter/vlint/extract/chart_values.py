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
from vlint.syntax import gotemplate, yamlpos

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

    from vlint.extract.kubernetes import _Reader

_TRUE = gotemplate.YAML11_TRUE
_FALSE = gotemplate.YAML11_FALSE
_NULL = gotemplate.YAML_NULL
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


class ChartDefaults:
    """A chart's own ``values.yaml`` and ``Chart.yaml``: what a template's ``.Values`` and
    ``.Chart`` hold when the chart is installed with its defaults.

    Helm loads a chart's defaults from ``values.yaml`` beside ``Chart.yaml`` (helm/helm
    ``pkg/chart/loader/load.go``; https://helm.sh/docs/topics/charts/#the-chart-file-structure).
    A release may be installed with other values, so what ``render`` gives is the chart's
    default, never the deployed text for certain: callers use it to decide what a container
    runs and which release its image names, never as the text of a token.
    """

    def __init__(self, values: Node | None, values_text: str, chart: Node | None) -> None:
        self.values = values
        self.values_text = values_text
        self.chart = chart

    def render(self, written: str, plain: bool = True) -> str | None:
        """What Helm renders for a scalar written with template actions (``written``, its value
        as YAML reads it in the template), read back as YAML reads the scalar: a ``plain`` one
        is read again (``{{ .Values.image | quote }}`` gives the image, its quotes YAML's); a
        quoted one holding a quote or a backslash after rendering is unknown.  None when an
        action is not one ``vlint.syntax.gotemplate`` evaluates."""
        if len(written) > MAX_RENDERED:
            return None
        rendering = gotemplate.render(written, self.values, self.values_text, self.chart)
        if rendering is None or rendering.incomplete or gotemplate.UNKNOWN in rendering.origins:
            return None
        text = rendering.text
        if "{{" in text or "}}" in text:
            return None
        if not plain:
            return None if any(c in text for c in "\"'\\") else text
        documents = yamlpos.compose_documents(f"x: {text}\n") if "\n" not in text else None
        node = get(documents[0], "x") if documents and len(documents) == 1 else None
        if node is None or not yamlpos.is_scalar(node):
            return None
        return yamlpos.scalar_value(node)


def chart_defaults(template: str) -> ChartDefaults | None:
    """The defaults of the chart the template ``template`` belongs to; None when it is not in a
    chart.  Both files are read only inside the template's repository (``read_document``); a
    file that cannot be read or parsed gives no values (every reference to it is then
    unknown)."""
    chart = chart_folder(template)
    if chart is None:
        return None
    roots = linted_roots([template])
    values = read_document(os.path.join(chart, "values.yaml"), roots)
    meta = read_document(os.path.join(chart, "Chart.yaml"), roots)
    return ChartDefaults(values[1] if values else None, values[0] if values else "",
                         meta[1] if meta else None)


def chart_document(chart: str, linted: str) -> Node | None:
    """The chart's ``Chart.yaml`` (read confined to the repository of ``linted``)."""
    found = read_document(os.path.join(chart, "Chart.yaml"), linted_roots([linted]))
    return found[1] if found else None


def read_document(path: str, roots: tuple[Path, ...]) -> tuple[str, Node] | None:
    """The text and root mapping of a chart's YAML file, read only inside ``roots``
    (``discover.confined_read``: no symlink out of them, no FIFO, at most MAX_VALUES_SIZE
    bytes) and parsed as YAML nodes (nothing constructed, aliases shared, never expanded);
    None when it is missing, unreadable, not one document or not a mapping."""
    if not os.path.lexists(path):
        return None
    try:
        text = confined_read(path, roots, MAX_VALUES_SIZE).decode("utf-8")
        documents = yamlpos.parse_documents(text)
    except (Refused, UnicodeDecodeError, Unparsable):
        return None
    if len(documents) != 1 or yamlpos.mapping_node(documents[0]) is None:
        return None
    return text, documents[0]
