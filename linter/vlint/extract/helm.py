"""Helm charts: templates, values files and Flux ``HelmRelease`` values.

A template is not YAML until Helm renders it.  A template is first read as written: every
``{{ ... }}`` expression is replaced by a placeholder of the same length (line breaks kept), so
every other character keeps its exact position, and a value that touches a placeholder is an
unresolved value (kept as written, not literal).  A line holding nothing but template actions
(``{{- if ... }}``, ``{{- end }}``, ``{{- toYaml .Values.x | nindent 8 }}``) becomes blank, so
both branches of a conditional are read.  The result is read as a Kubernetes manifest.  When
the masked text is still not YAML, each ``---`` document is tried alone and those that fail are
skipped: a template is never reported as unparsable.  A container's ``image:`` written with
template actions is rendered with the chart's own ``values.yaml`` (and ``Chart.yaml``) to
decide whether it runs vLLM's server and which release it names (``_TemplateReader``).

A chart of the repository is also rendered with its own ``values.yaml``
(``vlint.syntax.gotemplate``, every written character traced to its file): the launches its
templates write are launches of the values file, placed there (``_own_templates``,
``vlint.extract.chart_templates``), and a template whose reading as written finds no launch is
read rendered, placed in the template (``_rendered_template``).  The words of the other file are
borrowed (``Invocation.borrowed_at``): each file reports only what it holds.

Values files are not manifests.  The values of charts whose templates are not in the repository
but known to vlint are read
as the commands those templates write, each setting at its YAML span (one module per chart
family): the vLLM production stack (``vlint.extract.chart_production_stack``), the bjw-s
app-template (``vlint.extract.chart_app_template``) and llm-d's ModelService
(``vlint.extract.chart_modelservice``).  Elsewhere only argument lists that certainly reach
vLLM are read, so that a guess never produces a finding:

- ``vllmConfig.extraArgs`` outside a production-stack ``modelSpec``, appended to
  ``vllm serve MODEL``;
- ``args:`` or ``extraArgs:`` beside a vLLM server image (``image: vllm/vllm-openai:TAG``,
  ``image: {registry, repository, tag}``, ``image: {name, tag}``, or ``repository:`` +
  ``tag:``), the server's arguments;
- ``engine: VLLM`` with ``args:`` (KubeAI) and containers, as in a manifest.

In such a fragment the model is given by the chart, so a stand-in (not literal) model is put
first.  A Flux ``HelmRelease`` (``helm.toolkit.fluxcd.io``) is a values document at
``spec.values``; its ``${VAR}`` substitutions (Flux ``postBuild.substitute``) are unresolved
values, as templates are.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from vlint.errors import Unparsable
from vlint.extract import (
    chart_app_template, chart_modelservice, chart_production_stack, chart_templates,
    chart_values, deployment, kubernetes,
)
from vlint.extract.argv import recognise_all
from vlint.knowledge import catalog
from vlint.knowledge.images import (
    image_entry, is_server_image, parse_reference, release_from_image, repository_entry,
    runs_server,
)
from vlint.model import LineIndex, Deployment, Invocation, Located, Pos, Token
from vlint.syntax import gotemplate, yamlpos
from vlint.syntax.yamlpos import SourceIndex
from vlint.discover import chart_folder, helm_claims

# The kind's claim lives with kind detection (``vlint.discover``).
claims = helm_claims

if TYPE_CHECKING:
    from vlint.extract.nested import ExtractContext
    from ruamel.yaml.nodes import Node

    from vlint.extract.kubernetes import _Reader
    from vlint.model import EnvVar
    from vlint.syntax.yamlpos import SourceIndex

KIND = "helm"
_PLACEHOLDER = "x"
_DOCUMENT = re.compile(r"^---", re.MULTILINE)
_ARG_LISTS = ("args", "extraArgs")
_MAX_DEPTH = 64
_OPENERS = frozenset({"if", "with", "range", "define", "block"})
_HELM_RELEASE = re.compile(r"^kind:[ \t]*['\"]?HelmRelease['\"]?[ \t]*(#.*)?\r?$", re.MULTILINE)
_FLUX_VARIABLE = re.compile(r"\$\{[^{}\n]{1,256}\}")
# The chart families whose values are read as their templates write them, each with the
# values keys its reading takes over.
_FAMILIES = (
    (chart_production_stack, (chart_production_stack.KEY,)),
    (chart_app_template, (chart_app_template.KEY,)),
    (chart_modelservice, chart_modelservice.ROLES),
)


def mask(text: str) -> tuple[str, dict[Pos, str]]:
    """The text with template actions masked, and each masked character's position and text.

    Lines that hold only actions become blank, and so do the lines of every ``else`` branch
    (and the rest of a line after an ``else``, up to its ``end``): the text read is the
    rendering in which each conditional takes its first branch, so two exclusive branches never
    give contradictory arguments.  Two effects of Helm's rendering that a blank line would undo
    are kept (``_keep_rendering``): a shell line continuation that runs through lines whose
    actions chomp their line break (``{{-``), and the indentation of a block scalar whose first
    line is blanked.
    """
    chars = list(text)
    unresolved: dict[Pos, str] = {}
    source = SourceIndex(text)
    actions_at: dict[int, list[tuple[int, int, str]]] = {}
    for start, end in _actions(text):
        at = source.pos(start)
        columns = (at.column, at.column + (end - start))
        actions_at.setdefault(at.line, []).append((*columns, text[start:end]))
        for index in range(start, end):
            if text[index] not in "\r\n":
                chars[index] = _PLACEHOLDER
                unresolved[source.pos(index)] = text[index]
    lines = "".join(chars).split("\n")
    written = list(lines)  # each line with its actions masked, before any is made blank
    blanked: set[int] = set()  # the lines (0-based) made blank
    branch: set[int] = set()  # those of them inside a branch not read
    skipping: list[bool] = []  # one entry per open if/with/range: inside its else branch?
    for number, line in enumerate(lines, start=1):
        bare = line.rstrip("\r")
        pure = bool(bare.strip()) and all(
            Pos(number, column) in unresolved
            for column, char in enumerate(bare, start=1)
            if not char.isspace()
        )
        whole = pure or any(skipping)
        if whole:
            lines[number - 1] = " " * len(bare) + line[len(bare) :]
            blanked.add(number - 1)
            if any(skipping):
                branch.add(number - 1)
        row = list(lines[number - 1])
        skipped_from: int | None = None  # the column where a branch not read starts
        for first, after, action in actions_at.get(number, []):
            was = any(skipping)
            _follow(action, skipping)
            if whole:
                continue
            if not was and any(skipping):
                skipped_from = first
            elif was and not any(skipping) and skipped_from is not None:
                row[skipped_from - 1 : after - 1] = " " * (after - skipped_from)
                skipped_from = None
        if skipped_from is not None:
            row[skipped_from - 1 : len(bare)] = " " * (len(bare) - skipped_from + 1)
        lines[number - 1] = "".join(row)
    _keep_rendering(text.split("\n"), lines, blanked, actions_at)
    _folded(lines, written, blanked, branch, actions_at)
    return _chomped("\n".join(lines), lines, blanked, branch, actions_at), unresolved


# A folded block scalar's header ends its line (``- >-``, ``args: >``).
_FOLDED_HEADER = re.compile(r"[:-][ \t]>[1-9+-]{0,2}$")


def _in_folded(lines: list[str], blanked: set[int]) -> list[bool]:
    """For each line, whether it is inside a folded block scalar (``- >-``, ``args: >``): after
    such a header, up to the first line that is neither blanked nor indented past it."""
    inside: list[bool] = []
    header_indent: int | None = None
    for index, line in enumerate(lines):
        body = line.rstrip("\r")
        indent = len(body) - len(body.lstrip(" "))
        if body.strip() and index not in blanked and header_indent is not None \
                and indent <= header_indent:
            header_indent = None
        inside.append(header_indent is not None)
        if index not in blanked and _FOLDED_HEADER.search(body.rstrip()[-6:]):
            header_indent = indent
    return inside


def _control(action: str) -> bool:
    """Whether an action renders nothing itself (a conditional, a loop, a definition, a comment)."""
    words = action.strip("{}").strip("-").strip().split()
    return not words or words[0] in _CONTROL or words[0].startswith("/*")


def _folded(
    lines: list[str],
    written: list[str],
    blanked: set[int],
    branch: set[int],
    actions_at: Mapping[int, list[tuple[int, int, str]]],
) -> None:
    """In a folded block scalar, a line holding only an action that renders a value (``{{
    .Values.model }}``) is content, not a blank line: it gets its masked text back (one
    unresolved word), as Helm writes a value there."""
    inside = _in_folded(lines, blanked)
    for index in sorted(blanked):
        if index in branch or not inside[index]:
            continue
        actions = actions_at.get(index + 1, [])
        if actions and not any(_control(action) for _, _, action in actions):
            lines[index] = written[index]
            blanked.discard(index)


def _chomped(
    masked: str,
    lines: list[str],
    blanked: set[int],
    branch: set[int],
    actions_at: Mapping[int, list[tuple[int, int, str]]],
) -> str:
    """``masked`` where a blanked line inside a folded block scalar that Helm renders as no
    line at all (one inside a branch not read, or one whose first action chomps the line break
    before it, ``{{- if ... }}``) no longer starts a line: in a folded scalar a blank line is a
    line break of the value (a shell command cut in two).  The line break before it becomes a
    blank, so every offset stays (the positions come from the original text's lines)."""
    chars: list[str] | None = None
    inside = _in_folded(lines, blanked)
    offset = 0
    for index, line in enumerate(lines):
        if index and index in blanked and inside[index]:
            actions = actions_at.get(index + 1, [])
            chomps = bool(actions) and actions[0][2].startswith("{{-")
            if index in branch or chomps:
                chars = chars if chars is not None else list(masked)
                chars[offset - 1] = " "  # the line break that ends the line before
        offset += len(line) + 1
    return masked if chars is None else "".join(chars)


_CONTROL = frozenset({"if", "else", "end", "range", "with", "define", "block", "template",
                      "break", "continue"})


# A block scalar's header ends its line (``args: |``, ``- |-``); read on the line's last
# characters only, so that a long line costs nothing.
_BLOCK_HEADER = re.compile(r"[:-][ \t][|>][1-9+-]{0,2}$")


def _keep_rendering(
    original: list[str],
    lines: list[str],
    blanked: set[int],
    actions_at: Mapping[int, list[tuple[int, int, str]]],
) -> None:
    """Keep, in the masked ``lines``, what blank lines would change in the rendered text.

    A shell ``\\`` whose following characters were masked moves to the end of its line, and a
    blanked line after a continued line continues it when its first action chomps the line
    break before it (``{{-``), as the rendered text has no line there.  A blanked first line of
    a block scalar holding more blanks than the scalar's indentation would end the scalar (YAML
    takes such a line's blanks as the indentation): it becomes a comment at the indentation of
    the next line (a shell comment in a script).
    """
    for index, line in enumerate(lines):
        body = line.rstrip("\r")
        if index in blanked:
            previous = lines[index - 1].rstrip() if index else ""
            actions = actions_at.get(index + 1, [])
            chomps = bool(actions) and actions[0][2].startswith("{{-")
            if previous.endswith("\\") and chomps and body:
                lines[index] = body[:-1] + "\\" + line[len(body) :]
            continue
        # "--flag \\{{- else }}--other \\": the continuation is followed by masked text only.
        slash = body.rfind("\\")
        rest = slice(slash + 1, len(body))
        if 0 <= slash < len(body) - 1 and not body[rest].strip() and original[index][rest].strip():
            lines[index] = body[:slash] + body[rest] + "\\" + line[len(body) :]
    for index in sorted(blanked):
        if index == 0 or index - 1 in blanked:
            continue
        if not _BLOCK_HEADER.search(lines[index - 1].rstrip()[-6:]):
            continue
        following = next((lines[i] for i in range(index + 1, len(lines))
                          if lines[i].strip() and i not in blanked), None)
        if following is None:
            continue
        indent = len(following) - len(following.lstrip(" "))
        body = lines[index].rstrip("\r")
        if indent < len(body):
            lines[index] = body[:indent] + "#" + body[indent + 1 :] + lines[index][len(body) :]


def _actions(text: str) -> list[tuple[int, int]]:
    """Each ``{{ ... }}``, the shortest from each leftmost ``{{`` (one pass: a lazy regular
    expression rescans the rest of the text from every unclosed ``{{``)."""
    found = []
    start = text.find("{{")
    while start >= 0:
        close = text.find("}}", start + 2)
        if close < 0:
            break
        found.append((start, close + 2))
        start = text.find("{{", close + 2)
    return found


def _follow(action: str, skipping: list[bool]) -> None:
    words = action.strip("{}").strip("-").strip().split()
    word = words[0] if words else ""
    if word in _OPENERS:
        skipping.append(False)
    elif word == "else" and skipping:
        skipping[-1] = True
    elif word == "end" and skipping:
        skipping.pop()


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    """Every vLLM launch in a chart template, values file or HelmRelease; never raises on a
    template."""
    masked, unresolved = mask(text)
    if _HELM_RELEASE.search(text):
        unresolved = {**unresolved, **_flux_variables(text)}
    source = yamlpos.SourceIndex(masked)
    # Positions come from the file's own lines: masking keeps every offset, not every line.
    source.pos = LineIndex.of(text).pos
    documents = _documents(masked, strict="{{" not in text)
    reader = _TemplateReader(path, source, unresolved)
    for document in documents:
        reader.note_runtime(document)
    found: list[Invocation] = []
    consumed: set[int] = set()
    for document in documents:
        found.extend(_chart_values(reader, document, 0, consumed, set()))
    for document in documents:
        found.extend(reader.walk(document, 0))
    own, used = _own_templates(path, text, documents if "{{" not in text else None)
    for document in documents:
        chart_templates.mark_used(document, used, consumed)
        found.extend(_values(reader, document, None, 0, consumed))
    if not own and "{{" in text and all(not i.args and not i.keywords for i in found):
        # Nothing read as written, or only images whose arguments are all the templates' own
        # (``args: {{- include "vllm.args" . | nindent 12 }}``): the rendering says more.
        rendered = _rendered_template(path, text)
        if rendered and (not found or any(i.args or i.keywords for i in rendered)):
            return rendered
    return [*(_restore(invocation, unresolved) for invocation in found), *own]


def _rendered_template(path: str, text: str) -> list[Invocation]:
    """A template whose masked reading finds no launch, rendered with its chart's defaults
    (a command built by conditionals and chomped actions inside one scalar), or with the
    parts they leave off enabled when the defaults write none: the launches it writes, placed
    in the template, the values' characters borrowed (the chart's ``values.yaml`` reports
    them, ``_own_templates``)."""
    chart = chart_folder(path)
    values = chart_templates.chart_values_of(chart, path) if chart is not None else None
    if chart is None or values is None:
        return []
    values_text, root = values
    meta = chart_values.chart_document(chart, path)
    named = chart_templates.named_templates(chart, path)
    for enabled in (False, True):
        # As the defaults say; when they leave the template's launch off, with its parts on.
        rendering = gotemplate.render(text, root, values_text, meta, enabled=enabled,
                                      defines=named)
        if rendering is None:
            return []
        placement = chart_templates.Placement(
            rendering, text, rendering.template_origins,
            condition=chart_templates.ENABLED if enabled else None, hold_structure=True)
        found = _read_rendering(path, rendering, placement)
        if found:
            return found
    return []


def _read_rendering(
    path: str, rendering: gotemplate.Rendering, placement: chart_templates.Placement
) -> list[Invocation]:
    """The launches of a rendered template, each placed by ``placement`` (None: it uses
    nothing of the file placed in)."""
    unresolved = {LineIndex.of(rendering.text).pos(offset): char
                  for offset, char in rendering.written.items()}
    reader = _TemplateReader(path, yamlpos.SourceIndex(rendering.text), unresolved)
    found: list[Invocation] = []
    for document in _documents(rendering.text, strict=False):
        for invocation in reader.walk(document, 0):
            placed = placement.invocation(_restore(invocation, unresolved))
            if placed is not None:
                found.append(placed)
    return found


def _own_templates(
    path: str, text: str, documents: Sequence[Node] | None
) -> tuple[list[Invocation], set[int]]:
    """The launches a chart's own templates write from its ``values.yaml`` (``path``), placed
    in it (``vlint.extract.chart_templates``), and the offsets of the values they use (none
    when ``path`` is not a chart's values).  ``documents`` are the file's, None when it holds
    ``{{`` (strings the templates give to ``tpl``): it is then parsed as written."""
    used: set[int] = set()
    chart = chart_templates.chart_of_values(path)
    if chart is None:
        return [], used
    if documents is None:
        try:
            documents = yamlpos.parse_documents(text)
        except Unparsable:
            return [], used
    if len(documents) != 1 or yamlpos.mapping_node(documents[0]) is None:
        return [], used
    values, borrowed = documents[0], frozenset[int]()
    if chart_templates.is_override(path, chart):
        merged = chart_templates.overridden(chart, path, values)
        if merged is None:
            return [], used
        values, borrowed = merged
    meta = chart_values.chart_document(chart, path)
    named = chart_templates.named_templates(chart, path)
    found: list[Invocation] = []
    for template, template_text in chart_templates.templates(chart, path):
        for enabled in (False, True):
            # Rendered as the defaults say; when that writes no launch, with the parts the
            # defaults leave off enabled, each word then passed only when they are.
            rendering = gotemplate.render(template_text, values, text, meta,
                                          enabled=enabled, defines=named, borrowed=borrowed)
            if rendering is None:
                break
            placement = chart_templates.Placement(
                rendering, text, rendering.origins,
                condition=chart_templates.ENABLED if enabled else None)
            placed = _read_rendering(path, rendering, placement)
            if not chart_templates.linted(template, template_text):
                # The template is not linted on its own: its words' findings are reported
                # here, at the place they are put (line 1), rather than nowhere.
                placed = [replace(i, borrowed_at=None) for i in placed]
            if placed:
                found.extend(placed)
                used.update(o for o in rendering.origins if o >= 0)
                break
    return found, used


class _TemplateReader(kubernetes._Reader):
    """A Kubernetes reader for a chart's templates: a container's ``image:`` written with
    template actions (``"{{ .Values.image.repository }}:{{ .Values.image.tag }}"``) is rendered
    with the chart's own ``values.yaml`` (``chart_values.ChartDefaults``, read lazily, once a
    file) to decide whether the container runs vLLM's server and which release its tag names.

    Only that decision and the target use the rendered text: the image token stays as written
    (not literal) and the launch states no image, as for any image that is not literal, so no
    finding quotes or edits a value the chart's defaults gave and an install may override; a
    launch of the image alone is anchored at the written token.  An image that cannot be
    rendered (``{{ include "vllm.image" .Values.image }}``, a named template vlint does not
    expand) is decided on its written text as any unresolved reference is
    (``knowledge.images.runs_server``: it names vLLM and every option among the arguments is
    one of vLLM's), with no release.
    """

    def __init__(self, path: str, source: SourceIndex, unresolved: Mapping[Pos, str]) -> None:
        super().__init__(path, source, KIND, unresolved)
        self._defaults: list[chart_values.ChartDefaults | None] = []

    def container(
        self,
        node: Node,
        more_args: Sequence[Token] = (),
        more_env: Mapping[str, EnvVar] | None = None,
        pod: Node | None = None,
    ) -> list[Invocation]:
        found = super().container(node, more_args, more_env, pod)
        if found and yamlpos.mapping_node(node) is not None:
            written_args = yamlpos.mapping_get(node, "args")
            if written_args is not None and yamlpos.is_null(written_args):
                # ``args:`` whose items a template action writes (``{{- toYaml .args |
                # nindent 8 }}``, masked to nothing): arguments vlint does not see.
                found = [replace(i, args_complete=False) for i in found]
        image_node = yamlpos.mapping_get(node, "image") if yamlpos.mapping_node(node) else None
        token = self.token(image_node)
        if token is None or token.literal:
            return found
        written = "".join(self.unresolved.get(p, c) for c, p in zip(token.text, token.positions))
        plain = yamlpos.is_scalar(image_node) and not image_node.style
        rendered = self.render(written, plain)
        target = release_from_image(rendered) if rendered is not None else None
        if found:
            return [replace(i, target=i.target or target) for i in found]
        if yamlpos.mapping_get(node, "command") is not None:
            return []
        variables = {**self.env(yamlpos.mapping_get(node, "env")), **(more_env or {})}
        values = {name: variable.value for name, variable in variables.items()}
        args = [kubernetes.expand(word, values, self.budget)
                for word in [*(self.words(yamlpos.mapping_get(node, "args")) or ()), *more_args]]
        facts = replace(self.facts(node, pod), env=variables,
                        env_complete=yamlpos.mapping_get(node, "envFrom") is None)
        decided = rendered if rendered is not None else written
        if args and runs_server(decided, args):
            launches = recognise_all(args, path=self.path, kind=KIND, image=decided)
            return [deployment.enclosed(replace(i, target=target), KIND, facts, target)
                    for i in launches]
        if not args and rendered is not None and is_server_image(rendered):
            return [Invocation(self.path, (KIND,), "cli", token.span, deployment=facts,
                               target=target, entry=image_entry(target), entry_from_image=True)]
        return []

    def render(self, written: str, plain: bool) -> str | None:
        """The image as the chart's defaults render it; None when they cannot be known."""
        if ".Values" not in written and ".Chart" not in written:
            return None
        if not self._defaults:
            self._defaults.append(chart_values.chart_defaults(self.path))
        defaults = self._defaults[0]
        return None if defaults is None else defaults.render(written, plain)


def _flux_variables(text: str) -> dict[Pos, str]:
    """Each character of every ``${VAR}`` (Flux substitutes them before Helm sees the values)."""
    source = SourceIndex(text)
    return {
        source.pos(index): text[index]
        for match in _FLUX_VARIABLE.finditer(text)
        for index in range(match.start(), match.end())
    }


def _chart_values(
    reader: _Reader, node: Node, depth: int, consumed: set[int], seen: set[int]
) -> list[Invocation]:
    """The launches of every chart family's values found at any depth (a values file, an
    umbrella chart's sub-chart values, a HelmRelease's ``spec.values``); the subtrees read are
    added to ``consumed``."""
    if depth > _MAX_DEPTH or id(node) in seen:
        return []
    seen.add(id(node))
    found: list[Invocation] = []
    taken: set[str] = set()
    if yamlpos.mapping_node(node) is not None:
        for family, keys in _FAMILIES:
            if family.matches(node):
                found.extend(family.read(reader, node))
                taken.update(keys)
        children = [v for k, v in yamlpos.mapping_items(node) if k.value not in taken]
        consumed.update(id(v) for k, v in yamlpos.mapping_items(node) if k.value in taken)
    else:
        children = yamlpos.sequence_items(node)
    for child in children:
        found.extend(_chart_values(reader, child, depth + 1, consumed, seen))
    return found


def _restore(invocation: Invocation, unresolved: Mapping[Pos, str]) -> Invocation:
    """Template characters back as written, and every token touching one not literal."""

    def restored(token: Token) -> Token:
        touched = [unresolved.get(p) for p in token.positions[:-1]]
        if all(t is None for t in touched):
            return token
        text = "".join(t if t is not None else c for c, t in zip(token.text, touched, strict=True))
        return Token(text, token.positions, literal=False)

    env = {
        name: replace(variable, value=restored(variable.value))
        for name, variable in invocation.deployment.env.items()
    }
    return replace(
        invocation,
        args=tuple(restored(t) for t in invocation.args),
        deployment=replace(invocation.deployment, env=env),
    )


def _documents(masked: str, *, strict: bool) -> list[Node]:
    """The masked text's documents; without templates, invalid YAML is Unparsable."""
    try:
        return yamlpos.parse_documents(masked)
    except Unparsable:
        # YAML allows tabs in trailing white space, ruamel does not (as for manifests).
        untabbed = kubernetes._untab_trailing_blanks(masked)
        if untabbed == masked and strict:
            raise
        if untabbed != masked:
            try:
                return yamlpos.parse_documents(untabbed)
            except Unparsable:
                if strict:
                    raise
        masked = untabbed
    lines = masked.split("\n")
    starts = [0, *(masked.count("\n", 0, m.start()) for m in _DOCUMENT.finditer(masked)), len(lines)]
    documents: list[Node] = []
    for first, last in zip(starts, starts[1:], strict=False):
        alone = "\n".join(
            line if first <= number < last else "" for number, line in enumerate(lines)
        )
        try:
            documents.extend(yamlpos.parse_documents(alone))
        except Unparsable:
            continue
    return documents


def _image_of(reader: _Reader, node: Node) -> Located[str] | None:
    """A mapping's vLLM server image: ``image: REF``, ``image: {registry, repository (or name),
    tag, digest}``, or ``repository:`` (+ ``tag:``) beside the arguments (at the repository:
    its tag may be missing)."""
    image_node = yamlpos.mapping_get(node, "image")
    if image_node is not None:
        return chart_values.server_image(chart_values.image(reader, image_node))
    if yamlpos.mapping_get(node, "repository") is None:
        return None
    return chart_values.server_image(chart_values.image(reader, node))


def _values(
    reader: _Reader, node: Node, image: Located[str] | None, depth: int, consumed: set[int],
    seen: set[tuple[int, Located[str] | None]] | None = None,
) -> list[Invocation]:

    # An alias is its anchored node again: visiting it once per alias would take exponential
    # time on nested aliases ("billion laughs").
    seen = set() if seen is None else seen
    if depth > _MAX_DEPTH or (id(node), image) in seen or id(node) in consumed:
        return []
    seen.add((id(node), image))
    if yamlpos.mapping_node(node) is None:
        found: list[Invocation] = []
        for item in yamlpos.sequence_items(node):
            found.extend(_values(reader, item, image, depth + 1, consumed, seen))
        return found
    image = _image_of(reader, node) or image
    found = []
    config = yamlpos.mapping_get(node, "vllmConfig")
    if config is not None and yamlpos.mapping_node(config) is not None:
        extra = yamlpos.mapping_get(config, "extraArgs")
        if extra is not None and id(extra) not in consumed:
            found.extend(_fragment(reader, extra, image))
    own_image = _image_of(reader, node)
    if own_image is not None and all(
        yamlpos.mapping_get(node, key) is None for key in ("containers", "engine", "command")
    ):
        for name in _ARG_LISTS:
            listed = yamlpos.mapping_get(node, name)
            if listed is not None and id(listed) not in consumed:
                found.extend(_fragment(reader, listed, own_image))
    for key, value in yamlpos.mapping_items(node):
        if key.value not in ("vllmConfig", "containers", "initContainers", *_ARG_LISTS):
            found.extend(_values(reader, value, image, depth + 1, consumed, seen))
    return found


def _fragment(reader: _Reader, node: Node, image: Located[str] | None) -> list[Invocation]:
    """Arguments the chart appends after ``vllm serve MODEL``."""
    words = reader.words(node)
    if not words:
        return []
    facts = Deployment(image=image)
    if words[0].text in ("vllm", "python", "python3", "sh", "bash"):
        found = recognise_all(words, path=reader.path, kind=KIND,
                              image=None if image is None else image.value)
        return [deployment.enclosed(invocation, KIND, facts) for invocation in found]
    anchor = reader.list_span(node)
    model = Token("MODEL", (anchor.start,) * 5 + (anchor.start,), literal=False)
    return [
        Invocation(
            reader.path,
            (KIND,),
            "cli",
            anchor,
            entry="serve",
            args=(model, *words),
            deployment=facts,
            target=release_from_image(image.value) if image else None,
        )
    ]



def unread_values_image(path: str, text: str) -> Located[str] | None:
    """The first vLLM image of a values file (no template actions) that also holds settings
    shaped as vLLM's arguments, for VL004 when vlint read no launch in the file: the chart's
    templates turn those settings into the server's command, which this file alone does not
    show.

    A vLLM image is an ``image:`` value (a reference, or ``{registry, repository (or name),
    tag, digest}``) or any other scalar written as an image reference (``version:
    vllm/vllm-openai:v0.7.0``) that is a vLLM server image (``knowledge.images
    .is_server_image``, with a repository path) or one of the curated vLLM image repositories
    (``rules/vlint_rules/curated/images.toml``).  Settings shaped as arguments: an ``args:`` or
    ``extraArgs:`` key, or a key of more than one word that spells an option of ``vllm serve``
    in some release (``maxModelLen``, ``gpu_memory_utilization``: ``--max-model-len``); a
    one-word key (``port``, ``model``) names a Service's port or a label as often.  None when
    the file is not YAML."""
    try:
        documents = yamlpos.parse_documents(text)
    except Unparsable:
        return None
    reader = kubernetes._Reader(path, yamlpos.SourceIndex(text), KIND, {})
    survey = _Survey(reader)
    for document in documents:
        survey.visit(document, 0)
    return survey.images[0] if survey.images and survey.argument_like else None


class _Survey:
    """The vLLM images and argument-shaped keys of a values document, each node visited once
    (an alias is its anchored node again), at most ``_MAX_DEPTH`` deep."""

    def __init__(self, reader: _Reader) -> None:
        self.reader = reader
        self.images: list[Located[str]] = []
        self.argument_like = False
        self.seen: set[int] = set()

    def visit(self, node: Node, depth: int) -> None:
        if depth > _MAX_DEPTH or id(node) in self.seen:
            return
        self.seen.add(id(node))
        if yamlpos.mapping_node(node) is None:
            for item in yamlpos.sequence_items(node):
                self.visit(item, depth + 1)
            return
        for key, value in yamlpos.mapping_items(node):
            name = str(key.value)
            if name in _ARG_LISTS or _spells_option(name):
                self.argument_like = True
            if name == "image":
                found = chart_values.image(self.reader, value)
                if found is not None and _vllm_image(found.value):
                    self.images.append(found)
                    continue
            elif yamlpos.is_scalar(value):
                token = self.reader.token(value)
                if token is not None and _vllm_image(token.text) and not any(
                        c.isspace() for c in token.text):
                    self.images.append(deployment.image(token))
                continue
            self.visit(value, depth + 1)


def _vllm_image(reference: str) -> bool:
    """Whether ``reference`` is a vLLM image: a server image with a repository path
    (``vllm/vllm-openai``; not the bare word ``vllm``), or a curated vLLM repository."""
    if not reference or "/" not in reference:
        return False
    return is_server_image(reference) or repository_entry(
        parse_reference(reference).repository) is not None


_WORD_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|_")


def _spells_option(key: str) -> bool:
    """Whether a values key of more than one word spells an option of ``vllm serve``."""
    kebab = _WORD_BREAK.sub("-", key).lower()
    return "-" in kebab and f"--{kebab}" in _serve_options()


@functools.cache
def _serve_options() -> frozenset[str]:
    """Every option string of ``vllm serve`` in any known release (the catalog's lifetimes)."""
    return frozenset(catalog.option_lifetimes("serve"))
