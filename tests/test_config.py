"""Configuration files: discovery, every key, precedence of flags, and invalid-config messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._support.files import write_tree
from vlint.cli import main

# VL202 (warning) at 1:39, VL101 (error) at 1:43 and VL107 (error) at 1:58 in vLLM 0.33.0.
SCRIPT = "vllm serve m --max-num-batched-tokens 16k --swap-areas 4 x\n"
WARNING_ONLY = "vllm serve m --max-num-batched-tokens 16k\n"


def _run(
    capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, list[tuple[str, str, str]], str]:
    code = main(["--output-format", "json", "--target-version", "0.33.0", *args])
    out, err = capsys.readouterr()
    if code == 2:
        return code, [], err
    findings = json.loads(out)["findings"]
    return code, [(Path(f["path"]).name, f["code"], f["severity"]) for f in findings], err


def _codes(found: list[tuple[str, str, str]]) -> list[str]:
    return [code for _, code, _ in found]


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_no_config_reports_everything(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path, {"run.sh": SCRIPT})
    code, found, _ = _run(capsys, "run.sh")
    assert code == 1
    assert _codes(found) == ["VL202", "VL101", "VL107"]


def test_vlint_toml_select(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path, {"vlint.toml": 'select = ["VL2"]\n', "run.sh": SCRIPT})
    assert _codes(_run(capsys, "run.sh")[1]) == ["VL202"]


def test_dot_vlint_toml_ignore(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path, {".vlint.toml": 'ignore = ["vl1"]\n', "run.sh": SCRIPT})
    assert _codes(_run(capsys, "run.sh")[1]) == ["VL202"]


def test_pyproject_tool_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pyproject = '[project]\nname = "x"\n\n[tool.vlint]\nignore = ["VL202"]\n'
    write_tree(tmp_path, {"pyproject.toml": pyproject, "run.sh": SCRIPT})
    assert _codes(_run(capsys, "run.sh")[1]) == ["VL101", "VL107"]


def test_vlint_toml_beats_pyproject_in_the_same_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(tmp_path, {"pyproject.toml": '[tool.vlint]\nignore = ["VL202"]\n',
                     "vlint.toml": 'ignore = ["VL101"]\n', "run.sh": SCRIPT})
    assert _codes(_run(capsys, "run.sh")[1]) == ["VL202", "VL107"]


def test_discovery_walks_up_and_nearest_wins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(tmp_path, {"vlint.toml": 'ignore = ["VL101"]\n',
                     "deploy/pyproject.toml": '[tool.vlint]\nignore = ["VL107"]\n',
                     "deploy/a/b/run.sh": SCRIPT, "other/run.sh": SCRIPT})
    assert _codes(_run(capsys, "deploy/a/b/run.sh")[1]) == ["VL202", "VL101"]
    assert _codes(_run(capsys, "other/run.sh")[1]) == ["VL202", "VL107"]


def test_pyproject_without_the_table_is_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(tmp_path, {"vlint.toml": 'ignore = ["VL101"]\n',
                     "sub/pyproject.toml": '[project]\nname = "x"\n', "sub/run.sh": SCRIPT})
    assert _codes(_run(capsys, "sub/run.sh")[1]) == ["VL202", "VL107"]


def test_cli_flags_override_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path, {"vlint.toml": 'select = ["VL2"]\nignore = ["VL107"]\n', "run.sh": SCRIPT})
    assert _codes(_run(capsys, "run.sh", "--select", "VL1")[1]) == ["VL101"]
    assert _codes(_run(capsys, "run.sh", "--ignore", "VL3")[1]) == ["VL202"]
    assert _codes(_run(capsys, "run.sh", "--select", "ALL", "--ignore", "VL2")[1]) == [
        "VL101", "VL107"]


def test_extend_select_adds_to_config_select(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(tmp_path, {"vlint.toml": 'select = ["VL2"]\nextend-select = ["VL107"]\n',
                     "run.sh": SCRIPT})
    assert _codes(_run(capsys, "run.sh")[1]) == ["VL202", "VL107"]
    assert _codes(_run(capsys, "run.sh", "--extend-select", "VL101")[1]) == [
        "VL202", "VL101", "VL107"]


def test_target_version_key_and_flag_precedence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(tmp_path, {"vlint.toml": 'target-version = "0.31.0"\n', "run.sh": SCRIPT})
    assert main(["--output-format", "json", "run.sh"]) == 1
    assert json.loads(capsys.readouterr().out)["target"] == ["0.31.0"]
    main(["--output-format", "json", "--target-version", "0.32.0", "run.sh"])
    assert json.loads(capsys.readouterr().out)["target"] == ["0.32.0"]


def test_per_file_ignores_globs_are_relative_to_the_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = '[per-file-ignores]\n"legacy/" = ["VL1"]\n"*.bash" = ["VL202"]\n"/top.sh" = ["ALL"]\n'
    write_tree(tmp_path, {"vlint.toml": config, "legacy/run.sh": SCRIPT, "new/run.bash": SCRIPT,
                     "top.sh": SCRIPT, "new/top.sh": WARNING_ONLY})
    _, found, _ = _run(capsys, ".")
    assert found == [
        ("run.sh", "VL202", "warning"),
        ("run.bash", "VL101", "error"),
        ("run.bash", "VL107", "error"),
        ("top.sh", "VL202", "warning"),
    ]
    assert [f[0] for f in found].count("top.sh") == 1


def test_exclude_applies_during_discovery_and_to_named_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(tmp_path, {"vlint.toml": 'exclude = ["generated/", "*.tmp.sh"]\n',
                     "generated/run.sh": SCRIPT, "a.tmp.sh": SCRIPT, "keep.sh": WARNING_ONLY})
    assert _run(capsys, ".")[1] == [("keep.sh", "VL202", "warning")]
    assert _run(capsys, "generated/run.sh")[1] == []


def test_severity_override_changes_json_and_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(tmp_path, {"vlint.toml": '[severity]\nVL202 = "info"\n', "run.sh": WARNING_ONLY})
    code, found, _ = _run(capsys, "run.sh")
    assert found == [("run.sh", "VL202", "info")]
    assert code == 0


def test_severity_override_longest_prefix_wins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = '[severity]\nALL = "info"\nVL1 = "warning"\nVL107 = "error"\n'
    write_tree(tmp_path, {"vlint.toml": config, "run.sh": SCRIPT})
    assert _run(capsys, "run.sh")[1] == [
        ("run.sh", "VL202", "info"), ("run.sh", "VL101", "warning"), ("run.sh", "VL107", "error")]


@pytest.mark.parametrize(("fail_on", "expected"), [("error", 0), ("warning", 1), ("info", 1)])
def test_fail_on_threshold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fail_on: str, expected: int
) -> None:
    write_tree(tmp_path, {"vlint.toml": f'fail-on = "{fail_on}"\n', "run.sh": WARNING_ONLY})
    assert _run(capsys, "run.sh")[0] == expected


def test_fail_on_info_fails_on_an_info(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = 'fail-on = "info"\n[severity]\nVL202 = "info"\n'
    write_tree(tmp_path, {"vlint.toml": config, "run.sh": WARNING_ONLY})
    assert _run(capsys, "run.sh")[0] == 1


LIVENESS = """\
apiVersion: v1
kind: Pod
metadata: {name: a}
spec:
  containers:
    - name: vllm
      image: vllm/vllm-openai:v0.33.0
      args: ["m"]
      livenessProbe:
        httpGet: {path: /health, port: 8000}
        initialDelaySeconds: 90
