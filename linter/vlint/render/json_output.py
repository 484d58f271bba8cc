"""The versioned JSON shape of DESIGN.md; ``version`` changes only with an incompatible change."""

from __future__ import annotations

from typing import Any

from vlint import __version__
from vlint.engine.report import Report, kinds_by_count
from vlint.model import Confirmation, Finding, Fix, Span
from vlint.render.escape import json_dumps

FORMAT_VERSION = 1


def _fix(fix: Fix | None) -> dict[str, Any] | None:
    if fix is None:
        return None
    return {
        "description": fix.description,
        "applicability": "safe" if fix.safe else "unsafe",
        "edits": [
            {
                "line": e.span.start.line,
                "column": e.span.start.column,
                "end_line": e.span.end.line,
                "end_column": e.span.end.column,
                "content": e.replacement,
            }
            for e in fix.edits
        ],
    }


def finding_dict(finding: Finding) -> dict[str, Any]:
    return {
        "code": finding.code,
        "name": finding.name,
        "severity": finding.severity,
        "message": finding.message,
        "help": finding.help,
        "path": finding.path,
        "line": finding.span.start.line,
        "column": finding.span.start.column,
        "end_line": finding.span.end.line,
        "end_column": finding.span.end.column,
        "vllm_versions": list(finding.vllm_versions),
        "fix": _fix(finding.fix),
        "confirmation": confirmation_dict(finding.confirmation),
        "related": [{**_region(r.span), "message": r.message} for r in finding.related],
        "invocation": finding.invocation,
    }


def _region(span: Span) -> dict[str, int]:
    return {"line": span.start.line, "column": span.start.column,
            "end_line": span.end.line, "end_column": span.end.column}


def confirmation_dict(confirmation: Confirmation | None) -> dict[str, Any] | None:
    """``vlint confirm``'s verdict on a finding (None when no vLLM was asked)."""
    if confirmation is None:
        return None
    return {
        "state": confirmation.state,
        "level": confirmation.level,
        "vllm_release": confirmation.vllm_release,
        "message": confirmation.message,
    }


def render(report: Report) -> str:
    document = {
        "version": FORMAT_VERSION,
        "vlint": __version__,
        "target": [str(v) for v in sorted(report.targets)],
        "findings": [finding_dict(f) for f in report.findings],
        "summary": {
            "files": report.files,
            "invocations": report.invocations,
            "errors": report.count("error"),
            "warnings": report.count("warning"),
            "infos": report.count("info"),
            "invocations_by_kind": dict(kinds_by_count(report.invocations_by_kind)),
        },
    }
    return json_dumps(document) + "\n"
