"""Every curated environment-variable rename (rules/vlint_rules/curated/env_renames.toml, rule
VL404) against the generated catalog: the variable is read by its stated last release and not by
the next one, and its replacement (an option, a dotted config key or another variable) exists in
its stated first release and in the newest."""

from __future__ import annotations

import pytest
from packaging.version import Version

from vlint.knowledge import catalog
from vlint.knowledge.curated import Rename, env_renames

ENTRIES = sorted(env_renames().values(), key=lambda r: r.old)
RELEASES = catalog.known_releases()


def _after(version: Version) -> Version | None:
    index = RELEASES.index(version)
    return RELEASES[index + 1] if index + 1 < len(RELEASES) else None


def _has(version: Version, replacement: str) -> bool:
    """Whether ``version`` has the replacement's first word: an option (a dotted key's option,
    on a release that reads dotted keys) or a variable (``NAME`` of ``NAME=value``)."""
    word = replacement.split()[0]
    release = catalog.load(version)
    if not word.startswith("--"):
        return word.partition("=")[0] in release.env_vars
    parser = release.parser("serve")
    if parser is None:
        return False
    head, dot, _ = word.partition(".")
    return head in parser.by_string and (not dot or parser.feature("dotted_json"))


def test_the_names_are_those_0_10_2_reads_and_0_33_0_does_not() -> None:
    gone = catalog.load("0.10.2").env_vars - catalog.load("0.33.0").env_vars
    assert {entry.old for entry in ENTRIES} == gone


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda entry: entry.old)
def test_the_last_release_reads_it_and_the_next_does_not(entry: Rename) -> None:
    last = Version(entry.last)
    assert entry.old in catalog.load(last).env_vars
    after = _after(last)
    assert after is not None and entry.old not in catalog.load(after).env_vars


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.replacement],
                         ids=lambda entry: entry.old)
def test_the_replacement_is_there_from_its_release(entry: Rename) -> None:
    assert entry.since, "a replacement names its first release"
    since = Version(entry.since)
    assert _has(since, entry.replacement), (entry.replacement, entry.since)
    # (The advice is the newest release's: some names went through an interim one first.)
    assert _has(catalog.newest(), entry.replacement), entry.replacement


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.fix], ids=lambda entry: entry.old)
def test_a_one_to_one_replacement_is_an_option_new_at_its_release(entry: Rename) -> None:
    """``fix``: the option the value passes to unchanged, first in ``since``."""
    assert entry.fix == entry.replacement and entry.fix.startswith("--")
    index = RELEASES.index(Version(entry.since))
    if "." not in entry.fix and index:
        assert not _has(RELEASES[index - 1], entry.fix), "the option was there before"


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda entry: entry.old)
def test_every_entry_says_what_to_do_and_where_it_was_read(entry: Rename) -> None:
    assert entry.help and entry.help[0].islower(), entry.help
    assert "vllm/" in entry.source and any(c.isdigit() for c in entry.source)
