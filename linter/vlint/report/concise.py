"""One line per finding: ``path:line:col: CODE message``."""

from __future__ import annotations

from vlint.lint import Report
from vlint.report.escape import inert, plain_line


def render(report: Report) -> str:
    lines = [
        f"{inert(f.path)}:{f.span.start.line}:{f.span.start.column}: {f.code} "
        f"{inert(f.message)}"
        + (f" [{f.confirmation.state}]" if f.confirmation is not None else "")
        for f in report.findings
    ]
    return "".join(plain_line(line) + "\n" for line in lines)
