"""The deployment rules point at the value that is wrong and carry the other side of the
mismatch as related locations, in the original file and in SARIF ``relatedLocations``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests._support.files import write_tree
from vlint.engine.lint import lint
from vlint.model import Pos, Span
from vlint.render import sarif
from vlint.settings import Settings

SCHEMA = Path(__file__).resolve().parents[3] / "shared" / "schemas" / "sarif-schema-2.1.0.json"
COMPOSE = """\
services:
  vllm:
    image: vllm/vllm-openai:v0.33.0
    command: ["m", "--tensor-parallel-size", "2", "-pp", "2"]
    shm_size: 64m
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: 2
              capabilities: [gpu]
"""


@pytest.fixture
def report_of(tmp_path: Path) -> Any:
    path = write_tree(tmp_path, {"docker-compose.yml": COMPOSE}) / "docker-compose.yml"
    return lint([str(path)], Settings(target="0.33.0", select=("VL6",)))


def test_the_gpu_count_is_primary_and_the_sizes_related(report_of: Any) -> None:
    (finding,) = [f for f in report_of.findings if f.code == "VL601"]
    assert finding.span == Span(Pos(11, 22), Pos(11, 23))
    assert [(r.span, r.message) for r in finding.related] == [
        (Span(Pos(4, 47), Pos(4, 48)), "tensor parallel size 2 is set here"),
        (Span(Pos(4, 59), Pos(4, 60)), "pipeline parallel size 2 is set here"),
    ]


def test_the_shm_size_is_primary(report_of: Any) -> None:
    (finding,) = [f for f in report_of.findings if f.code == "VL604"]
    assert finding.span == Span(Pos(5, 15), Pos(5, 18))
    assert [r.message for r in finding.related] == [
        "tensor parallel size 2 is set here", "pipeline parallel size 2 is set here"]


def test_sarif_carries_the_related_locations(report_of: Any, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    document = json.loads(sarif.render(report_of))
    schema = json.loads(SCHEMA.read_text("utf-8"))
    jsonschema.validators.validator_for(schema)(schema).validate(document)
    results = {r["ruleId"]: r for r in document["runs"][0]["results"]}
    assert set(results) == {"VL601", "VL604"}
    regions = [location["physicalLocation"]["region"]
               for location in results["VL601"]["relatedLocations"]]
    assert regions == [
        {"startLine": 4, "startColumn": 47, "endLine": 4, "endColumn": 48},
        {"startLine": 4, "startColumn": 59, "endLine": 4, "endColumn": 60},
    ]


SHARED = """\
services:
  a:
    image: vllm/vllm-openai:v0.33.0
    command: ["m", "--gpu-memory-utilization", "0.7"]
    deploy: {resources: {reservations: {devices: [{driver: nvidia, device_ids: ["0"], capabilities: [gpu]}]}}}
  b:
    image: vllm/vllm-openai:v0.33.0
    command: ["m", "--port", "8001"]
    deploy: {resources: {reservations: {devices: [{driver: nvidia, device_ids: ["0"], capabilities: [gpu]}]}}}
"""


def test_a_shared_gpu_points_at_both_services(tmp_path: Path) -> None:
    path = write_tree(tmp_path, {"docker-compose.yml": SHARED}) / "docker-compose.yml"
    report = lint([str(path)], Settings(target=">=0.32.0,<=0.33.0", select=("VL613",)))
    (finding,) = report.findings
    assert finding.vllm_versions == ("0.32.0", "0.33.0")
    assert finding.span == Span(Pos(9, 82), Pos(9, 83))
    assert [(r.span, r.message) for r in finding.related] == [
        (Span(Pos(5, 82), Pos(5, 83)), "GPU 0 is given here too"),
        (Span(Pos(4, 49), Pos(4, 52)), "gpu_memory_utilization 0.7 is set here"),
    ]
    assert "add up to 1.62 (0.7 + 0.92)" in finding.message
