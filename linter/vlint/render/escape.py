"""Escaping at the edge: one function per output channel, applied by the renderers and the
command line's printing, never in the model.

Terminal (``full``, ``concise``, notes, ``vlint show``): every C0 and C1 control character,
DEL, the Unicode bidirectional controls and line separators become a visible escape (``\\x1b``,
``\\x9b``, ``\\n``, ``\\t``, ``\\u202e``), so no escape sequence (CSI, OSC 8 links, OSC 52
clipboard writes) reaches the terminal and a value stays on its line; a byte of a non-UTF-8
file name (held as a surrogate escape) is shown as ``\\xff``.  Tabs are escaped too: a tab in a
quoted value is shown, not expanded.  Every plain line is also kept from being a GitHub Actions
workflow command: one that would begin with ``::`` gets a leading backslash, and the legacy
``##[`` command form, which the runner finds anywhere in a line, is written ``##\\[``.

GitHub (``github``): the data and properties of workflow commands escaped as GitHub documents
(``%``, CR, LF; in properties also ``:`` and ``,``), after the terminal escaping of every other
control character.

JSON and SARIF: always valid UTF-8 — a surrogate-escaped byte of a file name becomes U+FFFD in
text (SARIF URIs percent-encode the name's original bytes instead, so they stay exact) — and
``##[`` is written ``##\\u005b``, which every JSON reader decodes back to ``##[``.
"""

from __future__ import annotations

import json
import re
from typing import Any

_BREAKS = "\n\r"
_OTHER_CONTROLS = (
    "\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
)
_SURROGATES = "\ud800-\udfff"
_TERMINAL = re.compile(f"[{_BREAKS}{_OTHER_CONTROLS}{_SURROGATES}]")
_GITHUB = re.compile(f"[{_OTHER_CONTROLS}{_SURROGATES}]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_LEGACY_COMMAND = "##["


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's escape of one undecodable byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def terminal(text: str) -> str:
    """``text`` with nothing a terminal interprets and no line break: one visible line."""
    return _TERMINAL.sub(_visible, text)


def inert(text: str) -> str:
    """:func:`terminal`, and no legacy ``##[`` workflow command: a field of a plain line."""
    return terminal(text).replace(_LEGACY_COMMAND, "##\\[")


def plain_line(text: str) -> str:
    """One line for stdout or stderr: terminal-escaped and never a workflow command."""
    line = inert(text)
    return "\\" + line if line.lstrip().startswith("::") else line


def plain_text(text: str) -> str:
    """:func:`plain_line` for each line of a text made of several."""
    return "\n".join(plain_line(line) for line in text.split("\n"))


def github_data(text: str) -> str:
    """The data (message) of a workflow command: line breaks kept, as ``%0D``/``%0A``."""
    shown = _GITHUB.sub(_visible, text).replace(_LEGACY_COMMAND, "##\\[")
    return shown.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(text: str) -> str:
    """A property value of a workflow command (``file=``, ``title=``)."""
    return github_data(text).replace(":", "%3A").replace(",", "%2C")


def json_text(text: str) -> str:
    """``text`` as valid Unicode: each lone surrogate (a non-UTF-8 byte) becomes U+FFFD."""
    return re.sub(f"[{_SURROGATES}]", "\ufffd", text)


def _json_safe(value: Any) -> Any:
    if isinstance(value, str):
        return json_text(value)
    if isinstance(value, dict):
        return {_json_safe(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def json_dumps(document: Any, **options: Any) -> str:
    """``json.dumps`` (indented) of ``document`` with every string made safe to print."""
    text = json.dumps(_json_safe(document), indent=2, **options)
    return text.replace(_LEGACY_COMMAND, "##\\u005b")
