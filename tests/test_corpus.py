"""Every real deployment file in ../shared/corpus/real/ and ../shared/corpus/incoming/ is
linted without a crash, and its findings match the reviewed expectations in
tests/corpus_expected/ (one file per corpus file, ``incoming/`` for the second corpus: its
invocation count and every finding, each checked by hand against the file and its vLLM release;
refresh only on purpose with ``--update-golden`` and review the diff).

The corpora are read in place (they are never copied into this repository).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vlint.engine.lint import lint
from vlint.settings import Settings

SHARED = Path(__file__).resolve().parents[2] / "shared" / "corpus"
CORPUS = SHARED / "real"
INCOMING = SHARED / "incoming"


def _files(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*") if p.is_file() and p.name != "SOURCES.tsv")


FILES = _files(CORPUS)
INCOMING_FILES = _files(INCOMING)


def test_corpus_present() -> None:
    if not FILES and not os.environ.get("CI"):
        pytest.skip("../shared/corpus/real is not beside this checkout")
    assert FILES, f"no corpus at {CORPUS}"
    assert INCOMING_FILES, f"no corpus at {INCOMING}"


EXPECTED = Path(__file__).parent / "corpus_expected"


def _expectation(path: Path) -> Path:
    """Where the reviewed output of a corpus file lives: ``<kind>/<file>.out`` for the first
    corpus, ``incoming/<kind>/<file>.out`` for the second."""
    folder = Path(path.parent.name)
    if path.is_relative_to(INCOMING):
        folder = Path("incoming") / folder
    return EXPECTED / folder / (path.name + ".out")


@pytest.mark.parametrize("path", FILES + INCOMING_FILES,
                         ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_lints_without_crash_and_as_reviewed(path: Path, request: pytest.FixtureRequest) -> None:
    report = lint([str(path)], Settings())
    assert report.files == 1
    lines = [f"invocations: {report.invocations}"]
    for finding in report.findings:
        assert finding.path == str(path)
        assert finding.span.start <= finding.span.end
        s, e = finding.span.start, finding.span.end
        versions = ",".join(finding.vllm_versions)
        lines.append(f"{s.line}:{s.column}-{e.line}:{e.column} {finding.code} [{versions}] "
                     f"{finding.message}")
    got = "".join(line + "\n" for line in lines)
    expected = _expectation(path)
    if request.config.getoption("--update-golden"):
        expected.parent.mkdir(parents=True, exist_ok=True)
        expected.write_text(got, "utf-8")
    assert expected.exists(), f"no reviewed expectations for {path.name}"
    assert got == expected.read_text("utf-8")


def test_compose_files_yield_invocations() -> None:
    composes = [p for p in FILES if p.parent.name == "a_compose"]
    if not composes:
        pytest.skip("no compose corpus")
    report = lint([str(p) for p in composes], Settings())
    print(f"compose corpus: {len(composes)} files, {report.invocations} invocations, "
          f"{len(report.findings)} findings")
    assert report.invocations >= len(composes) - 2
