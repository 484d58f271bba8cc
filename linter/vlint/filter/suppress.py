"""Inline suppressions, and the unused ones reported as VL001 (unused-suppression).

Forms (codes are codes or prefixes, comma-separated; a bare form means every code):

- ``# vlint: ignore[VL202,VL105] reason`` or ``<!-- vlint: ignore[VL202] -->``: the line it is
  on, and the next line too when the comment is alone on its line; in Markdown, an HTML comment
  alone on the line right above a fenced code block covers the whole block;
- ``# vlint: ignore-file[VL202]`` or ``<!-- vlint: ignore-file[...] -->``, anywhere: the file;
- ``vlint.dev/ignore: "VL202,VL105"`` in a YAML document's ``metadata.annotations``: the lines
  of that document (a Kubernetes resource).

Comments are found by a plain scan of the lines, not by each language's parser: the forms are
the same in every language with ``#`` comments, at the price that ``# vlint: ignore`` inside a
shell or YAML string also counts.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Container, Iterator, Mapping
from dataclasses import dataclass, replace

from vlint.checks.base import rule_finding
from vlint.checks.unused_suppression import RULE
from vlint.config.codes import Known, UnknownCode, rule_code
from vlint.model import Edit, Finding, Fix, Pos, Span, line_locator



ANNOTATION = "vlint.dev/ignore"
_DIRECTIVE = re.compile(
    r"(?:#|<!--)[ \t]*vlint:[ \t]*(?P<kind>ignore-file|ignore)(?![\w-])"
    r"(?:\[(?P<codes>[^\]\n]*)\])?"
)
_YAML_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class Entry:
    code: str  # "" for every code
    span: Span
    # What removes this code alone from its directive (None where it cannot be removed alone).
    removal: Span | None = None


@dataclass(frozen=True)
class Directive:
    entries: tuple[Entry, ...]
    first_line: int
    last_line: int
    # What removes the whole comment: its line when it is alone on it, else the comment and
    # the blanks before it (None for an annotation, whose YAML a removal could break).
    removal: Span | None = None

    def matching(self, finding: Finding, unknown: Container[int] = ()) -> Iterator[int]:
        """The entries that suppress ``finding`` (an ``unknown`` one suppresses nothing)."""
        if self.first_line <= finding.span.start.line <= self.last_line:
            for index, entry in enumerate(self.entries):
                if index not in unknown and finding.code.startswith(entry.code):
                    yield index


def mentions(text: str) -> bool:
    """Whether ``text`` may hold a suppression (its text must then reach the filter stage)."""
    return "vlint" in text


_MARKDOWN_SUFFIXES = (".md", ".markdown")


def directives(path: str, text: str) -> list[Directive]:
    found = _comment_directives(text)
    if path.lower().endswith(_MARKDOWN_SUFFIXES) and "<!--" in text and found:
        found = _covering_fences(text, found)
    if path.endswith(_YAML_SUFFIXES) and ANNOTATION in text:
        found.extend(annotation_directives(text))
    return found


def _comment_directives(text: str) -> list[Directive]:
    if "vlint:" not in text:
        return []
    locate = line_locator(text)
    found = []
    for match in _DIRECTIVE.finditer(text):
        line = locate(match.start()).line
        entries = _comment_entries(match, locate)
        if not entries:
            continue
        line_start = text.rfind("\n", 0, match.start()) + 1
        alone = not text[line_start : match.start()].strip()
        removal = _comment_removal(text, match, line_start, locate)
        if match["kind"] == "ignore-file":
            found.append(Directive(entries, 1, sys.maxsize, removal))
            continue
        found.append(Directive(entries, line, line + 1 if alone else line, removal))
    return found


def _comment_removal(
    text: str, match: re.Match[str], line_start: int, locate: Callable[[int], Pos]
) -> Span | None:
    """The span that removes the comment ``match`` starts: a ``#`` comment runs to the end of
    its line, an HTML one to its ``-->`` (None when it does not close on that line)."""
    line_end = text.find("\n", match.start())
    line_end = len(text) if line_end < 0 else line_end
    if match[0].startswith("<!--"):
        close = text.find("-->", match.end(), line_end)
        if close < 0:
            return None
        end = close + 3
    else:
        end = line_end
    start = match.start()
    if not text[line_start:start].strip() and not text[end:line_end].strip():
        # Alone on its line: the line goes, with its line break.
        return Span(locate(line_start), locate(min(line_end + 1, len(text))))
    while start > line_start and text[start - 1] in " \t":
        start -= 1
    return Span(locate(start), locate(end))


def _covering_fences(text: str, found: list[Directive]) -> list[Directive]:
    """A directive alone on the line right above a fenced code block covers the block to its
    closing fence (the fences as CommonMark finds them: in lists and quotes too)."""
    from markdown_it import MarkdownIt  # lazy: only Markdown with a comment above a fence

    # 0-based [opening line, line after the block) -> 1-based opening line: last line.
    fences = {
        token.map[0] + 1: token.map[1]
        for token in MarkdownIt("commonmark").parse(text)
        if token.type == "fence" and token.map is not None
    }
    covered = []
    for directive in found:
        last = fences.get(directive.last_line) if directive.last_line > directive.first_line else None
        covered.append(directive if last is None else replace(directive, last_line=last))
    return covered


def _comment_entries(match: re.Match[str], locate: Callable[[int], Pos]) -> tuple[Entry, ...]:
    if match["codes"] is None:
        start, end = match.span("kind")
        return (Entry("", Span(locate(start), locate(end))),)
    return _codes_in(match["codes"], match.start("codes"), locate)


def _codes_in(written: str, offset: int, locate: Callable[[int], Pos]) -> tuple[Entry, ...]:
    """Every word of ``written`` as an entry: a rule name as its code, anything else as
    written, upper-cased (``apply`` reports the codes that name nothing)."""
    entries = []
    words = list(re.finditer(r"[^,\s]+", written))
    for number, code in enumerate(words):
        start, end = offset + code.start(), offset + code.end()
        # With its separator: the one after it, or for the last code the one before it.
        if number + 1 < len(words):
            cut = (start, offset + words[number + 1].start())
        elif number > 0:
            cut = (offset + words[number - 1].end(), end)
        else:
            cut = None
        removal = Span(locate(cut[0]), locate(cut[1])) if cut else None
        entries.append(Entry(rule_code(code[0]), Span(locate(start), locate(end)), removal))
    return tuple(entries)


def annotation_directives(text: str) -> list[Directive]:
    """One directive per YAML document whose ``metadata.annotations`` has ``vlint.dev/ignore``,
    covering the lines of that document."""
    from vlint.syntax import yamlpos  # lazy: only a manifest with a vlint annotation needs YAML

    documents = yamlpos.compose_documents(text) or []
    source = yamlpos.SourceIndex(text)
    found = []
    for document in documents:
        metadata = yamlpos.mapping_get(document, "metadata")
        annotations = yamlpos.mapping_get(metadata, "annotations") if metadata is not None else None
        value = yamlpos.mapping_get(annotations, ANNOTATION) if annotations is not None else None
        if value is None or not yamlpos.is_scalar(value):
            continue
        entries = _annotation_entries(yamlpos.scalar_positions(source, value),
                                      yamlpos.scalar_value(value))
        if entries:
            first, last = document.start_mark.line + 1, document.end_mark.line + 1
            found.append(Directive(entries, first, last))
    return found


def _annotation_entries(positions: tuple[Pos, ...], written: str) -> tuple[Entry, ...]:
    def locate(offset: int) -> Pos:
        return positions[offset]

    return _codes_in(written, 0, locate)


Selected = Callable[[str, str], bool]


def apply(
    findings: list[Finding], sources: Mapping[str, str], selected: Selected,
    known: Known | None = None,
) -> list[Finding]:
    """The findings no suppression covers, plus a VL001 for every suppression entry that
    covered nothing, unless its code is not selected for that file anyway, and for every code
    that ``known`` (vlint's codes and names, and the run's policies) does not know: such a code
    suppresses nothing."""
    known = known or Known(())
    by_path = {path: directives(path, text) for path, text in sources.items()}
    unknown: dict[tuple[str, int], dict[int, UnknownCode]] = {}
    for path, found in by_path.items():
        for number, directive in enumerate(found):
            unknown[path, number] = _unknown(directive, known)
    used: set[tuple[str, int, int]] = set()
    kept = []
    for finding in findings:
        hits = [
            (finding.path, number, index)
            for number, directive in enumerate(by_path.get(finding.path, ()))
            for index in directive.matching(finding, unknown[finding.path, number])
        ]
        used.update(hits)
        if not hits:
            kept.append(finding)
    for path, found in by_path.items():
        for number, directive in enumerate(found):
            wrong = unknown[path, number]
            unused = [
                (entry, wrong.get(index)) for index, entry in enumerate(directive.entries)
                if (not entry.code or index in wrong or selected(path, entry.code))
                and (path, number, index) not in used
            ]
            whole = len(unused) == len(directive.entries)
            for entry, problem in unused:
                removal = directive.removal if whole else entry.removal
                kept.append(_unused(path, entry, removal, problem))
    return kept


def _unknown(directive: Directive, known: Known) -> dict[int, UnknownCode]:
    found: dict[int, UnknownCode] = {}
    for index, entry in enumerate(directive.entries):
        try:
            if entry.code:
                known.code(entry.code)
        except UnknownCode as unknown:
            found[index] = unknown
    return found


def _unused(
    path: str, entry: Entry, removal: Span | None, unknown: UnknownCode | None = None
) -> Finding:
    what = f"'{entry.code}'" if entry.code else "every code"
    message = f"unused suppression for {what}"
    help_text = "remove it: no finding it covers is reported here"
    if unknown is not None:
        meant = f"did you mean '{unknown.meant}'? " if unknown.meant else ""
        message = f"unknown code '{unknown.shown}' in a suppression"
        help_text = f"{meant}no rule or policy has this code, so it suppresses nothing"
    return rule_finding(
        RULE,
        path,
        entry.span,
        message,
        help_text,
        fix=Fix("remove the unused suppression", (Edit(removal, ""),), safe=True)
        if removal is not None else None,
    )
