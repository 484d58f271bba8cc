"""One snapshot per output format, all rendering the same findings; plus the CLI contract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main
from vlint.render import RENDERERS

ROOT = Path(__file__).parent.parent
SNAPSHOTS = Path(__file__).parent / "snapshots"
INPUT = "tests/golden/shell/continuations-and-quotes.sh"
TARGET = "0.32.0"


@pytest.fixture(autouse=True)
def _in_repository_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _run(args: list[str], stdin: str | None = None) -> tuple[int, str]:
    code, stdout, _ = _run_both(args, stdin)
    return code, stdout


def _run_both(args: list[str], stdin: str | None = None) -> tuple[int, str, str]:
    runner = CliRunner()
    result = runner.invoke(_entry, args, input=stdin, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


import click  # noqa: E402


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def _entry(args: tuple[str, ...]) -> None:
    raise SystemExit(main(list(args)))


@pytest.mark.parametrize("fmt", sorted(RENDERERS))
def test_snapshot(fmt: str, request: pytest.FixtureRequest) -> None:
    code, output = _run([INPUT, "--target-version", TARGET, "--output-format", fmt])
    assert code == 1
    # SARIF names the checkout's folder (originalUriBaseIds): the same on every machine here.
    output = output.replace(ROOT.resolve().as_uri() + "/", "file:///checkout/")
    snapshot = SNAPSHOTS / f"{fmt}.txt"
    if request.config.getoption("--update-snapshots"):
        snapshot.write_text(output, "utf-8")
    assert output == snapshot.read_text("utf-8")


def test_json_shape_is_exactly_the_design() -> None:
    _, output = _run([INPUT, "--target-version", TARGET, "--output-format", "json"])
    document = json.loads(output)
    assert list(document) == ["version", "vlint", "target", "findings", "summary"]
    assert document["version"] == 1
    assert document["target"] == [TARGET]
    assert list(document["summary"]) == [
        "files", "invocations", "errors", "warnings", "infos", "invocations_by_kind"]
    assert sum(document["summary"]["invocations_by_kind"].values()) == (
        document["summary"]["invocations"])
    assert document["findings"], "the input has findings"
    for finding in document["findings"]:
        assert list(finding) == [
            "code", "name", "severity", "message", "help", "path", "line", "column",
            "end_line", "end_column", "vllm_versions", "fix", "confirmation", "related",
            "invocation",
        ]
        assert finding["vllm_versions"] == [TARGET]
    summary = document["summary"]
    assert summary["errors"] + summary["warnings"] + summary["infos"] == len(document["findings"])


def test_concise_lines() -> None:
    _, output = _run([INPUT, "--target-version", TARGET, "--output-format", "concise"])
    for line in output.splitlines():
        path, line_no, column, rest = line.split(":", 3)
        assert path == INPUT and int(line_no) > 0 and int(column) > 0
        assert rest.startswith(" VL")


def test_exit_codes() -> None:
    assert _run(["tests/golden/shell/not-vllm.sh"])[0] == 0
    assert _run([INPUT])[0] == 1
    assert _run([INPUT, "--exit-zero"])[0] == 0
    code, _, errors = _run_both([INPUT, "--target-version", "0.1.0"])
    assert code == 2 and "knows vLLM " in errors
    assert _run([INPUT, "--target-version", "<0.2"])[0] == 2
    assert _run([INPUT, "--target-version", "not-a-version"])[0] == 2
    assert _run([INPUT, "--output-format", "xml"])[0] == 2
    assert _run(["no/such/file.sh"])[0] == 2


def test_check_subcommand_is_the_same() -> None:
    assert _run([INPUT, "--output-format", "json"]) == _run(
        ["check", INPUT, "--output-format", "json"]
    )


def test_select_and_ignore() -> None:
    _, selected = _run([INPUT, "--output-format", "concise", "--select", "VL2"])
    assert selected and all(" VL2" in line for line in selected.splitlines())
    _, ignored = _run([INPUT, "--output-format", "concise", "--ignore", "VL2,VL1"])
    assert all(" VL2" not in line and " VL1" not in line for line in ignored.splitlines())


def test_stdin_with_filename() -> None:
    script = "vllm serve m --max-num-batched-tokens 16k\n"
    code, output = _run(
        ["-", "--stdin-filename", "run.sh", "--output-format", "concise"], stdin=script
    )
    assert code == 1
    assert output.startswith("run.sh:1:39: VL202 ")
