"""What a ruff or zizmor user expects of vlint's command line in the first hour (issue 13)."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest

from vlint.cli import main

ROOT = Path(__file__).parent.parent
# A safe fix (VL202), a line of hostile bytes next to it, and a legacy workflow command.
FIXABLE = (
    "vllm serve m --max-num-batched-tokens=16k\n"
    "echo '\x1b]0;owned\x07 ##[group]x'\n"
)
SGR = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    (tmp_path / "run.sh").write_text(FIXABLE, "utf-8")
    return tmp_path


def _on_tty(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    """vlint run with stdout and stderr on a pseudo-terminal: what the terminal received."""
    leader, follower = pty.openpty()
    environ = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "NO_COLOR")}
    environ.update(env or {})
    environ["PYTHONPATH"] = str(ROOT / "linter")
    process = subprocess.Popen(
        [sys.executable, "-m", "vlint", *args], cwd=cwd, env=environ,
        stdin=subprocess.DEVNULL, stdout=follower, stderr=follower,
    )
    os.close(follower)
    received = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the follower closed: the process ended
            break
        if not chunk:
            break
        received += chunk
    process.wait(60)
    os.close(leader)
    return received.decode("utf-8", "replace").replace("\r\n", "\n")


# 1. --diff


def test_diff_is_raw_when_piped(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--diff", "run.sh", "--target-version", "0.32.0"]) == 1
    out = capsys.readouterr().out
    assert "+vllm serve m --max-num-batched-tokens=16000\n" in out
    assert " echo '\x1b]0;owned\x07 ##[group]x'\n" in out  # applies with `patch -p1`


def test_diff_is_escaped_under_github_actions(
    work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert main(["--diff", "run.sh", "--target-version", "0.32.0"]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out and "##[" not in out
    assert " echo '\\x1b]0;owned\\x07 ##\\[group]x'\n" in out


def test_diff_is_escaped_on_a_terminal(work: Path) -> None:
    out = _on_tty(["--diff", "run.sh", "--target-version", "0.32.0"], work)
    assert "\x1b]" not in out and "\x07" not in out
    assert "echo '\\x1b]0;owned\\x07 ##\\[group]x'" in out


def test_help_documents_the_diff_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--help"]) == 0
    assert "escaped on a terminal" in " ".join(capsys.readouterr().out.split())


# 2. colour, progress, statistics, quiet, fixable markers, plurals


def test_colour_on_a_terminal_only(work: Path) -> None:
    coloured = _on_tty(["run.sh", "--target-version", "0.32.0"], work)
    assert SGR.search(coloured)
    # Only vlint's own colour codes reach the terminal: the file's escape is made visible.
    assert "\x1b" not in SGR.sub("", coloured)
    assert "\\x1b]0;owned\\x07" in coloured or "owned" not in coloured
    for env in ({"NO_COLOR": "1"}, {}):
        args = ["run.sh", "--target-version", "0.32.0"]
        args += [] if env else ["--color", "never"]
        assert "\x1b" not in _on_tty(args, work, env)


def test_no_colour_when_piped_unless_always(
    work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    main(["run.sh", "--target-version", "0.32.0"])
    assert "\x1b" not in capsys.readouterr().out
    monkeypatch.setenv("NO_COLOR", "1")
    main(["run.sh", "--target-version", "0.32.0", "--color", "always"])
    out = capsys.readouterr().out
    assert SGR.search(out) and "\x1b" not in SGR.sub("", out)
    main(["run.sh", "--target-version", "0.32.0", "--color", "always", "--output-format",
          "concise"])
    assert SGR.search(capsys.readouterr().out)


def test_progress_is_redrawn_and_cleared() -> None:
    import io
    import time

    from vlint.render.progress import Progress

    stream = io.StringIO()
    progress = Progress(stream, delay=0.0, interval=0.01)
    progress.start()
    time.sleep(0.2)
    progress.stop()
    text = stream.getvalue()
    assert text.startswith("\r") and "linting" in text
    assert text.endswith("\r\x1b[K")


def test_no_progress_when_not_a_terminal(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["run.sh", "--target-version", "0.32.0"])
    assert "\r" not in capsys.readouterr().err
    assert main(["run.sh", "--target-version", "0.32.0", "--no-progress"]) == 1


def test_statistics(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Path("two.sh").write_text("vllm serve m --max-num-batched-tokens=8k --foo\n", "utf-8")
    assert main([".", "--target-version", "0.32.0", "--statistics"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["2", "VL202", "[*]", "ambiguous-unit-suffix"]
    assert lines[1].split() == ["1", "VL101", "unknown-flag"]
    main([".", "--target-version", "0.32.0", "--statistics", "--output-format", "json"])
    rows = json.loads(capsys.readouterr().out)
    assert rows[0] == {"code": "VL202", "name": "ambiguous-unit-suffix", "count": 2,
                       "fixable": 2}


def test_quiet_prints_findings_only(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run.sh", "-q"]) == 1
    captured = capsys.readouterr()
    assert "VL202" in captured.out
    assert "Found" not in captured.out and "note:" not in captured.out + captured.err
    assert main(["run.sh", "-qq"]) == 1
    assert capsys.readouterr() == ("", "")


def test_fixable_markers_and_summary(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Path("run.sh").write_text(
        "vllm serve m --max-num-batched-tokens=16k --max-num-seqs 1 --max-num-seqs 2\n", "utf-8"
    )
    main(["run.sh", "--target-version", "0.32.0"])
    out = capsys.readouterr().out
    assert "run.sh:1:39: VL202 [*] [warning] " in out
    assert "\n[*] 1 fixable with `--fix`" in out
    main(["run.sh", "--target-version", "0.32.0", "--output-format", "concise"])
    concise = capsys.readouterr().out
    assert "run.sh:1:39: VL202 [*] [warning] " in concise
    assert re.search(r"VL\d+ \[error\] ", concise) or re.search(r"VL\d+ \[warning\] ", concise)


def test_unsafe_fixes_are_counted(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Path("run.sh").write_text("vllm serve m --max-num-seqz 4 --max-num-batched-tokens=16k\n",
                              "utf-8")
    main(["run.sh", "--target-version", "0.32.0"])
    out = capsys.readouterr().out
    assert "run.sh:1:14: VL101 [error] " in out  # its only fix is unsafe: no marker
    assert "[*] 1 fixable with `--fix` (1 more with `--unsafe-fixes`)." in out


def test_real_plurals(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Path("run.sh").write_text("vllm serve m --max-num-batched-tokens=16k\n", "utf-8")
    main(["run.sh", "--target-version", "0.32.0"])
    out = capsys.readouterr().out
    assert ("Found 1 problem (1 warning) in 1 file, 1 vLLM invocation; checked against "
            "vLLM 0.32.0.") in out
    assert "(s)" not in out
    main(["run.sh", "--target-version", "0.32.0", "--fix"])
    assert "Applied 1 fix to 1 file." in capsys.readouterr().out
    Path("run.sh").write_text("vllm serve m --max-num-batched-tokens=16k\n", "utf-8")
    main(["run.sh", "--target-version", "0.32.0", "--diff"])
    assert "Would apply 1 fix to 1 file." in capsys.readouterr().err
    Path("b.sh").write_text("vllm serve m\nvllm serve m\n", "utf-8")
    main(["b.sh", "--target-version", "0.32.0"])
    assert "All checks passed: 1 file, 2 vLLM invocations;" in capsys.readouterr().out


# 3. vlint show


def test_show_resolves_the_release_as_check_does(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("vlint.toml").write_text('target-version = "0.10.0"\n', "utf-8")
    Path("run.sh").write_text("vllm serve my/model --max-num-seqs 4\n", "utf-8")
    assert main(["show"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "run.sh:1:1: vllm serve, model 'my/model', vLLM 0.10.0"
    assert main(["show", "--isolated", "run.sh"]) == 0
    assert "note: no target release given or pinned" in capsys.readouterr().out
    other = work / "other.toml"
    other.write_text('[tool.vlint]\ntarget-version = "0.11.0"\n', "utf-8")
    Path("pyproject.toml").write_text('[tool.vlint]\ntarget-version = "0.11.0"\n', "utf-8")
    assert main(["show", "--config", "pyproject.toml", "run.sh"]) == 0
    assert ", vLLM 0.11.0" in capsys.readouterr().out.splitlines()[0]
    assert main(["show", "--target-version", "0.32.0", "run.sh"]) == 0
    assert ", vLLM 0.32.0" in capsys.readouterr().out.splitlines()[0]


def test_show_says_why_a_known_flag_was_rejected(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("run.sh").write_text("vllm serve m --enforce-eager=yes --max-num-seqs\n", "utf-8")
    assert main(["show", "run.sh", "--target-version", "0.32.0"]) == 0
    out = capsys.readouterr().out
    assert "--enforce-eager=yes" in out and "(rejected: takes no value)" in out
    assert "(rejected: needs a value)" in out
    assert "unknown to this release" not in out


@pytest.mark.parametrize(
    "command",
    [
        "HF_TOKEN={token} vllm serve m --api-key {key}\n",
        # A key before a token in one value: masking the later-found one first used to shift
        # the other's offsets and print most of the token.
        "vllm serve m --served-model-name {key},{token}\n",
    ],
)
def test_show_masks_secrets(
    work: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    key = "sk-" + "a1B2c3D4e5" * 3
    token = "hf_" + "Q" * 4 + "w9" * 16
    Path("run.sh").write_text(command.format(key=key, token=token), "utf-8")
    for fmt in ("text", "json"):
        assert main(["show", "run.sh", "--target-version", "0.32.0", "--output-format", fmt]) == 0
        out = capsys.readouterr().out
        assert key[:8] not in out and token[:8] not in out and "(masked)" in out


# 4. the same option names everywhere


@pytest.mark.parametrize("command", ["show", "rule VL202", "rules"])
def test_subcommands_take_output_format(command: str, work: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*command.split(), "--output-format", "json"]) == 0
    json.loads(capsys.readouterr().out)


def test_help_says_paths_mean_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "`vlint PATHS` means `vlint check PATHS`" in out
    assert "check Lint PATHS" in out


# 5. rule and rules as plain text


def test_rule_is_plain_wrapped_text(capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    assert main(["rule", "unknown-flag"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("VL101 unknown-flag ")
    assert "``" not in out
    assert all(len(line) <= 60 for line in out.splitlines() if " " in line.strip())
    assert main(["rule", "no-such-rule"]) == 2


def test_rule_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "VL101", "--output-format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["code"] == "VL101" and document["name"] == "unknown-flag"
    assert "What it does" in document["sections"]


def test_rules_lists_configured_policies(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Path("policy.yaml").write_text(
        "policies:\n  - id: ORG001\n    severity: error\n    message: no ``eager`` here\n"
        "    rule: {setting: enforce_eager, op: absent}\n", "utf-8")
    Path("vlint.toml").write_text('policies = ["policy.yaml"]\n', "utf-8")
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert "``" not in out
    (line,) = [line for line in out.splitlines() if line.startswith("ORG001")]
    assert "error" in line and "no eager here" in line
    assert main(["rules", "--output-format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {"code": "ORG001", "name": "org001", "severity": "error", "kind": "policy",
            "summary": "no ``eager`` here"} in rows


# 6. SARIF locations relative to the repository root


def test_sarif_uri_is_relative_to_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".git").mkdir()
    deploy = tmp_path / "deploy"
    deploy.mkdir()
    (deploy / "run.sh").write_text("vllm serve m --foo\n", "utf-8")
    runs = []
    for cwd, path in ((tmp_path, "deploy/run.sh"), (deploy, "run.sh")):
        monkeypatch.chdir(cwd)
        main([path, "--target-version", "0.32.0", "--output-format", "sarif", "--isolated"])
        runs.append(json.loads(capsys.readouterr().out)["runs"][0])
    for run in runs:
        location = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        assert location == {"uri": "deploy/run.sh", "uriBaseId": "%SRCROOT%"}
        assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": tmp_path.as_uri() + "/"}}
    first, second = (run["results"][0]["partialFingerprints"] for run in runs)
    assert first == second