"""


@pytest.mark.parametrize(("config", "expected"), [
    ("", []),                           # 90 + 3 x 10 = 120 s: not below the default, 120
    ("liveness-budget = 300\n", ["VL612"]),
    ("liveness-budget = 121\n", ["VL612"]),
    ("liveness-budget = 0\n", []),     # off
])
def test_the_liveness_budget_is_the_configuration_s(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], config: str, expected: list[str]
) -> None:
    write_tree(tmp_path, {"vlint.toml": config + 'select = ["VL612"]\n', "pod.yaml": LIVENESS})
    assert _codes(_run(capsys, "pod.yaml")[1]) == expected


def test_explicit_config_and_isolated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path, {"vlint.toml": 'ignore = ["VL1"]\n', "ci/strict.toml": 'select = ["VL101"]\n',
                     "run.sh": SCRIPT})
    assert _codes(_run(capsys, "run.sh", "--config", "ci/strict.toml")[1]) == ["VL101"]
    assert _codes(_run(capsys, "run.sh", "--isolated")[1]) == ["VL202", "VL101", "VL107"]
    code, _, err = _run(capsys, "run.sh", "--isolated", "--config", "vlint.toml")
    assert code == 2 and "cannot be combined" in err


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ('selct = ["VL2"]\n',
         "unknown key 'selct' in the file; allowed keys: exclude, extend-select, extends, fail-on, "
         "ignore, liveness-budget, per-file-ignores, policies, policy-packs, select, severity, "
         "target-version"),
        ("liveness-budget = -1\n", "liveness-budget: input should be greater than or equal to 0"),
        ('fail-on = "fatal"\n', "fail-on: 'fatal' is not one of error, warning, info"),
        ('[severity]\nVL202 = "high"\n',
         "severity.VL202: 'high' is not one of error, warning, info"),
        ('select = ["E501"]\n',
         "select: 'E501' is not a vlint code or prefix (VL202, VL2 or ALL) or a policy id"),
        ('exclude = "build"\n', "exclude: input should be a valid list (got 'build')"),
        ('target-version = "0.1.0"\n', "target-version '0.1.0' is not a release or range vlint "
         "knows; use one within vLLM "),
        ("select = [\n", "not valid TOML"),
    ],
)
def test_bad_key_or_value_is_exit_2_with_the_remedy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], config: str, expected: str
) -> None:
    write_tree(tmp_path, {"vlint.toml": config, "run.sh": SCRIPT})
    code, _, err = _run(capsys, "run.sh")
    assert code == 2
    assert err.startswith(f"invalid config: {tmp_path / 'vlint.toml'}: ")
    assert expected in err


def test_bad_key_in_pyproject_names_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(tmp_path, {"pyproject.toml": '[tool.vlint]\ntarget = "0.33.0"\n', "run.sh": SCRIPT})
    code, _, err = _run(capsys, "run.sh")
    assert code == 2 and "unknown key 'target' in [tool.vlint]" in err


def test_stdin_filename_finds_the_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    write_tree(tmp_path, {"svc/vlint.toml": 'ignore = ["VL1"]\n'})
    monkeypatch.setattr("sys.stdin", io.StringIO(SCRIPT))
    assert _codes(_run(capsys, "-", "--stdin-filename", "svc/run.sh")[1]) == ["VL202"]
