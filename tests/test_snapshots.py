"""One snapshot per output format of the same findings: a file that does not parse (VL002), a
secret that must never be shown (VL503), a fixable finding, and findings a real vLLM was asked
about (``vlint confirm``'s confirmations, set here as its probe would: no vLLM runs).

Only what must vary is normalised: vlint's version and the temporary folder.  Refresh on
purpose with ``pytest tests/test_snapshots.py --update-snapshots``, then read the diff.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from tests._support.files import write_tree
from vlint import __version__
from vlint.engine.lint import lint
from vlint.engine.report import Report
from vlint.model import Confirmation, Finding
from vlint.render import RENDERERS, renderer
from vlint.settings import Settings

SNAPSHOTS = Path(__file__).parent / "snapshots"
TARGET = "0.33.0"
# Made here rather than written out, so that no token-shaped text sits in the repository.
TOKEN = "hf_" + "Qz7" * 11 + "a"
FILES = {
    "serve.sh": (
        "#!/bin/sh\n"
        f"HF_TOKEN={TOKEN} vllm serve my-model \\\n"
        "  --max-num-batched-tokens 16k \\\n"
        "  --max-num-seq-total 8\n"
    ),
    "docker-compose.yml": 'services:\n  vllm:\n    image: vllm/vllm-openai:v0.33.0\n'
                          '    command: ["--model", "m"\n',
}
# What the probe of ``vlint confirm --level parse`` answers for each finding here.
VERDICTS = {
    "VL002": Confirmation("unverified", "parse", TARGET, "not about one vLLM invocation"),
    "VL101": Confirmation("confirmed", "parse", TARGET,
                          "vllm serve: error: unrecognized arguments: --max-num-seq-total 8"),
    "VL202": Confirmation("confirmed", "parse", TARGET,
                          "vLLM reads max_num_batched_tokens as 16000"),
    "VL503": Confirmation("unverified", "parse", TARGET, "vLLM cannot tell a leaked secret"),
}


def _confirmed(finding: Finding) -> Finding:
    return replace(finding, confirmation=VERDICTS[finding.code])


def _report(folder: Path) -> Report:
    report = lint(["."], Settings(target=TARGET))
    assert sorted(f.code for f in report.findings) == sorted(VERDICTS)
    report.findings = [_confirmed(f) for f in report.findings]
    return report


def _normalised(text: str, folder: Path) -> str:
    for form in (folder.resolve().as_uri(), str(folder.resolve()), str(folder)):
        text = text.replace(form, "<tmp>")
    # JSON's "vlint" and SARIF's driver "version" / "semanticVersion" name vlint's release.
    return re.sub(rf'("(?:vlint|version|semanticVersion)": )"{re.escape(__version__)}"',
                  r'\1"<version>"', text)


@pytest.mark.parametrize("fmt", sorted(RENDERERS))
def test_snapshot(fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                  request: pytest.FixtureRequest) -> None:
    write_tree(tmp_path, FILES)
    monkeypatch.chdir(tmp_path)
    output = _normalised(renderer(fmt).render(_report(tmp_path)), tmp_path)
    assert TOKEN[4:] not in output and TOKEN[:8] not in output  # only 'hf_Q' is ever shown
    snapshot = SNAPSHOTS / f"findings.{fmt}.txt"
    if request.config.getoption("--update-snapshots"):
        snapshot.write_text(output, "utf-8")
    assert snapshot.exists(), f"no snapshot {snapshot.name}; run with --update-snapshots"
    assert output == snapshot.read_text("utf-8")


def test_every_snapshot_belongs_to_a_format() -> None:
    named = {path.name for path in SNAPSHOTS.glob("findings.*.txt")}
    assert named == {f"findings.{fmt}.txt" for fmt in RENDERERS}
