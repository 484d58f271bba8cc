"""`vllm serve` on a release whose catalog has no serve parser (``serve`` is null: releases
before `vllm serve` existed).  The catalog's old releases arrive over time, so the null parser
is simulated on a known release; where the catalog already holds a real one, that is used too."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from vlint.knowledge import catalog
from vlint.knowledge.catalog import Lifetime, Release
from vlint.checks import flag_not_yet_available
from vlint.engine.lint import lint
from vlint.settings import Settings

OLD = catalog.known_releases()[0]
ADDED = Version("99.0")  # the simulated first release with `vllm serve`


@pytest.fixture
def serve_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    real_load = catalog.load

    def load(version: str | Version) -> Release:
        release = real_load(version)
        if Version(str(version)) != OLD:
            return release
        return Release(release.version, {**release.raw, "serve": None})

    monkeypatch.setattr(catalog, "load", load)
    monkeypatch.setattr(flag_not_yet_available, "option_lifetimes",
                        lambda entry="serve": {"--port": Lifetime(ADDED, ADDED)})


def _lint(tmp_path: Path, name: str, text: str) -> list[tuple[str, str, str]]:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    report = lint([str(path)], Settings(target=str(OLD)))
    return [(f.code, f"{f.span.start.line}:{f.span.start.column}", f.message)
            for f in report.findings]


def test_vllm_serve_is_reported_not_silent(serve_missing: None, tmp_path: Path) -> None:
    found = _lint(tmp_path, "run.sh", "vllm serve m --max-num-seqs 8 --no-such-flag\n")
    assert found == [("VL102", "1:1",
                      f"'vllm serve' does not exist in vLLM {OLD}; it was added in {ADDED}")]


def test_api_server_launch_is_still_checked(serve_missing: None, tmp_path: Path) -> None:
    found = _lint(tmp_path, "run.sh",
                  "python -m vllm.entrypoints.openai.api_server --model m --no-such-flag 1\n")
    # The unknown flag with its would-be value: one mistake, one finding (argparse lists both
    # as unrecognized arguments).
    assert [code for code, _, _ in found] == ["VL101"]


def test_python_keywords_use_the_api_server_parser(serve_missing: None, tmp_path: Path) -> None:
    found = _lint(tmp_path, "run.py",
                  "from vllm import LLM\nLLM(model='m', no_such_kwarg=1, max_num_seqs='8')\n")
    codes = sorted(code for code, _, _ in found)
    assert "VL106" in codes and "VL102" not in codes, found


def test_a_real_serve_less_release_if_the_catalog_has_one(tmp_path: Path) -> None:
    old = [v for v in catalog.known_releases() if catalog.load(v).parser("serve") is None]
    if not old:
        pytest.skip("no release without `vllm serve` in the catalog yet")
    path = tmp_path / "run.sh"
    path.write_text("vllm serve m --max-num-seqs 8\n", "utf-8")
    report = lint([str(path)], Settings(target=str(old[-1])))
    assert [f.code for f in report.findings] == ["VL102"]
    assert "'vllm serve' does not exist" in report.findings[0].message
