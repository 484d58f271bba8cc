"""Every curated rename (rules/vlint_rules/curated/renames.toml, rule VL103) against the generated
catalog: the old option string is in its stated last release and gone from the next one, the
replacement appears in its stated first release and exists when the old string disappears.

The catalog grows release by release; a check whose releases it does not hold yet is skipped,
naming them, so the test tightens as data arrives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from vlint.knowledge import catalog
from vlint.knowledge.catalog import ParserSpec
from vlint.knowledge.curated import Rename, renames
from vlint.fix.apply import apply_fixes
from vlint.engine.lint import lint
from vlint.settings import Settings

ENTRIES = sorted(renames().values(), key=lambda r: r.old)


def _parser(version: Version) -> ParserSpec:
    release = catalog.load(version)
    parser = release.parser("serve") or release.parser("api_server")
    assert parser is not None, f"{version}: no parser"
    return parser


def _has(version: Version, string: str) -> bool:
    parser = _parser(version)
    head, dot, _ = string.partition(".")
    if dot:
        return head in parser.by_string and parser.feature("dotted_json")
    return string in parser.by_string


def _neighbours(version: Version) -> tuple[Version | None, Version | None]:
    """The known releases just before and just after ``version`` (which must be known)."""
    known = catalog.known_releases()
    index = known.index(version)
    before = known[index - 1] if index > 0 else None
    after = known[index + 1] if index + 1 < len(known) else None
    return before, after


def _require(entry: Rename, *versions: str) -> list[Version]:
    wanted = [Version(v) for v in versions if v]
    missing = [str(v) for v in wanted if v not in catalog.known_releases()]
    if missing:
        pytest.skip(f"{entry.old}: vLLM {', '.join(missing)} not in the catalog yet")
    return wanted


def test_entries_are_well_formed() -> None:
    assert ENTRIES, "renames.toml is empty"
    for entry in ENTRIES:
        assert entry.old.startswith("--") and entry.source, entry
        Version(entry.last)
        assert bool(entry.replacement) == bool(entry.since), entry
        if entry.since:
            Version(entry.since)
        assert not entry.fix or entry.replacement, f"{entry.old}: a fix needs a replacement"
        assert not entry.fix or entry.fix.startswith(entry.replacement), entry
        assert entry.help or entry.replacement, f"{entry.old}: no advice at all"


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.old)
def test_old_string_last_release(entry: Rename) -> None:
    (last,) = _require(entry, entry.last)
    assert _has(last, entry.old), f"{entry.old} is not in vLLM {last}"
    _, after = _neighbours(last)
    if after is None:
        pytest.fail(f"{entry.old}: the newest known release {last} still has it")
    assert not _has(after, entry.old), f"{entry.old} is still in vLLM {after}"


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.replacement], ids=lambda e: e.old)
def test_replacement_first_release(entry: Rename) -> None:
    (since,) = _require(entry, entry.since)
    assert _has(since, entry.replacement), f"{entry.replacement} is not in vLLM {since}"
    before, _ = _neighbours(since)
    if before is None:
        pytest.skip(f"{entry.replacement}: no known release before {since} to date it")
    assert not _has(before, entry.replacement), (
        f"{entry.replacement} is already in vLLM {before}, before {since}")


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.replacement], ids=lambda e: e.old)
def test_replacement_exists_when_old_is_gone(entry: Rename) -> None:
    (last,) = _require(entry, entry.last)
    _, after = _neighbours(last)
    if after is None:
        pytest.skip(f"{entry.old}: no known release after {last}")
    assert Version(entry.since) <= after
    assert _has(after, entry.replacement), (
        f"{entry.old} is gone in vLLM {after} but {entry.replacement} is not there")


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.fix], ids=lambda e: e.old)
def test_fix_before_after_then_rerun(entry: Rename, tmp_path: Path) -> None:
    """The safe fix, where the release after ``last`` has the replacement: before -> after,
    and the fixed command has no VL103 (so a second run changes nothing)."""
    (last,) = _require(entry, entry.last)
    _, after = _neighbours(last)
    if after is None:
        pytest.skip(f"{entry.old}: no known release after {last}")
    script = tmp_path / "serve.sh"
    script.write_text(f"vllm serve m {entry.old} --max-num-seqs 8\n", "utf-8")
    settings = Settings(target=str(after))
    found = [f for f in lint([str(script)], settings).findings if f.code == "VL103"]
    assert len(found) == 1 and found[0].fix is not None and found[0].fix.safe, found
    assert f"use '{entry.replacement}'" in found[0].message
    fixed, count = apply_fixes(script.read_text("utf-8"), [found[0].fix])
    assert count == 1 and fixed == f"vllm serve m {entry.fix} --max-num-seqs 8\n"
    script.write_text(fixed, "utf-8")
    assert not [f for f in lint([str(script)], settings).findings if f.code == "VL103"]


def test_no_fix_where_nothing_replaces_the_flag(tmp_path: Path) -> None:
    entry = next(e for e in ENTRIES if not e.replacement)
    (last,) = _require(entry, entry.last)
    _, after = _neighbours(last)
    if after is None:
        pytest.skip(f"{entry.old}: no known release after {last}")
    script = tmp_path / "serve.sh"
    script.write_text(f"vllm serve m {entry.old} 1\n", "utf-8")
    found = [f for f in lint([str(script)], Settings(target=str(after))).findings
             if f.code == "VL103"]
    assert found and found[0].fix is None and entry.help in found[0].help
    assert found[0].message == f"'{entry.old}' was removed after {last}"
