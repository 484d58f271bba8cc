"""GitHub Actions workflow commands (``::error file=...::message``) that annotate pull requests."""

from __future__ import annotations

from collections.abc import Mapping

from vlint.engine.report import Report
from vlint.model import Finding
from vlint.render.escape import github_data, github_property
from vlint.render.full import confirmation_line

COMMANDS: Mapping[str, str] = {"error": "error", "warning": "warning", "info": "notice"}


def annotation(finding: Finding) -> str:
    start, end = finding.span.start, finding.span.end
    properties = {
        "file": finding.path.replace("\\", "/"),
        "line": str(start.line),
        "col": str(start.column),
        "endLine": str(end.line),
        "endColumn": str(end.column),
        "title": f"{finding.code} {finding.name}",
    }
    written = ",".join(f"{key}={github_property(value)}" for key, value in properties.items())
    text = f"{finding.message}\nhelp: {finding.help}"
    if finding.confirmation is not None:
        text += f"\n{confirmation_line(finding.confirmation)}"
    message = github_data(text)
    return f"::{COMMANDS[finding.severity]} {written}::{message}"


def render(report: Report) -> str:
    return "".join(annotation(finding) + "\n" for finding in report.findings)
