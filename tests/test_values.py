"""vlint's value parser against the real vLLM type functions' recorded answers.

The catalog's ``types`` section holds, per release, what each real ``type=`` callable returned
(or raised) for a fixed probe set; ``parse_value`` must agree on every one.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest

from vlint.normalise.values import ParsedValue, is_exact, parse_value


def recorded() -> Iterator[tuple[str, str, dict[str, Any], str, dict[str, Any]]]:
    from vlint.knowledge import catalog

    for version in catalog.known_releases():
        data = catalog.load(version).raw
        for type_id, spec in sorted(data["types"].items()):
            for text, answer in sorted(spec["probes"].items()):
                yield str(version), type_id, spec, text, answer


ALL = list(recorded())
# Release-specific callables (lambdas, vLLM's own parsers): vlint accepts any text for them and
# marks the value uncertain, which test_opaque_types_are_never_judged checks.
CASES = [case for case in ALL if case[2]["kind"] != "opaque"]
OPAQUE = [case for case in ALL if case[2]["kind"] == "opaque"]


def test_catalog_has_probes() -> None:
    assert CASES, "no generated release data: run python rules/generate.py"


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


@pytest.mark.parametrize(
    ("release", "type_id", "spec", "text", "answer"),
    CASES,
    ids=[f"{c[0]}-{c[1]}-{c[3]!r}" for c in CASES],
)
def test_parse_value_matches_real_function(
    release: str, type_id: str, spec: dict[str, Any], text: str, answer: dict[str, Any]
) -> None:
    got = parse_value(spec, text)
    kind = spec["kind"]
    if kind == "config_json":
        # vlint checks only that the text is JSON (the config class validates its fields), so
        # it may accept what the release rejects, but must never reject what it accepts.
        if answer.get("ok") is None and "ok" in answer:
            assert got.ok and got.value is None
        elif "ok" in answer:
            assert got.ok, (release, type_id, text, got)
        return
    assert is_exact(spec)
    if "ok" in answer:
        assert got.ok, (release, type_id, text, got)
        assert _same(got.value, answer["ok"]), (release, type_id, text, got.value, answer)
    else:
        assert not got.ok, (release, type_id, text, got.value, answer)


def test_opaque_types_are_never_judged() -> None:
    assert OPAQUE, "the catalog records no release-specific type: update this test"
    for release, type_id, spec, text, _ in OPAQUE:
        got = parse_value(spec, text)
        assert got.ok and not is_exact(spec), (release, type_id, text)


@pytest.mark.parametrize(
    ("text", "value", "suffix", "binary"),
    [
        ("16k", 16000, "k", False),
        ("16K", 16384, "K", True),
        ("1.5k", 1500, "k", False),
        ("2M", 2 * 2**20, "M", True),
        (" 8 ", 8, None, None),
    ],
)
def test_human_int_reports_suffix(text: str, value: int, suffix: str | None,
                                  binary: bool | None) -> None:
    assert parse_value({"kind": "human_int"}, text) == ParsedValue(True, value, None, suffix,
                                                                   binary)


def test_binary_suffix_rejects_decimals() -> None:
    got = parse_value({"kind": "human_int"}, "1.5K")
    assert not got.ok
    assert got.error is not None and "1.5k" in got.error


def test_auto_only_where_accepted() -> None:
    assert parse_value({"kind": "human_int", "accepts": ["-1", "auto"]}, "AUTO").value == -1
    assert not parse_value({"kind": "human_int"}, "auto").ok


def test_optional_none() -> None:
    assert parse_value({"kind": "int", "optional": True, "wrapped": True}, "None").value is None
    assert not parse_value({"kind": "int"}, "None").ok


def test_key_value_pairs_only_where_recorded() -> None:
    # 0.8.5-0.9.x's parse_type(json.loads): non-object text is KEY=INT pairs (nullable_kvs).
    kvs = {"kind": "json", "optional": True, "wrapped": True, "non_object": "kvs"}
    assert parse_value(kvs, "a=1, B=2").value == {"a": 1, "b": 2}
    assert parse_value(kvs, '{"a": 1}').value == {"a": 1}
    assert parse_value(kvs, "None").ok and parse_value(kvs, "None").value is None
    for text in ("8", "true", "a=x", "a=1,a=2", "a"):
        assert not parse_value(kvs, text).ok, text
    assert parse_value({"kind": "json", "optional": True, "wrapped": True}, "8").value == 8


def test_config_literals_only_where_recorded() -> None:
    spec = {"kind": "config_json", "config": "CompilationConfig"}
    assert parse_value({**spec, "accepts": ["0", "1", "2", "3"]}, "3").ok
    assert not parse_value(spec, "3").ok
    assert not parse_value({**spec, "accepts": ["0", "1", "2", "3"]}, "4").ok
