"""SARIF: valid against the official 2.1.0 schema, complete rule metadata, stable fingerprints."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from vlint.checks import MODULES
from vlint.engine.lint import Report, lint
from vlint.settings import Settings
from vlint.model import Finding, Pos, Span
from vlint.render import sarif

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = Path(__file__).resolve().parents[2] / "shared" / "schemas" / "sarif-schema-2.1.0.json"
SCRIPT = "vllm serve m \\\n  --max-num-batched-tokens 16k \\\n  --max-model-len 8k\n"


def _sarif(paths: list[str], target: str | None = None) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(sarif.render(lint(paths, Settings(target=target))))
    return document


def _schema() -> dict[str, Any]:
    if not SCHEMA.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{SCHEMA} is missing: CI must have ../shared beside the clone")
        pytest.skip(f"{SCHEMA} is not here")
    schema: dict[str, Any] = json.loads(SCHEMA.read_text("utf-8"))
    return schema


def test_examples_validate_against_the_official_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    document = _sarif(["examples/"])
    schema = _schema()
    jsonschema.validators.validator_for(schema)(schema).validate(document)
    results = document["runs"][0]["results"]
    assert results, "the examples have findings"
    for result in results:
        uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert uri.startswith("examples/") and "\\" not in uri


def test_rules_carry_their_documentation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    run = _sarif(["examples/"])["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == sorted(MODULES)
    for rule in rules:
        assert rule["fullDescription"]["text"] and "\n" not in rule["fullDescription"]["text"]
        assert rule["help"]["text"].startswith("What it does\n")
        assert rule["helpUri"].endswith("docs/rules.md#" + rule["id"].lower())
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]


def test_result_region_and_level(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("run.sh").write_text(SCRIPT, "utf-8")
    (result, _) = _sarif(["run.sh"], "0.32.0")["runs"][0]["results"]
    assert result["ruleId"] == "VL202" and result["level"] == "warning"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "run.sh"
    assert location["region"] == {"startLine": 2, "startColumn": 28, "endLine": 2, "endColumn": 31}
    assert result["properties"]["vllm_versions"] == ["0.32.0"]


def _fingerprints(path: Path) -> list[str]:
    results = _sarif([path.name], "0.32.0")["runs"][0]["results"]
    return [r["partialFingerprints"][sarif.FINGERPRINT_KEY] for r in results]


def test_fingerprints_survive_moving_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    script = tmp_path / "run.sh"
    script.write_text(SCRIPT + SCRIPT, "utf-8")
    before = _fingerprints(script)
    script.write_text("# moved\n\necho hi\n" + SCRIPT + "\n" + SCRIPT, "utf-8")
    after = _fingerprints(script)
    assert len(set(before)) == 4, "two findings per copy, each copy its own occurrence"
    assert before == after
    script.write_text(SCRIPT.replace("16k", "32k") + SCRIPT, "utf-8")
    changed = _fingerprints(script)
    assert len(set(changed) & set(before)) == 3


def test_a_code_without_a_rule_module_still_validates() -> None:
    span = Span(Pos(1, 3), Pos(1, 8))
    finding = Finding("VL099", "not-a-registered-rule", "warning", "m", "h", "a.sh", span)
    document = json.loads(sarif.render(Report(findings=[finding])))
    schema = _schema()
    jsonschema.validators.validator_for(schema)(schema).validate(document)
    (result,) = document["runs"][0]["results"]
    assert result["ruleId"] == "VL099" and "ruleIndex" not in result
