"""``--statistics``: how many findings each code has, most frequent first (as ruff prints it).

Text: ``count  CODE  [*] name`` (``[*]`` where some of them have a safe fix); JSON: a list of
``{"code", "name", "count", "fixable"}`` (``fixable``: how many have a safe fix).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from vlint.engine.report import Report
from vlint.render.escape import json_dumps
from vlint.render.style import FIXABLE, Style, line, safely_fixable


@dataclass(frozen=True)
class Row:
    code: str
    name: str
    count: int
    fixable: int


def rows(report: Report) -> list[Row]:
    counts: dict[str, list[int]] = {}
    names: dict[str, str] = {}
    for finding in report.findings:
        tally = counts.setdefault(finding.code, [0, 0])
        tally[0] += 1
        tally[1] += safely_fixable(finding)
        names.setdefault(finding.code, finding.name)
    ordered = sorted(counts.items(), key=lambda item: (-item[1][0], item[0]))
    return [Row(code, names[code], count, fixable) for code, (count, fixable) in ordered]


def render_text(report: Report, style: Style = Style()) -> str:
    table = rows(report)
    if not table:
        return ""
    count_width = max(len(str(row.count)) for row in table)
    code_width = max(len(row.code) for row in table)
    return "".join(_line(row, count_width, code_width, style) + "\n" for row in table)


def _line(row: Row, count_width: int, code_width: int, style: Style) -> str:
    marker = f"{FIXABLE} " if row.fixable else " " * (len(FIXABLE) + 1)
    return line(
        [f"{row.count:>{count_width}}  ", (f"{row.code:<{code_width}}", "bold"), "  ",
         (marker, "cyan"), row.name],
        style,
    ).rstrip()


def render_json(report: Report) -> str:
    document: Sequence[dict[str, object]] = [
        {"code": r.code, "name": r.name, "count": r.count, "fixable": r.fixable}
        for r in rows(report)
    ]
    return json_dumps(document) + "\n"
