"""Configuration per file, within the repository, never ignored when broken.

Each file uses the nearest configuration file at or above it, never one above its repository's
root; the command line overrides every file's configuration; ``--config`` and ``--isolated``
apply to all files.  A configuration never reads files outside its repository and a broken one
is exit 2 with the file and the position.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._support.files import write_tree
from vlint.cli import main

# VL202 (warning) at 1:39 and VL101 (error) at 1:43 in vLLM 0.33.0.
SCRIPT = "vllm serve m --max-num-batched-tokens 16k --swap-areas 4\n"
WARNING_ONLY = "vllm serve m --max-num-batched-tokens 16k\n"
ALL = ["VL202", "VL101"]


@pytest.fixture(autouse=True)
def _repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "repo")


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, list[str]], str]:
    code = main(["--output-format", "json", "--target-version", "0.33.0", *args])
    out, err = capsys.readouterr()
    if code == 2:
        return code, {}, err
    found: dict[str, list[str]] = {}
    for finding in json.loads(out)["findings"]:
        found.setdefault(finding["path"], []).append(finding["code"])
    return code, found, err


def test_a_nested_config_governs_only_its_own_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # pre-commit and the Action pass every changed file: the first one's folder must not
    # choose the configuration of the others.
    write_tree(tmp_path / "repo", {"aaa/pyproject.toml": '[tool.vlint]\nselect = ["VL001"]\n',
                              "aaa/x.sh": SCRIPT, "deploy/bad.sh": SCRIPT})
    code, found, _ = _run(capsys, "aaa/x.sh", "deploy/bad.sh")
    assert code == 1
    assert found == {"deploy/bad.sh": ALL}
    # The same when the folder is walked.
    code, found, _ = _run(capsys, ".")
    assert code == 1 and found == {"deploy/bad.sh": ALL}


def test_each_file_takes_its_nearest_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(tmp_path / "repo", {"vlint.toml": 'ignore = ["VL101"]\n', "top.sh": SCRIPT,
                              "svc/.vlint.toml": 'ignore = ["VL2"]\n', "svc/a/run.sh": SCRIPT,
                              "other/run.sh": SCRIPT})
    _, found, _ = _run(capsys, "top.sh", "svc/a/run.sh", "other/run.sh")
    assert found == {"top.sh": ["VL202"], "svc/a/run.sh": ["VL101"], "other/run.sh": ["VL202"]}


def test_the_search_stops_at_the_repository_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(tmp_path, {"vlint.toml": 'select = ["VL001"]\n', "repo/run.sh": SCRIPT})
    code, found, _ = _run(capsys, "run.sh")
    assert code == 1 and found == {"run.sh": ALL}


def test_the_command_line_overrides_every_files_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(tmp_path / "repo", {"aaa/vlint.toml": 'select = ["VL001"]\n', "aaa/x.sh": SCRIPT,
                              "bbb/vlint.toml": 'select = ["VL2"]\n', "bbb/y.sh": SCRIPT})
    _, found, _ = _run(capsys, "--select", "VL1", "aaa/x.sh", "bbb/y.sh")
    assert found == {"aaa/x.sh": ["VL101"], "bbb/y.sh": ["VL101"]}


def test_config_and_isolated_apply_to_all_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(tmp_path / "repo", {"aaa/vlint.toml": 'select = ["VL001"]\n', "aaa/x.sh": SCRIPT,
                              "ci/strict.toml": 'select = ["VL101"]\n', "deploy/y.sh": SCRIPT})
    _, found, _ = _run(capsys, "--isolated", "aaa/x.sh", "deploy/y.sh")
    assert found == {"aaa/x.sh": ALL, "deploy/y.sh": ALL}
    _, found, _ = _run(capsys, "--config", "ci/strict.toml", "aaa/x.sh", "deploy/y.sh")
    assert found == {"aaa/x.sh": ["VL101"], "deploy/y.sh": ["VL101"]}


def test_fail_on_is_per_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path / "repo", {"aaa/vlint.toml": 'fail-on = "error"\n', "aaa/x.sh": WARNING_ONLY,
                              "deploy/y.sh": WARNING_ONLY})
    assert _run(capsys, "aaa/x.sh")[0] == 0
    assert _run(capsys, "aaa/x.sh", "deploy/y.sh")[0] == 1


def test_exclude_and_per_file_ignores_are_per_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(tmp_path / "repo", {
        "aaa/vlint.toml": 'exclude = ["gen/"]\n[per-file-ignores]\n"*.sh" = ["VL101"]\n',
        "aaa/gen/x.sh": SCRIPT, "aaa/x.sh": SCRIPT, "gen/y.sh": SCRIPT})
    _, found, _ = _run(capsys, ".")
    assert found == {"aaa/x.sh": ["VL202"], "gen/y.sh": ALL}
    _, found, _ = _run(capsys, "aaa/gen/x.sh", "gen/y.sh")
    assert found == {"gen/y.sh": ALL}


def test_jobs_give_the_same_output_with_configs_per_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {f"s{i}/vlint.toml": f'ignore = ["{["VL101", "VL2", "VL3"][i % 3]}"]\n'
             for i in range(6)}
    files.update({f"s{i}/run{j}.sh": SCRIPT for i in range(6) for j in range(3)})
    write_tree(tmp_path / "repo", files)
    outputs = []
    for jobs in ("1", "2", "5"):
        assert main(["--output-format", "json", "--target-version", "0.33.0", "--jobs", jobs,
                     "."]) == 1
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] == outputs[2]
    found = json.loads(outputs[0])["findings"]
    assert [f["code"] for f in found if f["path"] == "s1/run0.sh"] == ["VL101"]


def test_a_broken_pyproject_is_exit_2_with_the_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(tmp_path / "repo", {"pyproject.toml": '[project]\nname = "x"\n[tool.vlint]\nselect = ["VL2" "VL3"]\n',
                              "run.sh": SCRIPT})
    code, _, err = _run(capsys, "run.sh")
    assert code == 2
    assert err.startswith(f"invalid config: {tmp_path / 'repo' / 'pyproject.toml'}: not valid TOML")
    assert "(at line 4, column 17)" in err


@pytest.mark.parametrize("name", ["../outside.yaml", "link.yaml", "/etc/passwd"])
def test_policies_never_read_outside_the_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    secret = ("policies:\n  - id: ORG001\n    severity: error\n    message: TOPSECRET-42\n"
              "    help: TOPSECRET-42\n    rule: {setting: max_num_seqs, op: absent}\n")
    write_tree(tmp_path, {"outside.yaml": secret})
    (tmp_path / "repo" / "link.yaml").symlink_to(tmp_path / "outside.yaml")
    write_tree(tmp_path / "repo", {"vlint.toml": f"policies = [{name!r}]\n", "run.sh": SCRIPT})
    code, out, err = main(["--target-version", "0.33.0", "run.sh"]), *capsys.readouterr()
    assert code == 2
    assert f"invalid config: {tmp_path / 'repo' / 'vlint.toml'}: policies: " in err
    assert repr(name) in err
    assert "TOPSECRET" not in out + err and "root:" not in out + err


def test_a_config_file_that_leaves_the_repository_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(tmp_path, {"elsewhere.toml": 'select = ["VL001"]\n', "repo/run.sh": SCRIPT})
    (tmp_path / "repo" / "vlint.toml").symlink_to(tmp_path / "elsewhere.toml")
    code, _, err = _run(capsys, "run.sh")
    assert code == 2
    assert f"invalid config: {tmp_path / 'repo' / 'vlint.toml'}: " in err
