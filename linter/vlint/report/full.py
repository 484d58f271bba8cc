"""Each finding with a code frame under it, in the manner of ruff and rustc."""

from __future__ import annotations

from vlint.lint import Report
from vlint.model import Confirmation, Finding, Span
from vlint.redaction import masked_line
from vlint.report.escape import inert, plain_line
from vlint.report.style import Style, fixable_summary, head, line, plural


def _frame(finding: Finding, text: str | None, redact: tuple[Span, ...] = ()) -> list[str]:
    if text is None:
        return []
    lines = text.split("\n")
    start, end = finding.span.start, finding.span.end
    if not 1 <= start.line <= len(lines):
        return []
    raw = masked_line(lines[start.line - 1].removesuffix("\r").expandtabs(1), start.line, redact)
    stop = end.column if end.line == start.line else len(raw) + 1
    # Measured after escaping: a control character shown as '\x1b' is four columns wide.
    before = inert(raw[: start.column - 1])
    marked = inert(raw[start.column - 1 : stop - 1])
    width = len(str(start.line))
    gutter = " " * width
    carets = "^" * max(1, len(marked))
    return [
        f"{gutter} |",
        f"{start.line} | {inert(raw)}",
        f"{gutter} | {' ' * len(before)}{carets} {finding.name}",
        f"{gutter} |",
    ]


def confirmation_line(confirmation: Confirmation) -> str:
    """``confirmed by vLLM 0.32.0 (parse): <vLLM's message>``."""
    by = f" by vLLM {confirmation.vllm_release}" if confirmation.vllm_release else ""
    return f"{confirmation.state}{by} ({confirmation.level}): {confirmation.message}"


def _finding_lines(
    finding: Finding, source: str | None, redact: tuple[Span, ...], style: Style
) -> list[str]:
    out = [
        line(head(finding, style), style),
        *(plain_line(row) for row in _frame(finding, source, redact)),
        line([("  = help: ", "cyan"), finding.help], style),
    ]
    if finding.vllm_versions:
        out.append(plain_line(f"  = vLLM: {', '.join(finding.vllm_versions)}"))
    if finding.fix is not None:
        kind = "safe" if finding.fix.safe else "unsafe"
        out.append(plain_line(f"  = fix ({kind}): {inert(finding.fix.description)}"))
    if finding.confirmation is not None:
        out.append(plain_line(f"  = {inert(confirmation_line(finding.confirmation))}"))
    return out


def summary(report: Report) -> list[str]:
    """The closing lines: what was found where, and what ``--fix`` would fix."""
    targets = ", ".join(str(v) for v in sorted(report.targets))
    scope = (
        f"{plural(report.files, 'file')}, {plural(report.invocations, 'vLLM invocation')}; "
        f"checked against vLLM {targets or 'none'}"
    )
    if not report.findings:
        return [f"All checks passed: {scope}."]
    counts = [
        plural(report.count(severity), severity)
        for severity in ("error", "warning", "info") if report.count(severity)
    ]
    found = f"Found {plural(len(report.findings), 'problem')} ({', '.join(counts)}) in {scope}."
    fixable = fixable_summary(report.findings)
    return [found] if fixable is None else [found, fixable]


def render(report: Report, style: Style = Style()) -> str:
    out: list[str] = []
    # A line may hold several findings' secrets: every frame of a file masks all of them.
    redact: dict[str, tuple[Span, ...]] = {}
    for finding in report.findings:
        redact[finding.path] = redact.get(finding.path, ()) + finding.redact
    for finding in report.findings:
        source = report.sources.get(finding.path)
        out.extend(_finding_lines(finding, source, redact[finding.path], style))
        out.append("")
    if not style.quiet:
        out.extend(plain_line(text) for text in summary(report))
        out.extend(plain_line(f"note: {note}") for note in report.notes)
    elif out:
        out.pop()
    return "".join(text + "\n" for text in out)
