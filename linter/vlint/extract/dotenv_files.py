"""``.env`` files beside a compose file: read confined, parsed as python-dotenv parses them,
values interpolated among themselves within size limits.

Moved out of ``extract.compose`` so that other extractors share the confined reading; the
interpolation stays compose's (``extract.compose.interpolate``), passed in as ``interpolate``
since compose imports this module.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from vlint.discover import Refused, confined_read, linted_roots

__all__ = [
    "MAX_DOTENV_SIZE", "MAX_DOTENV_TOTAL", "MAX_DOTENV_VALUE", "Dotenv", "Interpolate",
    "dotenv_beside", "simple_dotenv", "simple_dotenv_text",
]

# ``interpolate(text, variables)``: ``text`` with the references to ``variables`` expanded.
Interpolate = Callable[[str, Mapping[str, str]], str]

MAX_DOTENV_VALUE = 16_384  # characters
# All values together: a small file whose lines each name a long value would otherwise expand
# to gigabytes (and take minutes).
MAX_DOTENV_TOTAL = 262_144  # characters
MAX_DOTENV_SIZE = 2 * 2**20  # bytes, as vlint's default maximum file size
_REFERENCE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True)
class Dotenv:
    """A ``.env`` file's variables, and why some or all are unknown (a note's words), if so."""

    variables: Mapping[str, str]
    problem: str | None = None


def dotenv_beside(path: str, interpolate: Interpolate) -> tuple[str, Dotenv]:
    """The ``.env`` file beside the compose file ``path``, and what vlint read of it, its values
    interpolated among themselves with ``interpolate``.

    It is read only inside the compose file's repository (``discover.confined_read``): a
    symlink out of it, a FIFO or a ``/proc`` file gives no variables and a ``problem``.  Each
    file is read and interpolated once per content (a run with many compose files shares it).
    """
    env = os.path.join(os.path.dirname(path), ".env")
    try:
        status = os.stat(env)
        identity = (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)
    except OSError:
        identity = None
    if identity is None and not os.path.lexists(env):
        return env, Dotenv({})
    return env, _dotenv(os.path.abspath(env), identity, interpolate)


@lru_cache(maxsize=64)
def _dotenv(
    env: str, identity: tuple[int, int, int, int] | None, interpolate: Interpolate
) -> Dotenv:
    try:
        data = confined_read(env, linted_roots([env]), MAX_DOTENV_SIZE)
        # Universal newlines, as python-dotenv reads a file.
        text = data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except Refused as refused:
        return Dotenv({}, f"skipped ({refused.reason})")
    except UnicodeDecodeError:
        return Dotenv({}, "skipped (not UTF-8)")
    try:
        raw = simple_dotenv_text(text)
        if raw is None:
            from dotenv import dotenv_values  # lazy: ~6 ms a run; plain .env files skip it

            raw = dotenv_values(stream=io.StringIO(text), interpolate=False)
    except ValueError:
        return Dotenv({})
    return _resolved(raw, interpolate)


def _resolved(raw: Mapping[str, str | None], interpolate: Interpolate) -> Dotenv:
    """The values interpolated among themselves, within the size limits: a value that would
    be longer than MAX_DOTENV_VALUE, or come after MAX_DOTENV_TOTAL characters, is left unset
    (unknown), so that growth stops there and nothing is guessed."""
    resolved: dict[str, str] = {}
    total = 0
    over = False
    for name, value in raw.items():
        if value is None:
            continue
        # An upper bound, from the text alone: each reference expands at most once.
        bound = len(value) + sum(len(resolved.get(m.group(1), ""))
                                 for m in _REFERENCE.finditer(value))
        if bound > MAX_DOTENV_VALUE or total + bound > MAX_DOTENV_TOTAL:
            over = True
            resolved.pop(name, None)
            continue
        text = interpolate(value, resolved)
        total += len(text)
        resolved[name] = text
    if not over:
        return Dotenv(resolved)
    return Dotenv(resolved, f"values expand to more than {MAX_DOTENV_VALUE:,} characters "
                            f"each or {MAX_DOTENV_TOTAL:,} in all; those are left unresolved")


# A line python-dotenv reads as a comment or as NAME=VALUE with VALUE verbatim: no quote, space,
# ``#`` or backslash, which its parser treats specially.
_SIMPLE_DOTENV_LINE = re.compile(r"#.*|[A-Za-z_][A-Za-z0-9_]*=[^\s#'\"\\]*|")


def simple_dotenv(path: str) -> dict[str, str | None] | None:
    """What python-dotenv reads (uninterpolated) from a ``.env`` file of only empty lines,
    comments and plain ``NAME=VALUE`` lines, without importing it (it and the logging it imports
    cost a one-file run about 6 ms); None for any other file."""
    with open(path, encoding="utf-8") as stream:  # universal newlines, as python-dotenv reads
        return simple_dotenv_text(stream.read())


def simple_dotenv_text(text: str) -> dict[str, str | None] | None:
    values: dict[str, str | None] = {}
    for line in text.split("\n"):
        if not _SIMPLE_DOTENV_LINE.fullmatch(line):
            return None
        if line[:1] not in ("", "#"):
            name, _, value = line.partition("=")
            values[name] = value
    return values
