"""A finding's related locations (the other side of a mismatch) and its invocation, in every
output that can carry them: JSON ``related``/``invocation``, SARIF ``relatedLocations`` (valid
against the SARIF 2.1.0 schema), and a secondary label in the full format's code frame."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from vlint.engine.report import Report
from vlint.model import Pos, Span
from vlint.model.finding import Finding, Related
from vlint.render import full, json_output, sarif

SCHEMA = Path(__file__).resolve().parents[2] / "shared" / "schemas" / "sarif-schema-2.1.0.json"
SOURCE = "vllm serve m \\\n  --max-num-seqs 64 \\\n  --max-num-batched-tokens 32\n"
SECRET = "hf_" + "x" * 20
PRIMARY = Span(Pos(3, 28), Pos(3, 30))
RELATED = Related(Span(Pos(2, 18), Pos(2, 20)), "max_num_seqs is set here")


def _report(*related: Related, source: str = SOURCE, redact: tuple[Span, ...] = ()) -> Report:
    finding = Finding(
        "VL302", "batched-tokens-below-max-num-seqs", "error",
        "max_num_batched_tokens (32) is below max_num_seqs (64)", "raise it", "run.sh",
        PRIMARY, ("0.33.0",), related=related, invocation=0, redact=redact)
    return Report(findings=[finding], sources={"run.sh": source}, files=1, invocations=1)


def test_json_carries_related_and_invocation() -> None:
    (finding,) = json.loads(json_output.render(_report(RELATED)))["findings"]
    assert finding["related"] == [
        {"line": 2, "column": 18, "end_line": 2, "end_column": 20,
         "message": "max_num_seqs is set here"}]
    assert finding["invocation"] == 0
    plain = json.loads(json_output.render(_report()))["findings"][0]
    assert plain["related"] == []


def _sarif(report: Report) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(sarif.render(report))
    schema = json.loads(SCHEMA.read_text("utf-8"))
    jsonschema.validators.validator_for(schema)(schema).validate(document)
    return document


def test_sarif_related_locations_are_valid(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (result,) = _sarif(_report(RELATED))["runs"][0]["results"]
    (location,) = result["relatedLocations"]
    assert location["id"] == 0
    assert location["message"] == {"text": "max_num_seqs is set here"}
    assert location["physicalLocation"]["region"] == {
        "startLine": 2, "startColumn": 18, "endLine": 2, "endColumn": 20}
    assert location["physicalLocation"]["artifactLocation"]["uri"] == "run.sh"
    assert result["properties"]["invocation"] == 0
    (plain,) = _sarif(_report())["runs"][0]["results"]
    assert "relatedLocations" not in plain


def test_full_shows_a_secondary_label() -> None:
    lines = full.render(_report(RELATED)).splitlines()
    primary = lines.index("3 |   --max-num-batched-tokens 32")
    secondary = lines.index("2 |   --max-num-seqs 64 \\")
    # By line: the related line first, marked with dashes and its message.
    assert secondary < primary
    assert lines[secondary + 1] == "  |                  -- max_num_seqs is set here"
    assert lines[primary + 1] == "  |                            ^^ batched-tokens-below-max-num-seqs"


def test_full_shows_one_line_once() -> None:
    on_one_line = Related(Span(Pos(3, 5), Pos(3, 7)), "the flag")
    text = full.render(_report(on_one_line))
    assert text.count("3 |   --max-num-batched-tokens 32") == 1
    assert "  |     -- the flag" in text


def test_a_related_line_is_masked_too() -> None:
    source = f"vllm serve m \\\n  --api-key {SECRET} \\\n  --max-num-batched-tokens 32\n"
    secret = Span(Pos(2, 13), Pos(2, 13 + len(SECRET)))
    related = Related(Span(Pos(2, 3), Pos(2, 12)), "the key")
    text = full.render(_report(related, source=source, redact=(secret,)))
    assert "the key" in text and SECRET[4:] not in text
