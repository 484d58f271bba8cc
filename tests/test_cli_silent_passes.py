"""Runs that used to pass in silence (issue 13): unknown codes, paths given twice, nothing to
check, standard input, and fixes the targeted releases disagree on."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from vlint.cli import main

UNKNOWN_FLAG = "vllm serve m --no-such-flag\n"
POLICY = (
    "policies:\n  - id: ORG001\n    severity: error\n    message: no eager here\n"
    "    rule: {setting: enforce_eager, op: exists}\n"
)


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    (tmp_path / ".git").mkdir()
    (tmp_path / "run.sh").write_text(UNKNOWN_FLAG, "utf-8")
    return tmp_path


def _stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))


# 1. Unknown codes are usage errors


@pytest.mark.parametrize("args", [
    ["--select", "VL999"], ["--select", "FOO"], ["--extend-select", "VL999"],
    ["--ignore", "VL99X"], ["--select", "VL101,VLP999"], ["--ignore", "ORG001"],
])
def test_unknown_code_on_the_command_line(
    args: list[str], work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*args, "run.sh"]) == 2
    captured = capsys.readouterr()
    assert "All checks passed" not in captured.out
    assert "unknown code" in captured.err


@pytest.mark.parametrize(("written", "meant"), [
    ("VL1O1", "VL101"), ("unknown-flg", "unknown-flag"), ("VL2022", "VL202"),
])
def test_unknown_code_says_what_was_meant(
    written: str, meant: str, work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--select", written, "run.sh"]) == 2
    assert f"did you mean '{meant}'" in capsys.readouterr().err


@pytest.mark.parametrize("known", ["VL", "VL1", "VL10", "VL101", "ALL", "unknown-flag", "vl101"])
def test_known_codes_prefixes_and_names(
    known: str, work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--select", known, "--output-format", "concise", "run.sh"]) == 1
    assert "VL101" in capsys.readouterr().out


def test_built_in_and_configured_policy_ids_are_known(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--ignore", "VLP001", "run.sh"]) == 1
    assert main(["--select", "VLP9", "run.sh"]) == 2
    Path("policy.yaml").write_text(POLICY, "utf-8")
    Path("vlint.toml").write_text('policies = ["policy.yaml"]\n', "utf-8")
    capsys.readouterr()
    assert main(["--select", "ORG", "--output-format", "concise", "run.sh"]) == 1
    assert "ORG001" in capsys.readouterr().out
    assert main(["--select", "ORG002", "run.sh"]) == 2
    assert "did you mean 'ORG001'" in capsys.readouterr().err


@pytest.mark.parametrize("table", [
    'select = ["VL999"]', 'extend-select = ["FOO"]', 'ignore = ["VL99X"]',
    '[per-file-ignores]\n"*.sh" = ["VL1O1"]', '[severity]\nVL999 = "info"',
])
def test_unknown_code_in_the_configuration(
    table: str, work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("vlint.toml").write_text(table + "\n", "utf-8")
    assert main(["run.sh"]) == 2
    err = capsys.readouterr().err
    code = table.split('"')[-2] if table.startswith("[per") else table.split('"')[1]
    code = "VL999" if table.startswith("[sev") else code
    assert "invalid config" in err and "vlint.toml" in err and f"'{code}'" in err


def test_configuration_may_name_its_own_policies(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("policy.yaml").write_text(POLICY, "utf-8")
    Path("vlint.toml").write_text('policies = ["policy.yaml"]\nignore = ["ORG001"]\n', "utf-8")
    assert main(["--output-format", "concise", "run.sh"]) == 1
    assert "ORG001" not in capsys.readouterr().out


def test_confirm_and_show_share_the_validator(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["confirm", "--vllm-python", "/nonexistent", "--select", "VL999", "run.sh"]) == 2
    assert "unknown code 'VL999'" in capsys.readouterr().err
    Path("vlint.toml").write_text('select = ["VL999"]\n', "utf-8")
    assert main(["show", "run.sh"]) == 2
    assert "unknown code 'VL999'" in capsys.readouterr().err


def test_unknown_code_in_a_comment_is_a_finding(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("run.sh").write_text(
        "# vlint: ignore[VL999, FOO-BAR]\n" + UNKNOWN_FLAG + "echo ok  # vlint: ignore[V]\n",
        "utf-8",
    )
    assert main(["--output-format", "json", "run.sh"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    messages = sorted(f["message"] for f in findings if f["code"] == "VL001")
    assert len(messages) == 3
    for message, code in zip(messages, ["FOO-BAR", "V", "VL999"], strict=True):
        assert message.startswith(f"unknown code '{code}' in a suppression")
    # An unknown code suppresses nothing.
    assert any(f["code"] == "VL101" for f in findings)


def test_rule_name_in_a_comment(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Path("run.sh").write_text("# vlint: ignore[unknown-flag]\n" + UNKNOWN_FLAG, "utf-8")
    assert main(["--output-format", "concise", "run.sh"]) == 0
    assert "VL101" not in capsys.readouterr().out


# 2. Paths given twice are linted once


def test_paths_given_twice_are_linted_once(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--output-format", "json", "run.sh", "./run.sh", ".", str(work)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [f["code"] for f in report["findings"]] == ["VL101"]
    assert report["summary"]["files"] == 1


# 3. Nothing to check


def test_no_launch_found_warns(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Path("run.sh").write_text("echo hello\n", "utf-8")
    Path("b.sh").write_text("echo vllm is great\n", "utf-8")
    assert main(["run.sh", "b.sh"]) == 0
    assert "no vLLM launch found in 2 files: nothing was checked" in capsys.readouterr().err
    assert main(["--fail-on-empty", "run.sh", "b.sh"]) == 1
    assert main(["--fail-on-empty", "--exit-zero", "run.sh", "b.sh"]) == 1
    capsys.readouterr()
    assert main(["--fail-on-empty", "-qq", "run.sh", "b.sh"]) == 1
    assert capsys.readouterr().err == ""


def test_fail_on_empty_passes_when_a_launch_is_checked(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("run.sh").write_text("vllm serve m\n", "utf-8")
    assert main(["--fail-on-empty", "--target-version", "0.33.0", "run.sh"]) == 0
    assert "nothing was checked" not in capsys.readouterr().err


def test_stdin_of_unknown_kind_is_shell(
    work: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stdin(monkeypatch, UNKNOWN_FLAG)
    assert main(["--output-format", "concise", "-"]) == 1
    captured = capsys.readouterr()
    assert "VL101" in captured.out
    assert "standard input linted as shell" in captured.err
    assert "--stdin-filename NAME" in captured.err


def test_stdin_filename_implies_stdin(
    work: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stdin(monkeypatch, "services:\n  a:\n    image: vllm/vllm-openai:v0.33.0\n"
                        "    command: [--no-such-flag]\n")
    assert main(["--output-format", "concise", "--stdin-filename", "compose.yaml"]) == 1
    captured = capsys.readouterr()
    assert "compose.yaml:4" in captured.out and "VL101" in captured.out
    assert "linted as shell" not in captured.err


# 4. --fix and --diff on standard input

FIXABLE = "vllm serve m --max-num-batched-tokens=16k\n"
FIXED = "vllm serve m --max-num-batched-tokens=16000\n"


def test_fix_stdin_prints_the_fixed_text(
    work: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stdin(monkeypatch, FIXABLE)
    assert main(["--fix", "--target-version", "0.33.0", "-"]) == 0
    captured = capsys.readouterr()
    assert captured.out == FIXED
    assert "Applied 1 fix to 1 file" in captured.err


def test_fix_stdin_with_remaining_findings(
    work: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stdin(monkeypatch, FIXABLE + UNKNOWN_FLAG)
    assert main(["--fix", "--target-version", "0.33.0", "--stdin-filename", "x.sh"]) == 1
    captured = capsys.readouterr()
    assert captured.out == FIXED + UNKNOWN_FLAG
    assert "VL101" in captured.err and "VL202" not in captured.err


def test_fix_stdin_unchanged_is_printed_as_read(
    work: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stdin(monkeypatch, "echo hello\n")
    assert main(["--fix", "-qq", "-"]) == 0
    assert capsys.readouterr().out == "echo hello\n"


def test_diff_stdin_prints_the_diff(
    work: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stdin(monkeypatch, FIXABLE)
    assert main(["--diff", "--target-version", "0.33.0", "--stdin-filename", "x.sh"]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith("--- a/x.sh\n+++ b/x.sh\n")
    assert "-" + FIXABLE in captured.out and "+" + FIXED in captured.out
    assert "Would apply 1 fix to 1 file" in captured.err


# 5. A fix the targeted releases disagree on says why


def test_fix_not_applied_across_a_range_says_why(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("run.sh").write_text("vllm serve m --enable-chunked-prefill=false\n", "utf-8")
    assert main(["--target-version", ">=0.31,<0.34", "run.sh"]) == 1
    out = capsys.readouterr().out
    why = ("not fixed: 0.31.0 and 0.32.0 spell it '--no-enable-chunked-prefill', 0.33.0 "
           "'--disable-chunked-prefill'; pick one with --target-version")
    assert out.count(why) == 2
    assert "note: 2 fixes not applied: the targeted releases disagree" in out
    assert main(["--fix", "--target-version", ">=0.31,<0.34", "run.sh"]) == 1
    assert "2 fixes not applied" in capsys.readouterr().out


def test_fix_for_some_releases_only_says_why(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("run.sh").write_text("vllm serve m --max-num-batched-tokens=16k\n", "utf-8")
    assert main(["--target-version", ">=0.9,<0.10", "run.sh"]) == 1
    out = capsys.readouterr().out
    assert ("not fixed: 0.9.1 and 0.9.2 spell it '16000', VL202 does not apply to 0.9.0 and "
            "0.9.0.1; pick one with --target-version") in out
    assert "note: 1 fix not applied" in out
    assert main(["--target-version", "0.9.2", "run.sh"]) == 1
    out = capsys.readouterr().out
    assert "not fixed" not in out and "not applied" not in out


def test_rule_names_are_their_module_names() -> None:
    # vlint.filter.selection maps rule names to codes by module name, without importing the rules.
    from vlint.checks import MODULES, rule_module

    for code, module in MODULES.items():
        assert rule_module(code).RULE.name == module.replace("_", "-")
