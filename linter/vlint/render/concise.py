"""One line per finding: ``path:line:col: CODE [*] [severity] message`` (``[*]``: a safe fix)."""

from __future__ import annotations

from vlint.engine.report import Report
from vlint.render.style import Style, head, line


def render(report: Report, style: Style = Style()) -> str:
    lines = [
        line(
            [*head(f, style), f" [{f.confirmation.state}]" if f.confirmation is not None else ""],
            style,
        )
        for f in report.findings
    ]
    return "".join(text + "\n" for text in lines)
