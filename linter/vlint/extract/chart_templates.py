"""A chart's own templates, rendered with its ``values.yaml``: the launches they write, placed in
the values file.

A chart in the repository (``Chart.yaml``, ``values.yaml`` and ``templates/`` side by side) writes
its container's command from its values: ``- "{{ .Values.model.maxModelLen }}"`` after
``- --max-model-len``, ``{{- range .Values.extraArgs }}``, ``{{ toYaml .Values.args }}``.  What
those values mean is known only with the template, and where they are wrong is in the values
file.  So each template of the chart is rendered with the chart's defaults
(``vlint.syntax.gotemplate``), read as a manifest, and every launch that uses a value of the
values file becomes a launch of the values file:

- a character written in the values file keeps its exact place there, so a finding on a value
  points at it and a fix may edit it;
- the template's own words (``--max-model-len``, written before a value) are placed with the
  value they lead (``Token.unwritten``: no fix edits them), and a word the template writes
  alone is placed at ``BORROWED`` (line 1, column 1) and marked so (``Invocation.borrowed_at``):
  a finding there belongs to the template, which is linted as a file of its own and reports it
  (``vlint.extract.helm.mask``), so nothing is reported twice;
- a token gathered from several places (``{{ .Values.image.repository }}:{{ .Values.image.tag
  }}``) is ``gathered``: no fix replaces it whole.

When the defaults write no launch (a component its ``values.yaml`` leaves ``enabled: false``),
the templates are rendered again with every ``if`` taking its first branch, and each word of
what they write is marked as passed only when the chart's values enable it (``ENABLED``).

The launch is anchored where the rendered one is when the file holds that place, else at the
first of its arguments the file holds (the values that configure vLLM), else at the image.
A template whose own reading (``vlint.extract.helm.mask``)
finds no launch is read the same way, placed in the template: there the values' characters are
the borrowed ones, which the values file reports.  Line breaks are not
reported here (the rendered text is not the file; the template reports its own).  What is
rendered is the chart's default: an install may set other values, which vlint does not see.

Files are read confined to the linted repository (``discover.confined_read``), at most
``MAX_TEMPLATES`` templates of at most ``MAX_TEMPLATE_SIZE`` bytes each, under ``templates/``
(Helm renders every file there except those whose name starts with ``_``; helm/helm
``pkg/engine/engine.go``).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from pathlib import Path
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from vlint.discover import Refused, confined_read, linted_roots, prefilter, values_chart
from vlint.extract import chart_values
from vlint.extract.nested import rebuilt
from vlint.model import BORROWED, Invocation, LineIndex, Pos, Span, Token
from vlint.syntax import gotemplate, yamlpos
from vlint.syntax.gotemplate import MAX_DEPTH, Rendering

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

# The condition of every word of a launch that the chart writes only once values its defaults
# leave off are set (``gotemplate.render(enabled=True)``).
ENABLED = "the chart's values enable it"
MAX_TEMPLATES = 64
_STRUCTURE_REACH = 4096
MAX_TEMPLATE_SIZE = 1 << 20
_SUFFIXES = (".yaml", ".yml", ".tpl")

T = TypeVar("T")


def chart_of_values(path: str) -> str | None:
    """The chart folder when ``path`` is a chart's own ``values.yaml`` or a values file kept
    with it for other installs (``values-prod.yaml`` beside it, ``ci/*.yaml``,
    ``examples/*.yaml``; ``discover.values_chart``); None otherwise."""
    return values_chart(path)


def is_override(path: str, chart: str) -> bool:
    """Whether a values file of ``chart`` overrides its ``values.yaml`` (is another file)."""
    return os.path.abspath(path) != os.path.join(chart, "values.yaml")


def overridden(chart: str, path: str, root: Node) -> tuple[Node, frozenset[int]] | None:
    """The values an install with the override file ``path`` (its root node ``root``) renders
    with: the chart's ``values.yaml`` with the file merged over it as Helm merges ``-f``
    files (helm/helm ``pkg/chartutil/coalesce.go``: mappings merged key by key, anything else
    replaced, a null deleting the default), and the ids of the nodes the defaults give (their
    characters are the other file's).  None when the chart has no readable ``values.yaml``."""
    base = chart_values_of(chart, path)
    if base is None:
        return None
    borrowed: set[int] = set()
    merged = _merged(base[1], root, borrowed, 0)
    return merged, frozenset(borrowed)


def _merged(base: Node, over: Node, borrowed: set[int], depth: int) -> Node:
    from ruamel.yaml.nodes import MappingNode  # lazy: ruamel is heavy

    if depth > MAX_DEPTH or yamlpos.mapping_node(base) is None or \
            yamlpos.mapping_node(over) is None:
        return over
    entries = dict((key.value, (key, value)) for key, value in yamlpos.mapping_items(base))
    for key, value in entries.values():
        _borrow(value, borrowed, 0)
    for key, value in yamlpos.mapping_items(over):
        if yamlpos.is_null(value):
            entries.pop(key.value, None)
        elif key.value in entries:
            entries[key.value] = (key, _merged(entries[key.value][1], value, borrowed,
                                               depth + 1))
        else:
            entries[key.value] = (key, value)
    return MappingNode(over.tag, list(entries.values()), over.start_mark, over.end_mark)


def _borrow(node: Node, borrowed: set[int], depth: int) -> None:
    """Add the ids of ``node`` and every node under it (aliases visited once)."""
    if id(node) in borrowed or depth > MAX_DEPTH:
        return
    borrowed.add(id(node))
    if yamlpos.mapping_node(node) is not None:
        for key, value in yamlpos.mapping_items(node):
            _borrow(key, borrowed, depth + 1)
            _borrow(value, borrowed, depth + 1)
    else:
        for item in yamlpos.sequence_items(node):
            _borrow(item, borrowed, depth + 1)


def chart_values_of(chart: str, linted: str) -> tuple[str, Node] | None:
    """The text and root node of the chart's ``values.yaml``, read confined to the repository
    of ``linted`` (``chart_values.read_document``)."""
    return chart_values.read_document(os.path.join(chart, "values.yaml"), linted_roots([linted]))


def templates(chart: str, values_path: str) -> Iterator[tuple[str, str]]:
    """Each template of the chart (path, text) that holds template actions, read confined
    (not the ``_*.tpl`` files, which Helm does not render: they hold named templates)."""
    for name, text in _files(chart, values_path):
        if not os.path.basename(name).startswith("_") and "{{" in text:
            yield name, text


def named_templates(chart: str, linted: str) -> dict[str, gotemplate.Define]:
    """The named templates (``define``) of every file under the chart's ``templates/``
    (``_helpers.tpl`` and the others), by name; a later file's wins, as Helm's does."""
    return dict(_named(linted_roots([linted]), _listing(chart)))


@functools.lru_cache(maxsize=4)
def _named(roots: tuple[Path, ...], listing: tuple[tuple[str, int, int], ...]
           ) -> tuple[tuple[str, gotemplate.Define], ...]:
    found: dict[str, gotemplate.Define] = {}
    for _, text in _read(roots, listing):
        if "define" in text:
            found.update(gotemplate.defines(text))
    return tuple(found.items())


def linted(path: str, text: str) -> bool:
    """Whether a chart file is linted as a file of its own (``discover.prefilter``, which
    lets a chart's templates through when the chart names vLLM): the words of its that a
    launch of ``values.yaml`` borrows are then reported there."""
    return prefilter(text.encode("utf-8", "replace"), path)


def _files(chart: str, linted: str) -> Iterator[tuple[str, str]]:
    """The files under the chart's ``templates/`` (path, text), in name order, read confined:
    at most ``MAX_TEMPLATES``, links to folders not followed.  Read once while they are
    unchanged (``_read``: the last few charts are kept, by their files' names, sizes and
    times), however many of the chart's files are linted."""
    yield from _read(linted_roots([linted]), _listing(chart))


def _listing(chart: str) -> tuple[tuple[str, int, int], ...]:
    """The chart's template files with their size and modification time."""
    names: list[str] = []
    for current, folders, files in os.walk(os.path.join(chart, "templates")):
        folders[:] = sorted(f for f in folders if not os.path.islink(os.path.join(current, f)))
        names.extend(os.path.join(current, f) for f in sorted(files) if f.endswith(_SUFFIXES))
        if len(names) >= MAX_TEMPLATES:
            break
    listing: list[tuple[str, int, int]] = []
    for name in names[:MAX_TEMPLATES]:
        try:
            stat = os.lstat(name)
        except OSError:
            continue
        listing.append((name, stat.st_size, stat.st_mtime_ns))
    return tuple(listing)


@functools.lru_cache(maxsize=4)
def _read(roots: tuple[Path, ...], listing: tuple[tuple[str, int, int], ...]
          ) -> tuple[tuple[str, str], ...]:
    read: list[tuple[str, str]] = []
    for name, _, _ in listing:
        try:
            read.append((name, confined_read(name, roots, MAX_TEMPLATE_SIZE).decode("utf-8")))
        except (Refused, UnicodeDecodeError):
            continue
    return tuple(read)


def mark_used(node: Node, used: set[int], consumed: set[int], depth: int = 0) -> bool:
    """Add to ``consumed`` the id of every list and mapping under ``node`` that holds a value
    the chart's templates used (an offset in ``used``): the templates say what those values
    mean, so no other reading of the values file takes them.  Whether ``node`` holds one."""
    if not used or depth > MAX_DEPTH:
        return False
    if yamlpos.is_scalar(node):
        return node.start_mark.index in used or (
            node.style is not None and node.start_mark.index + 1 in used)
    children = ([v for _, v in yamlpos.mapping_items(node)]
                if yamlpos.mapping_node(node) is not None else yamlpos.sequence_items(node))
    holds = False
    for child in children:
        holds = mark_used(child, used, consumed, depth + 1) or holds
    if holds and depth > 0:
        consumed.add(id(node))
    return holds


class Placement:
    """Maps positions in a rendered template to one of the files it was rendered from: the
    values file (``origins`` are the rendering's ``origins``) or the template (its
    ``template_origins``)."""

    def __init__(self, rendering: Rendering, text: str, origins: tuple[int, ...],
                 condition: str | None = None, hold_structure: bool = False) -> None:
        self.rendering = rendering
        self.origins = origins
        self.condition = condition
        # A launch whose every word the other file writes is still this file's when this
        # file writes the container around them (a template of ``args: {{ toYaml ... }}``).
        self.hold_structure = hold_structure
        self.rendered = LineIndex.of(rendering.text)
        self.values = LineIndex(text)

    def of(self, pos: Pos) -> Pos | None:
        """Where the rendered character at ``pos`` is written in the file; None for a character
        the other file (or a function) wrote."""
        offset = self.rendered.offset(pos)
        origins = self.origins
        if not 0 <= offset < len(origins) or origins[offset] < 0:
            return None
        return self.values.pos(origins[offset])

    def token(self, token: Token) -> Token:
        placed = self._token(token)
        if self.condition is not None and placed.condition is None:
            return placed.with_condition(self.condition)
        return placed

    def _token(self, token: Token) -> Token:
        positions = token.positions
        mapped = [self.of(p) for p in positions[:-1]]
        real = [index for index, at in enumerate(mapped) if at is not None]
        if not real:
            return Token(token.text, (BORROWED,) * len(positions), literal=token.literal,
                         condition=token.condition, gathered=True, unwritten=len(token.text))
        lead = real[0]
        first = mapped[lead]
        assert first is not None
        placed: list[Pos] = []
        gathered = token.gathered
        previous = first
        for index, at in enumerate(mapped):
            if at is None:
                placed.append(first if index < lead else previous)
                gathered = gathered or index > lead
                continue
            if at < previous:
                gathered = True
            placed.append(at)
            previous = at
        end = self.of(positions[-1])
        if end is None or end <= previous:
            end = Pos(previous.line, previous.column + 1)
        return Token(token.text, (*placed, end), literal=token.literal,
                     condition=token.condition, gathered=gathered,
                     unwritten=max(token.unwritten, lead))

    def span(self, span: Span) -> Span:
        """The span from its first character's place to just after the last character of it
        that the values file holds."""
        first, stop = self.rendered.offset(span.start), self.rendered.offset(span.end)
        origins = self.origins
        start = self.of(span.start)
        if start is None:
            # The first of its characters this file holds (``{{ .Values.image.repository
            # }}:{{ .Values.image.tag }}`` placed in the template: the ``:``).
            text = self.rendering.text
            held = next((o for o in range(first, min(stop, len(origins)))
                         if origins[o] >= 0 and not text[o].isspace()), None)
            if held is None:
                return Span(BORROWED, BORROWED)
            start = self.values.pos(origins[held])
            first = held
        for offset in range(min(stop, len(origins)) - 1, first, -1):
            if origins[offset] >= 0:
                last = self.values.pos(origins[offset])
                if last >= start:
                    return Span(start, Pos(last.line, last.column + 1))
                break
        return Span(start, Pos(start.line, start.column + 1))

    def _structure_before(self, pos: Pos) -> Pos | None:
        """The place of the nearest word this file holds before the rendered ``pos`` (the
        ``command:`` key above a list the values write), within ``_STRUCTURE_REACH``
        characters."""
        origins, text = self.origins, self.rendering.text
        offset = min(self.rendered.offset(pos), len(origins))
        for back in range(offset - 1, max(-1, offset - 1 - _STRUCTURE_REACH), -1):
            if origins[back] >= 0 and not text[back].isspace():
                # The start of that word (``command:``, not its colon).
                while back > 0 and origins[back - 1] >= 0 and not text[back - 1].isspace():
                    back -= 1
                return self.values.pos(origins[back])
        return None

    def moved(self, value: T) -> T:
        """``value`` with every token, span and position in it placed in the file (the one walk
        over the model, ``nested.rebuilt``)."""

        def leaf(item: Any) -> Any:
            if isinstance(item, Token):
                return self.token(item)
            if isinstance(item, Span):
                return self.span(item)
            return self.of(item) or BORROWED

        return rebuilt(value, leaf)

    def invocation(self, invocation: Invocation) -> Invocation | None:
        """The launch placed in the values file; None when it uses no value written there."""
        moved = self.moved(replace(invocation, line_breaks=()))
        used = [token.span.start for token in (*moved.args, *moved.repeated_entry)
                if token.unwritten < len(token.text)]
        image = moved.deployment.image
        if not used and image is not None and image.span.start != BORROWED:
            used.append(image.span.start)
        if not used and moved.anchor.start == BORROWED:
            held = self._structure_before(invocation.anchor.start) \
                if self.hold_structure else None
            if held is None:
                return None  # nothing of it is this file's
            used.append(held)
        if not used:
            used.append(moved.anchor.start)  # a container whose every word another file holds
        anchor = moved.anchor
        if anchor.start == BORROWED:
            first = min(used)
            anchor = Span(first, Pos(first.line, first.column + 1))
        return replace(moved, anchor=anchor, borrowed_at=BORROWED)
