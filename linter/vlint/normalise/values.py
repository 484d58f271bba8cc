"""vlint's own parser for flag values, one per typespec kind in the generated catalog.

Reproduces the ``type=`` callables of vLLM's CLI without importing vLLM.  The catalog records,
per release, each typespec (``kind`` plus ``optional``/``wrapped``/``accepts``) and the real
function's answers on a fixed probe set; ``tests/test_values.py`` checks this module against
every recorded answer.

Kinds: ``int``, ``float``, ``str``, ``json``, ``human_int`` (vLLM's ``human_readable_int``: lower
case k/m/g/t are powers of 10, upper case K/M/G/T powers of 2, decimals only with lower-case
suffixes), ``json_or_str``, ``config_json`` (a JSON object validated by a config class; vlint
checks only the JSON), ``opaque`` (a release-specific callable; any text is accepted), ``none``.

Recorded refinements of a kind (each describes the real function, so releases differ by data):
``non_object: "kvs"`` on a wrapped ``json`` (vLLM 0.8.5-0.9.x's ``parse_type(json.loads)``): text
that is not ``{...}`` is read as comma-separated ``KEY=INT`` pairs (vLLM's ``nullable_kvs``), so
``8`` or ``true`` are rejected there; ``accepts`` on ``config_json``: literal texts the config
class's own ``from_cli`` takes besides JSON (e.g. a bare compilation level ``0``-``3``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
BINARY = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
HUMAN = re.compile(r"(\d+(?:\.\d+)?)([kKmMgGtT])")
JSON_OBJECT = re.compile(r"(?s)^\s*{.*}\s*$")
# Bare (unquoted) human-readable numbers inside a JSON text, as config-JSON flags expand them.
JSON_STRING = re.compile(r'("(?:[^"\\]|\\.)*")')
JSON_HUMAN = re.compile(r"\b\d+(?:\.\d+)?[kKmMgGtT]\b")
# What vLLM's parse_type(json.loads) takes for a JSON object (re.match, no DOTALL); other text
# goes to its KEY=VALUE parser where the type spec records ``non_object: "kvs"``.
WRAPPED_JSON_OBJECT = re.compile(r"^{.*}$")

EXACT_KINDS = frozenset({"int", "float", "str", "json", "human_int", "json_or_str", "none"})


@dataclass(frozen=True)
class ParsedValue:
    """The outcome of parsing one flag value the way a vLLM release would."""

    ok: bool
    value: object = None
    error: str | None = None
    suffix: str | None = None
    binary: bool | None = None


def _fail(message: str) -> ParsedValue:
    return ParsedValue(ok=False, error=message)


def parse_human_int(text: str) -> ParsedValue:
    value = text.strip()
    match = HUMAN.fullmatch(value)
    try:
        if match:
            number, suffix = match.groups()
            if suffix in DECIMAL:
                # Same float arithmetic as vLLM, so rounding matches (e.g. 1.1k).
                return ParsedValue(True, int(float(number) * DECIMAL[suffix]), None, suffix, False)
            if "." in number:
                return _fail(
                    f"Decimals are not allowed with binary suffixes like {suffix}. "
                    f"Did you mean to use {number}{suffix.lower()} instead?"
                )
            return ParsedValue(True, int(number) * BINARY[suffix], None, suffix, True)
        return ParsedValue(True, int(value))
    except (ValueError, OverflowError) as error:
        # Too many digits for int() (ValueError), or a float that overflowed to infinity.
        if match:
            return _fail(f"{type(error).__name__}: {error}")
        return _fail(f"invalid literal for int() with base 10: {value!r}")


def _expand_json_numbers(text: str) -> str:
    parts = JSON_STRING.split(text)
    for i in range(0, len(parts), 2):
        parts[i] = JSON_HUMAN.sub(lambda m: str(parse_human_int(m.group()).value), parts[i])
    return "".join(parts)


def _json(text: str) -> ParsedValue:
    try:
        return ParsedValue(True, json.loads(text))
    except (ValueError, RecursionError) as exc:
        return _fail(str(exc))


def _kvs(text: str) -> ParsedValue:
    """vLLM's ``nullable_kvs``: ``a=1,b=2`` -> ``{"a": 1, "b": 2}`` (keys lower-cased)."""
    out: dict[str, int] = {}
    for item in text.split(","):
        parts = [part.lower().strip() for part in item.split("=")]
        if len(parts) != 2:
            return _fail("Each item should be in the form KEY=VALUE")
        key, raw = parts
        try:
            number = int(raw)
        except ValueError:
            return _fail(f"Failed to parse value of item {key}={raw}")
        if key in out and out[key] != number:
            return _fail(f"Conflicting values specified for key: {key}")
        out[key] = number
    return ParsedValue(True, out)


