"""Golden end-to-end files: every input under tests/golden/<kind>/ and examples/ is linted
against the releases of GOLDEN_TARGET, and the findings must equal its ``.out`` file under
tests/golden_expected/ (same relative path).  Every input is also linted against every known
release, where it must lint without an error and with findings inside the file.

Refresh them only on purpose: ``pytest tests/test_golden.py --update-golden``, then read the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vlint.knowledge import catalog
from vlint.engine.lint import lint
from vlint.settings import Settings
from vlint.model import Finding

ROOT = Path(__file__).parent.parent
GOLDEN = Path(__file__).parent / "golden"
EXPECTED = Path(__file__).parent / "golden_expected"
INPUTS = sorted(
    p for p in [*GOLDEN.rglob("*"), *(ROOT / "examples").rglob("*")]
    if p.is_file() and p.name != ".env"
)


# A fixed range, so that adding a release to the catalog does not rewrite every expectation;
# three releases, so that findings merged across releases stay covered.
GOLDEN_TARGET = ">=0.31.0,<=0.33.0"


def _line(finding: Finding) -> str:
    s, e = finding.span.start, finding.span.end
    versions = ",".join(finding.vllm_versions)
    return f"{s.line}:{s.column}-{e.line}:{e.column} {finding.code} [{versions}] {finding.message}"


def test_inputs_cover_every_kind() -> None:
    kinds = {p.parent.name for p in GOLDEN.rglob("*") if p.is_file()}
    assert {"shell", "compose", "python"} <= kinds


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_golden(path: Path, request: pytest.FixtureRequest) -> None:
    report = lint([str(path)], Settings(target=GOLDEN_TARGET))
    got = "".join(_line(f) + "\n" for f in report.findings)
    expected_file = EXPECTED / (str(path.relative_to(ROOT)) + ".out")
    if request.config.getoption("--update-golden"):
        expected_file.parent.mkdir(parents=True, exist_ok=True)
        expected_file.write_text(got, "utf-8")
    assert expected_file.exists(), f"no golden file {expected_file.name}; run --update-golden"
    assert got == expected_file.read_text("utf-8")


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_known_release_lints_each_input(path: Path) -> None:
    known = catalog.known_releases()
    report = lint([str(path)], Settings(target=f">={known[0]},<={known[-1]}"))
    for finding in report.findings:
        lines = Path(finding.path).read_text("utf-8", "replace").splitlines() or [""]
        start, end = finding.span.start, finding.span.end
        assert 1 <= start.line <= end.line <= len(lines) + 1, finding
        assert set(finding.vllm_versions) <= {str(v) for v in known}, finding
