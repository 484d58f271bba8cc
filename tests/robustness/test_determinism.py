"""The same files give the same output in every process: nothing depends on the hash seed (set
iteration order) or on the order files are found in."""

from __future__ import annotations

from tests._support.run import ROOT, vlint_process


def _run(seed: str, *paths: str) -> str:
    result = vlint_process(
        ["--isolated", "--output-format", "json", "--target-version", ">=0.30", *paths],
        ROOT, env={"PYTHONHASHSEED": seed},
    )
    assert result.returncode in (0, 1), result.stderr
    return result.stdout + result.stderr


def test_output_does_not_depend_on_the_hash_seed() -> None:
    paths = ("examples", "tests/golden")
    assert _run("1", *paths) == _run("4242", *paths)