def _config_json(text: str, config: str, human_ints: bool = True) -> ParsedValue:
    try:
        value = json.loads(_expand_json_numbers(text) if human_ints else text)
    except (ValueError, RecursionError) as exc:
        return _fail(f"invalid JSON for {config}: {exc}")
    if not isinstance(value, dict):
        return _fail(f"{config} expects a JSON object")
    return ParsedValue(True, value)


def _number(kind: str, text: str) -> ParsedValue:
    try:
        return ParsedValue(True, int(text) if kind == "int" else float(text))
    except ValueError:
        return _fail(f"invalid {kind} value: {text!r}")


def _refused_suffix(typespec: Mapping[str, object], suffix: str | None) -> str | None:
    """The release's error for a unit suffix its human_readable_int does not know (t/T before
    0.10), as the catalog's probe ``1<suffix>`` recorded it; None where it is accepted."""
    probes = typespec.get("probes")
    probe = probes.get(f"1{suffix}") if suffix and isinstance(probes, Mapping) else None
    if isinstance(probe, Mapping) and "error" in probe:
        return str(probe["error"])
    return None


def _base(typespec: Mapping[str, object], text: str) -> ParsedValue:
    kind = typespec.get("kind")
    if kind in ("int", "float"):
        return _number(str(kind), text)
    if kind in ("str", "opaque", "none"):
        return ParsedValue(True, text)
    if kind == "json":
        if typespec.get("non_object") == "kvs" and not WRAPPED_JSON_OBJECT.match(text):
            return _kvs(text)
        return _json(text)
    if kind == "human_int":
        accepts = typespec.get("accepts") or ()
        stripped = text.strip()
        if accepts and (stripped == "-1" or stripped.lower() == "auto"):
            return ParsedValue(True, -1)
        parsed = parse_human_int(text)
        refused = _refused_suffix(typespec, parsed.suffix) if parsed.ok else None
        return parsed if refused is None else _fail(refused.replace(f"1{parsed.suffix}", stripped))
    if kind == "json_or_str":
        return _json(text) if JSON_OBJECT.match(text) else ParsedValue(True, text)
    if kind == "config_json":
        literals = typespec.get("accepts") or ()
        if isinstance(literals, (list, tuple)) and text in literals:
            return ParsedValue(True, text)
        return _config_json(text, str(typespec.get("config") or "config"),
                            bool(typespec.get("human_ints", True)))
    return _fail(f"unknown value kind {kind!r}")


def parse_value(typespec: Mapping[str, object], text: str) -> ParsedValue:
    """Parse ``text`` as the release's type function described by ``typespec`` would."""
    if typespec.get("optional") and text in ("", "None"):
        return ParsedValue(True, None)
    result = _base(typespec, text)
    if not result.ok and typespec.get("wrapped") and typespec.get("kind") in ("int", "float"):
        # vLLM's parse_type() rewraps ValueError with its own message.
        return _fail(f"Value {text} cannot be converted to <class '{typespec['kind']}'>.")
    return result


def is_exact(typespec: Mapping[str, object]) -> bool:
    """Whether ``parse_value`` reproduces this kind's values exactly (not just acceptance)."""
    return typespec.get("kind") in EXACT_KINDS
