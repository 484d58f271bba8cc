"""How text findings look on a terminal: colour, counts in words, fixable markers.

Colour is decided once per run (:func:`use_colour`): ``--color always`` colours, ``never``
does not; ``auto`` (the default) colours only when standard output is a terminal, ``NO_COLOR``
is unset or empty (https://no-color.org) and ``TERM`` is not ``dumb``.  Colour codes are added
around text already escaped for the terminal, and a line whose plain form would hold ``##[``
across two pieces is printed plain, so a file can never bring its own escape sequence.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TextIO

from vlint.model import Finding
from vlint.render.escape import inert, plain_line

COLOURS: Mapping[str, str] = {
    "bold": "1", "dim": "2", "red": "31", "yellow": "33", "blue": "34", "cyan": "36",
    "green": "32",
}
SEVERITY_COLOURS: Mapping[str, str] = {"error": "red", "warning": "yellow", "info": "blue"}
FIXABLE = "[*]"
# A piece of a line: text (escaped here) and the colour it is shown in, if any.
Piece = tuple[str, str | None]


@dataclass(frozen=True)
class Style:
    """The presentation options of the text formats; the default is plain and complete."""

    colour: bool = False
    # 0: everything; 1 (-q): findings only, no summary or notes; 2 (-qq): nothing.
    quiet: int = 0


def use_colour(choice: str, stream: TextIO | None = None,
               environ: Mapping[str, str] = os.environ) -> bool:
    """Whether ``--color CHOICE`` colours output written to ``stream`` (stdout by default)."""
    if choice != "auto":
        return choice == "always"
    if environ.get("NO_COLOR") or environ.get("TERM") == "dumb":
        return False
    stream = sys.stdout if stream is None else stream
    return bool(getattr(stream, "isatty", lambda: False)())


def line(pieces: Sequence[Piece | str], style: Style) -> str:
    """One output line from its pieces: each escaped (:func:`inert`), then coloured."""
    parts = [(p, None) if isinstance(p, str) else p for p in pieces]
    plain = "".join(inert(text) for text, _ in parts)
    if not style.colour or "##[" in plain:
        return plain_line(plain)
    lead = "\\" if plain.lstrip().startswith("::") else ""
    return lead + "".join(paint(inert(text), colour) for text, colour in parts)


def paint(text: str, colour: str | None) -> str:
    """``text`` (already escaped) in ``colour``; a name of :data:`COLOURS`, ``+`` joined."""
    if colour is None or not text:
        return text
    codes = ";".join(COLOURS[name] for name in colour.split("+"))
    return f"\x1b[{codes}m{text}\x1b[0m"


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    """``1 problem``, ``2 problems``; ``info`` is the same in both."""
    if count == 1 or noun == "info":
        return f"{count} {noun}"
    return f"{count} {plural_form or noun + 's'}"


def safely_fixable(finding: Finding) -> bool:
    return finding.fix is not None and finding.fix.safe


def unsafely_fixable(finding: Finding) -> bool:
    """A finding whose only fix is unsafe: fixed by ``--fix --unsafe-fixes`` alone."""
    return finding.fix is not None and not finding.fix.safe


def head(finding: Finding, style: Style) -> list[Piece | str]:
    """``path:line:col: CODE [*] [severity] message``: the first line of a finding."""
    start = finding.span.start
    marker: list[Piece | str] = [(FIXABLE, "cyan"), " "] if safely_fixable(finding) else []
    return [
        (finding.path, "bold"), f":{start.line}:{start.column}: ",
        (finding.code, f"bold+{SEVERITY_COLOURS[finding.severity]}"), " ", *marker,
        (f"[{finding.severity}]", SEVERITY_COLOURS[finding.severity]), " ", finding.message,
    ]


def fixable_summary(findings: Sequence[Finding]) -> str | None:
    """``[*] 2 fixable with `--fix` (1 more with `--unsafe-fixes`).``, or None."""
    safe = sum(1 for f in findings if safely_fixable(f))
    unsafe = sum(1 for f in findings if unsafely_fixable(f))
    more = f" ({unsafe} more with `--unsafe-fixes`)" if unsafe else ""
    if safe:
        return f"{FIXABLE} {safe} fixable with `--fix`{more}."
    if unsafe:
        return f"No safe fixes; {unsafe} fixable with `--fix --unsafe-fixes`."
    return None
