"""One line per finding: ``path:line:col: CODE message``."""

from __future__ import annotations

from vlint.lint import Report


def render(report: Report) -> str:
    lines = [
        f"{f.path}:{f.span.start.line}:{f.span.start.column}: {f.code} {f.message}"
        + (f" [{f.confirmation.state}]" if f.confirmation is not None else "")
        for f in report.findings
    ]
    return "".join(line + "\n" for line in lines)
