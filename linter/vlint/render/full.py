"""Each finding with a code frame under it, in the manner of ruff and rustc."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from vlint.engine.report import Report, kinds_by_count
from vlint.model import Confirmation, Finding, Span
from vlint.model.redaction import masked_line
from vlint.render.escape import inert, plain_line
from vlint.render.style import Style, fixable_summary, head, line, plural


# A frame shows at most this many characters of a line, around the finding (a minified or
# generated file can hold one line of megabytes); elided text is marked with '…'.
FRAME_WIDTH = 160
FRAME_LEAD = 40


def _frame(finding: Finding, lines: list[str] | None,
           redact: Mapping[int, Sequence[Span]] | None = None) -> list[str]:
    """The primary span's line marked ``^^^ name``, then each related span's line marked
    ``--- message``; ``redact``: the secrets to mask, by line number."""
    if lines is None or not 1 <= finding.span.start.line <= len(lines):
        return []
    masks = redact or {}
    labelled = [(finding.span, "^", finding.name),
                *((related.span, "-", related.message) for related in finding.related)]
    width = max(len(str(span.start.line)) for span, _, _ in labelled)
    rows: list[str] = []
    shown: set[int] = set()
    # By line (the primary first on its own); a line is shown once, with a mark per span on it.
    for span, marker, label in sorted(labelled, key=lambda item: item[0].start.line):
        marked = _marked(span, marker, label, lines, masks.get(span.start.line, ()), width)
        rows.extend(marked if span.start.line not in shown else marked[1:])
        shown.add(span.start.line)
    gutter = " " * width
    return [f"{gutter} |", *rows, f"{gutter} |"]


def _marked(span: Span, marker: str, label: str, lines: list[str], redact: Iterable[Span],
            width: int = 0) -> list[str]:
    """``span``'s line (at most FRAME_WIDTH characters of it) and the line marking it."""
    start, end = span.start, span.end
    if not 1 <= start.line <= len(lines):
        return []
    raw = masked_line(lines[start.line - 1].removesuffix("\r").expandtabs(1), start.line, redact)
    stop = end.column if end.line == start.line else len(raw) + 1
    first = 0 if len(raw) <= FRAME_WIDTH else max(0, start.column - 1 - FRAME_LEAD)
    last = min(len(raw), first + FRAME_WIDTH)
    lead = "…" if first else ""
    # Measured after escaping: a control character shown as '\x1b' is four columns wide.
    before = lead + inert(raw[first : start.column - 1])
    covered = inert(raw[start.column - 1 : min(stop - 1, last)])
    shown = lead + inert(raw[first:last]) + ("…" if last < len(raw) else "")
    number = str(start.line).rjust(width)
    gutter = " " * len(number)
    marks = marker * max(1, len(covered))
    return [f"{number} | {shown}", f"{gutter} | {' ' * len(before)}{marks} {inert(label)}"]


def confirmation_line(confirmation: Confirmation) -> str:
    """``confirmed by vLLM 0.32.0 (parse): <vLLM's message>``."""
    by = f" by vLLM {confirmation.vllm_release}" if confirmation.vllm_release else ""
    return f"{confirmation.state}{by} ({confirmation.level}): {confirmation.message}"


def _finding_lines(
    finding: Finding, lines: list[str] | None, redact: Mapping[int, Sequence[Span]] | None,
    style: Style,
) -> list[str]:
    out = [
        line(head(finding, style), style),
        *(plain_line(row) for row in _frame(finding, lines, redact)),
        line([("  = help: ", "cyan"), finding.help], style),
    ]
    if finding.vllm_versions:
        out.append(plain_line(f"  = vLLM: {', '.join(finding.vllm_versions)}"))
    if finding.fix is not None:
        kind = "safe" if finding.fix.safe else "unsafe"
        out.append(plain_line(f"  = fix ({kind}): {finding.fix.description}"))
    if finding.confirmation is not None:
        out.append(plain_line(f"  = {confirmation_line(finding.confirmation)}"))
    return out


def summary(report: Report) -> list[str]:
    """The closing lines: what was found where, and what ``--fix`` would fix."""
    targets = ", ".join(str(v) for v in sorted(report.targets))
    scope = (
        f"{plural(report.files, 'file')}, {plural(report.invocations, 'vLLM invocation')}; "
        f"checked against vLLM {targets or 'none'}"
    )
    by_kind = [by_kind_line(report)] if report.invocations_by_kind else []
    if not report.findings:
        return [f"All checks passed: {scope}.", *by_kind]
    counts = [
        plural(report.count(severity), severity)
        for severity in ("error", "warning", "info") if report.count(severity)
    ]
    found = f"Found {plural(len(report.findings), 'problem')} ({', '.join(counts)}) in {scope}."
    fixable = fixable_summary(report.findings)
    return [found, *by_kind] if fixable is None else [found, *by_kind, fixable]


def by_kind_line(report: Report) -> str:
    """``vLLM invocations by file kind: 5 compose, 4 shell, 3 markdown.``"""
    by_kind = kinds_by_count(report.invocations_by_kind)
    counts = ", ".join(f"{count} {kind}" for kind, count in by_kind)
    return f"vLLM invocations by file kind: {counts}."


def render(report: Report, style: Style = Style()) -> str:
    out: list[str] = []
    # A line may hold several findings' secrets: every frame of a file masks all of them.
    # Each file is split once, and each line keeps only the secrets on it (a file can have
    # thousands of findings).
    redact: dict[str, dict[int, list[Span]]] = {}
    for finding in report.findings:
        for span in finding.redact:
            for number in range(span.start.line, span.end.line + 1):
                redact.setdefault(finding.path, {}).setdefault(number, []).append(span)
    lines: dict[str, list[str] | None] = {}
    for finding in report.findings:
        if finding.path not in lines:
            source = report.sources.get(finding.path)
            lines[finding.path] = None if source is None else source.split("\n")
        out.extend(_finding_lines(finding, lines[finding.path], redact.get(finding.path), style))
        out.append("")
    if not style.quiet:
        out.extend(plain_line(text) for text in summary(report))
        out.extend(plain_line(f"note: {note}") for note in report.notes)
    elif out:
        out.pop()
    return "".join(text + "\n" for text in out)
