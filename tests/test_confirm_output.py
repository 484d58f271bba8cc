"""Every output format shows a finding's ``vlint confirm`` verdict (no vLLM needed here)."""

from __future__ import annotations

import json
from dataclasses import replace

from vlint.engine.lint import Report
from vlint.model import Confirmation, Finding, Pos, Span
from vlint.render import renderer

CONFIRMED = Confirmation("confirmed", "parse", "0.32.0", "vLLM rejects it: unrecognized arguments")
FINDING = Finding("VL101", "unknown-flag", "error", "unknown flag '--x'", "remove it", "a.sh",
                  Span(Pos(1, 14), Pos(1, 17)), ("0.32.0",))
SOURCE = "vllm serve m --x\n"


def _render(fmt: str, confirmation: Confirmation | None) -> str:
    report = Report(findings=[replace(FINDING, confirmation=confirmation)],
                    sources={"a.sh": SOURCE})
    return renderer(fmt).render(report)


def test_full_and_concise() -> None:
    assert ("  = confirmed by vLLM 0.32.0 (parse): vLLM rejects it: unrecognized arguments"
            in _render("full", CONFIRMED).splitlines())
    assert _render("concise", CONFIRMED).rstrip().endswith(" [confirmed]")
    assert not _render("concise", None).rstrip().endswith("]")  # no confirmation state


def test_json_and_sarif() -> None:
    (finding,) = json.loads(_render("json", CONFIRMED))["findings"]
    assert finding["confirmation"] == {"state": "confirmed", "level": "parse",
                                       "vllm_release": "0.32.0",
                                       "message": "vLLM rejects it: unrecognized arguments"}
    assert json.loads(_render("json", None))["findings"][0]["confirmation"] is None
    (result,) = json.loads(_render("sarif", CONFIRMED))["runs"][0]["results"]
    assert result["properties"]["confirmation"]["state"] == "confirmed"
    (plain,) = json.loads(_render("sarif", None))["runs"][0]["results"]
    assert "confirmation" not in plain["properties"]


def test_github() -> None:
    assert "confirmed by vLLM 0.32.0 (parse)" in _render("github", CONFIRMED)


def test_probe_without_vllm_fails_cleanly() -> None:
    """The probe runs (stdlib only) in an interpreter without vLLM and says so; it is ended."""
    import os
    import sys

    import pytest

    from vlint.confirm import Probe, ProbeError, VLLMPython, confirm

    python = VLLMPython(sys.executable, {"PYTHONPATH": ""}, "test")
    with Probe(python, timeout=60) as probe:
        reply = probe.ask({"op": "ping"})
        pid = probe.pid
    assert reply["ok"] is False and reply["probe_failure"] is True
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    with pytest.raises(ProbeError, match="cannot load vLLM"):
        confirm(Report(findings=[FINDING]), "parse", python)
