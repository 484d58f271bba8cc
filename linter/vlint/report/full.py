"""Each finding with a code frame under it, in the manner of ruff and rustc."""

from __future__ import annotations

from vlint.lint import Report
from vlint.model import Confirmation, Finding, Span
from vlint.redaction import masked_line
from vlint.report.escape import inert, plain_line


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


def _finding_lines(finding: Finding, source: str | None, redact: tuple[Span, ...]) -> list[str]:
    start = finding.span.start
    out = [
        f"{inert(finding.path)}:{start.line}:{start.column}: {finding.code} "
        f"[{finding.severity}] {inert(finding.message)}",
        *_frame(finding, source, redact),
        f"  = help: {inert(finding.help)}",
    ]
    if finding.vllm_versions:
        out.append(f"  = vLLM: {', '.join(finding.vllm_versions)}")
    if finding.fix is not None:
        kind = "safe" if finding.fix.safe else "unsafe"
        out.append(f"  = fix ({kind}): {inert(finding.fix.description)}")
    if finding.confirmation is not None:
        out.append(f"  = {inert(confirmation_line(finding.confirmation))}")
    return out


def render(report: Report) -> str:
    out: list[str] = []
    # A line may hold several findings' secrets: every frame of a file masks all of them.
    redact: dict[str, tuple[Span, ...]] = {}
    for finding in report.findings:
        redact[finding.path] = redact.get(finding.path, ()) + finding.redact
    for finding in report.findings:
        out.extend(_finding_lines(finding, report.sources.get(finding.path), redact[finding.path]))
        out.append("")
    errors, warnings, infos = (report.count(s) for s in ("error", "warning", "info"))
    targets = ", ".join(str(v) for v in sorted(report.targets))
    scope = (
        f"{report.files} file(s), {report.invocations} vLLM invocation(s); checked against "
        f"vLLM {targets or 'none'}"
    )
    if report.findings:
        out.append(
            f"Found {len(report.findings)} problem(s) ({errors} error(s), {warnings} "
            f"warning(s), {infos} info) in {scope}."
        )
    else:
        out.append(f"All checks passed: {scope}.")
    out.extend(f"note: {note}" for note in report.notes)
    return "".join(plain_line(line) + "\n" for line in out)
