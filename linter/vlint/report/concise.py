"""One line per finding: ``path:line:col: CODE message``."""

from __future__ import annotations

from vlint.lint import Report


def render(report: Report) -> str:
    lines = [
        f"{f.path}:{f.span.start.line}:{f.span.start.column}: {f.code} {f.message}"
        for f in report.findings
    ]
    return "".join(line + "\n" for line in lines)
