"""Every real deployment file in ../shared/corpus/real/ is linted without a crash.

The corpus is read in place (it is never copied into this repository).  Files of the kinds vlint
reads today must produce their invocations; the counts are printed for the closing notes.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vlint.lint import Settings, lint

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "real"
FILES = sorted(p for p in CORPUS.rglob("*") if p.is_file()) if CORPUS.is_dir() else []


def test_corpus_present() -> None:
    if not FILES and not os.environ.get("CI"):
        pytest.skip("../shared/corpus/real is not beside this checkout")
    assert FILES, f"no corpus at {CORPUS}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_lints_without_crash(path: Path) -> None:
    report = lint([str(path)], Settings())
    assert report.files == 1
    for finding in report.findings:
        assert finding.path == str(path)
        assert finding.span.start <= finding.span.end


def test_compose_files_yield_invocations() -> None:
    composes = [p for p in FILES if p.parent.name == "a_compose"]
    if not composes:
        pytest.skip("no compose corpus")
    report = lint([str(p) for p in composes], Settings())
    print(f"compose corpus: {len(composes)} files, {report.invocations} invocations, "
          f"{len(report.findings)} findings")
    assert report.invocations >= len(composes) - 2
