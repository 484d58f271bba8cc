"""``vlint flags``: a release's option strings and the difference between two releases, and the
catalog's lifecycle API behind them (``option_lifetimes``, ``added_removed``)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from packaging.version import Version

from vlint.knowledge import catalog
from vlint.cli import _group, main

RELEASES = catalog.known_releases()


def _flags(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(_group, ["flags", *args])
    return result.exit_code, result.stdout, result.stderr


def _with_serve() -> list[Version]:
    return [v for v in RELEASES if catalog.has_entry(v, "serve")]


def test_target_version_lists_the_release_parser_strings_sorted() -> None:
    for version in (RELEASES[0], RELEASES[-1]):
        code, out, _ = _flags("--target-version", str(version))
        assert code == 0
        lines = out.splitlines()
        assert lines == sorted(lines)
        entry = "serve" if catalog.has_entry(version, "serve") else "api_server"
        parser = catalog.load(version).parser(entry)
        assert parser is not None
        assert lines == sorted(parser.by_string)


def test_newest_release_has_serve_flags() -> None:
    code, out, _ = _flags("--target-version", str(RELEASES[-1]))
    assert code == 0
    assert "--max-num-seqs" in out.splitlines()
    assert "--max-num-batched-tokens" in out.splitlines()


def test_entry_option_selects_the_api_server_module() -> None:
    version = RELEASES[-1]
    code, out, _ = _flags("--target-version", str(version), "--entry", "api_server")
    assert code == 0
    parser = catalog.load(version).parser("api_server")
    assert parser is not None
    assert out.splitlines() == sorted(parser.by_string)


def test_diff_of_two_committed_releases() -> None:
    """0.32.0 added --grpc-port (real data: 0.31.0's serve parser has no such option)."""
    code, out, _ = _flags("--diff", "0.31.0", "0.32.0")
    assert code == 0
    assert "+ --grpc-port" in out.splitlines()
    assert not any(line == "- --grpc-port" for line in out.splitlines())
    old = catalog.load("0.31.0").parser("serve")
    new = catalog.load("0.32.0").parser("serve")
    assert old is not None and new is not None
    expected = ([f"+ {s}" for s in sorted(set(new.by_string) - set(old.by_string))]
                + [f"- {s}" for s in sorted(set(old.by_string) - set(new.by_string))])
    assert out.splitlines() == expected


def test_diff_backwards_reports_removals() -> None:
    code, out, _ = _flags("--diff", "0.32.0", "0.31.0")
    assert code == 0
    assert "- --grpc-port" in out.splitlines()


def test_diff_of_a_release_with_itself_is_empty() -> None:
    code, out, _ = _flags("--diff", str(RELEASES[-1]), str(RELEASES[-1]))
    assert (code, out) == (0, "")


def test_unknown_release_exits_2_with_the_known_range() -> None:
    assert main(["flags", "--target-version", "0.0.1"]) == 2
    code, _, err = _flags("--target-version", "0.0.1")
    assert code == 2
    assert f"{RELEASES[0]} to {RELEASES[-1]}" in err
    assert _flags("--diff", "0.31.0", "99.0")[0] == 2
    assert _flags("--target-version", "not-a-version")[0] == 2


def test_needs_exactly_one_question() -> None:
    assert _flags()[0] == 2
    assert _flags("--target-version", "0.32.0", "--diff", "0.31.0", "0.32.0")[0] == 2


def test_added_removed_and_lifetimes() -> None:
    added, removed = catalog.added_removed(Version("0.31.0"), Version("0.32.0"))
    assert "--grpc-port" in added and "--grpc-port" not in removed
    assert catalog.added_removed(Version("0.32.0"), Version("0.31.0")) == (removed, added)
    life = catalog.option_lifetimes("serve")["--grpc-port"]
    assert life.first == Version("0.32.0")
    assert not life.present_in(Version("0.31.0")) and life.present_in(Version("0.32.0"))
    always = catalog.option_lifetimes("serve")["--max-num-seqs"]
    assert always.first <= _with_serve()[0] and always.last == RELEASES[-1]


def test_a_release_without_vllm_serve_lists_its_api_server_options() -> None:
    without = [v for v in RELEASES if not catalog.has_entry(v, "serve")]
    if not without:
        pytest.skip("every known release has vllm serve")
    version = without[0]
    parser = catalog.load(version).parser("api_server")
    assert parser is not None and catalog.load(version).parser("serve") is None
    code, out, _ = _flags("--target-version", str(version))
    assert code == 0 and out.splitlines() == sorted(parser.by_string)
    assert _flags("--target-version", str(version), "--entry", "serve")[0] == 2
    code, out, err = _flags("--diff", str(version), str(RELEASES[-1]))
    assert code == 0 and "has no `vllm serve`" in err
    assert "+ --max-num-batched-tokens" not in out  # both parsers have it


def test_json_output_has_the_same_answers_as_text() -> None:
    import json

    newest = str(RELEASES[-1])
    code, out, _ = _flags("--target-version", newest, "--output-format", "json")
    assert code == 0
    listed = json.loads(out)
    assert listed["release"] == newest and listed["entry"] == "serve"
    assert listed["options"] == _flags("--target-version", newest)[1].splitlines()
    code, out, _ = _flags("--diff", "0.31.0", "0.32.0", "--output-format", "json")
    changed = json.loads(out)
    text = _flags("--diff", "0.31.0", "0.32.0")[1].splitlines()
    assert [f"+ {s}" for s in changed["added"]] + [f"- {s}" for s in changed["removed"]] == text
    assert "--grpc-port" in changed["added"]
