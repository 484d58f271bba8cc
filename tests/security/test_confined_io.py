"""vlint reads and writes only inside the linted repository (issue 12).

Each test builds an attack in ``tmp_path`` (a repository, ``repo/``, beside a folder it must
never reach, ``outside/``), runs vlint as a user would, and checks the safe outcome: the
outside bytes (``SECRET``) appear in no output format, the refused path gets a note, and
nothing outside is written.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vlint.knowledge import catalog
from vlint.cli import main

SECRET = "SECRETMARKER7f3a"
FORMATS = ("full", "json", "sarif", "github")
NEWEST = str(catalog.newest())


def _layout(tmp_path: Path) -> tuple[Path, Path]:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    (repo / ".git").mkdir(parents=True)
    outside.mkdir()
    return repo, outside


def _run(capsys: pytest.CaptureFixture[str], *argv: str, target: bool = True) -> list[str]:
    """Every output format's stdout and stderr for one command line."""
    shown = []
    for output_format in FORMATS:
        pinned = ["--target-version", NEWEST] if target else []
        code = main(["--isolated", *pinned, "--output-format", output_format, *argv])
        out, err = capsys.readouterr()
        assert code in (0, 1), out + err
        shown.append(out + err)
    return shown


def _never_shown(shown: list[str]) -> None:
    for text in shown:
        assert SECRET not in text


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object], str]:
    code = main(["--isolated", "--target-version", NEWEST, "--output-format", "json", *argv])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


# --- .env -----------------------------------------------------------------------------------

COMPOSE = ("services:\n  vllm:\n    image: vllm/vllm-openai:latest\n"
           "    command: [m, --max-model-len, '${LEN}', --max-num-seqs, '${SEQS:-8}']\n")


def test_a_dotenv_symlinked_out_of_the_repository_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, outside = _layout(tmp_path)
    (outside / "credentials").write_text(f"LEN={SECRET}\nSEQS={SECRET}\n")
    os.symlink(outside / "credentials", repo / ".env")
    (repo / "compose.yaml").write_text(COMPOSE)
    shown = _run(capsys, str(repo))
    _never_shown(shown)
    assert f"{repo / '.env'}: skipped (a symlink that leaves the repository)" in shown[0]
    # The values are unknown, not invented: '${SEQS:-8}' is not read as 8.
    _, report, _ = _json(capsys, str(repo))
    assert not [f for f in report["findings"] if "max-model-len" in str(f)]  # type: ignore[attr-defined]


def test_a_dotenv_symlinked_to_proc_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = _layout(tmp_path)
    os.symlink("/proc/self/environ", repo / ".env")
    (repo / "compose.yaml").write_text(COMPOSE)
    shown = _run(capsys, str(repo))
    assert f"{repo / '.env'}: skipped (a symlink that leaves the repository)" in shown[0]
    assert "PATH=" not in "".join(shown)


def test_dotenv_expansion_is_bounded_and_read_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = _layout(tmp_path)
    lines = ["X0=aaaaaaaaaa", *(f"X{i}=${{X{i - 1}}}${{X{i - 1}}}" for i in range(1, 11))]
    lines += [f"Y{i}=${{X10}}" for i in range(3000)]  # each 10 KiB, 30 MiB in all
    (repo / ".env").write_text("\n".join(lines) + "\n")
    assert (repo / ".env").stat().st_size < 40_000
    for index in range(5):
        (repo / f"compose-{index}.yaml").write_text(COMPOSE.replace("${LEN}", "${Y2999}"))
    started = time.monotonic()
    code, report, err = _json(capsys, str(repo))
    assert time.monotonic() - started < 20
    assert code in (0, 1)
    assert f"{repo / '.env'}: values expand to more than" in err
    assert not [f for f in report["findings"] if "max-model-len" in str(f)]  # type: ignore[attr-defined]


# --- vLLM --config references -----------------------------------------------------------------

def test_config_references_never_leave_the_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, outside = _layout(tmp_path)
    for name in ("absolute.yaml", "dotdot.yaml", "linked.yaml"):
        (outside / name).write_text(f"max-model-len: {SECRET}\nswap-space: {SECRET}\n")
    os.symlink(outside / "linked.yaml", repo / "link.yaml")
    os.symlink("/proc/self/environ", repo / "environ.yaml")
    (repo / "serve.sh").write_text(
        f"vllm serve m --config {outside / 'absolute.yaml'}\n"
        "vllm serve m --config ../outside/dotdot.yaml\n"
        "vllm serve m --config link.yaml\n"
        "vllm serve m --config environ.yaml\n"
    )
    shown = _run(capsys, str(repo))
    _never_shown(shown)
    assert "PATH=" not in "".join(shown)
    assert f"{outside / 'absolute.yaml'}: skipped (outside the linted repository)" in shown[0]
    assert f"{repo / '../outside/dotdot.yaml'}: skipped (outside the linted repository)" in shown[0]
    assert f"{repo / 'link.yaml'}: skipped (a symlink that leaves the repository)" in shown[0]
    assert f"{repo / 'environ.yaml'}: skipped (a symlink that leaves the repository)" in shown[0]


def test_a_config_inside_the_repository_is_still_linted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = _layout(tmp_path)
    (repo / "conf").mkdir()
    (repo / "conf" / "serve.yaml").write_text("max-model-len: 16k\n")
    (repo / "deploy").mkdir()
    (repo / "deploy" / "serve.sh").write_text("vllm serve m --config ../conf/serve.yaml\n")
    code, report, _ = _json(capsys, str(repo / "deploy"))
    assert code == 1
    assert [f["code"] for f in report["findings"]] == ["VL202"]  # type: ignore[attr-defined]


# --- linted files ---------------------------------------------------------------------------

def test_a_symlinked_file_leaving_the_repository_is_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, outside = _layout(tmp_path)
    (outside / "launch.sh").write_text(f"vllm serve m --max-model-len {SECRET}\n")
    os.symlink(outside / "launch.sh", repo / "launch.sh")
    os.symlink("../outside/launch.sh", repo / "relative.sh")
    (repo / "good.sh").write_text("vllm serve m --max-model-len 16k\n")
    shown = _run(capsys, str(repo))
    _never_shown(shown)
    assert f"{repo / 'launch.sh'}: skipped (a symlink that leaves the repository)" in shown[0]
    assert f"{repo / 'relative.sh'}: skipped (a symlink that leaves the repository)" in shown[0]
    assert "VL202" in shown[0]
    # Named on the command line, too (a pre-commit hook passes file names).
    shown = _run(capsys, str(repo / "launch.sh"))
    _never_shown(shown)
    assert f"{repo / 'launch.sh'}: skipped (a symlink that leaves the repository)" in shown[0]


def test_a_symlink_inside_the_repository_is_linted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = _layout(tmp_path)
    (repo / "real.sh").write_text("vllm serve m --max-model-len 16k\n")
    os.symlink("real.sh", repo / "alias.sh")
    code, report, _ = _json(capsys, str(repo / "alias.sh"))
    assert code == 1
    assert [f["code"] for f in report["findings"]] == ["VL202"]  # type: ignore[attr-defined]


def test_a_symlink_to_a_blocking_kernel_file_never_blocks(tmp_path: Path) -> None:
    repo, outside = _layout(tmp_path)
    os.symlink("/proc/kmsg", repo / "kmsg.sh")
    os.mkfifo(outside / "pipe")
    os.symlink(outside / "pipe", repo / "pipe.sh")
    run = subprocess.run(
        [sys.executable, "-m", "vlint", "--isolated", "--target-version", NEWEST, str(repo)],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )
    shown = run.stdout + run.stderr
    assert run.returncode in (0, 1), shown
    assert f"{repo / 'kmsg.sh'}: skipped (a symlink that leaves the repository)" in shown
    assert f"{repo / 'pipe.sh'}: skipped (a symlink that leaves the repository)" in shown


# --- project pins and .gitignore ------------------------------------------------------------

def test_pins_symlinked_out_of_the_repository_are_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, outside = _layout(tmp_path)
    (outside / "requirements.txt").write_text(f"vllm==={SECRET}\n")
    (outside / "uv.lock").write_text(f'[[package]]\nname = "vllm"\nversion = "{SECRET}"\n')
    os.symlink(outside / "requirements.txt", repo / "requirements.txt")
    os.symlink(outside / "uv.lock", repo / "uv.lock")
    (repo / "serve.sh").write_text("vllm serve m --max-model-len 16k\n")
    shown = _run(capsys, str(repo), target=False)
    _never_shown(shown)
    assert "no target release given or pinned" in shown[0]


def test_pins_above_the_linted_folder_outside_a_repository_are_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "requirements.txt").write_text(f"vllm==={SECRET}\n")
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "serve.sh").write_text("vllm serve m --max-model-len 16k\n")
    shown = _run(capsys, str(tmp_path / "project"), target=False)
    _never_shown(shown)


def test_a_gitignore_symlinked_out_of_the_repository_is_not_honoured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, outside = _layout(tmp_path)
    (outside / "ignore").write_text("launch.sh\n")
    os.symlink(outside / "ignore", repo / ".gitignore")
    (repo / "launch.sh").write_text("vllm serve m --max-model-len 16k\n")
    code, report, err = _json(capsys, str(repo))
    assert code == 1
    assert [f["code"] for f in report["findings"]] == ["VL202"]  # type: ignore[attr-defined]
    assert f"{repo / '.gitignore'}: skipped (a symlink that leaves the repository)" in err


def test_a_crafted_gitignore_pattern_takes_bounded_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = _layout(tmp_path)
    (repo / ".gitignore").write_text("*a*a*a*a*a*a*a*a*b\nbuild/\n" + "x\n" * 20_000)
    (repo / ("a" * 200 + ".sh")).write_text("vllm serve m --max-model-len 16k\n")
    (repo / "build").mkdir()
    (repo / "build" / "serve.sh").write_text("vllm serve m --max-model-len 16k\n")
    started = time.monotonic()
    code, report, err = _json(capsys, str(repo))
    assert time.monotonic() - started < 10
    assert code == 1
    assert [Path(str(f["path"])).name for f in report["findings"]] == ["a" * 200 + ".sh"]  # type: ignore[attr-defined]
    assert f"{repo / '.gitignore'}:1: pattern not honoured (too many wildcards)" in err
    assert f"{repo / '.gitignore'}: only the first" in err


# --- --fix ----------------------------------------------------------------------------------

def test_fix_never_writes_outside_the_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, outside = _layout(tmp_path)
    (outside / "launch.sh").write_text("vllm serve m --max-model-len 16k\n")
    (outside / "vllm.yaml").write_text("max-model-len: 16k\n")
    os.symlink(outside / "launch.sh", repo / "launch.sh")
    (repo / "serve.sh").write_text("vllm serve m --config ../outside/vllm.yaml\n")
    main(["--isolated", "--target-version", NEWEST, "--fix", str(repo)])
    main(["--isolated", "--target-version", NEWEST, "--fix", str(repo / "launch.sh")])
    capsys.readouterr()
    assert (outside / "launch.sh").read_text() == "vllm serve m --max-model-len 16k\n"
    assert (outside / "vllm.yaml").read_text() == "max-model-len: 16k\n"


def test_fix_refuses_a_file_outside_the_roots_given_directly(tmp_path: Path) -> None:
    from vlint.discover import Refused
    from vlint.fix.apply import Change, write

    repo, outside = _layout(tmp_path)
    (outside / "serve.sh").write_text("vllm serve m --max-model-len 16k\n")
    os.symlink(outside / "serve.sh", repo / "serve.sh")
    for path in (outside / "serve.sh", repo / "serve.sh"):
        change = Change(str(path), b"vllm serve m --max-model-len 16k\n", "x\n", 1, (repo,))
        with pytest.raises(Refused):
            write(change)
    assert (outside / "serve.sh").read_text() == "vllm serve m --max-model-len 16k\n"


def test_fix_keeps_hard_links_and_the_owner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, outside = _layout(tmp_path)
    (repo / "linked.sh").write_text("vllm serve m --max-model-len 16k\n")
    os.link(repo / "linked.sh", outside / "linked.sh")
    owned = repo / "owned.sh"
    owned.write_text("vllm serve m --max-model-len 16k\n")
    if os.geteuid() == 0:
        os.chown(owned, 4321, 4321)
    main(["--isolated", "--target-version", NEWEST, "--fix", str(repo)])
    err = "".join(capsys.readouterr())
    # A hard-linked file is not rewritten: the other name (outside) would change too, or the
    # link would break.
    assert (outside / "linked.sh").read_text() == "vllm serve m --max-model-len 16k\n"
    assert os.stat(repo / "linked.sh").st_ino == os.stat(outside / "linked.sh").st_ino
    assert f"{repo / 'linked.sh'}: not fixed (it has other hard links" in err
    assert owned.read_text() == "vllm serve m --max-model-len 16000\n"
    if os.geteuid() == 0:
        assert (owned.stat().st_uid, owned.stat().st_gid) == (4321, 4321)


def test_abbreviation_fix_in_a_config_file_writes_the_yaml_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = _layout(tmp_path)
    (repo / "vllm.yaml").write_text("max-num-seq: 8\n")
    (repo / "serve.sh").write_text("vllm serve m --config vllm.yaml --max-num-seq 8\n")
    main(["--isolated", "--target-version", NEWEST, "--fix", str(repo / "serve.sh")])
    capsys.readouterr()
    assert (repo / "vllm.yaml").read_text() == "max-num-seqs: 8\n"
    assert (repo / "serve.sh").read_text() == "vllm serve m --config vllm.yaml --max-num-seqs 8\n"


# --- --output ---------------------------------------------------------------------------------

def _lint_with_output(capsys: pytest.CaptureFixture[str], repo: Path, spec: str) -> tuple[int, str]:
    (repo / "serve.sh").write_text("vllm serve m --max-model-len 16k\n")
    code = main(["--isolated", "--target-version", NEWEST, "--output", spec, str(repo)])
    out, err = capsys.readouterr()
    return code, out + err


def test_output_never_follows_a_symlinked_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, outside = _layout(tmp_path)
    os.symlink(outside, repo / "reports")
    monkeypatch.chdir(repo)
    code, shown = _lint_with_output(capsys, repo, "json:reports/vlint.json")
    assert code == 2 and "Traceback" not in shown
    assert "symlink" in shown
    assert list(outside.iterdir()) == []


def test_output_to_a_folder_or_a_missing_folder_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = _layout(tmp_path)
    (repo / "folder").mkdir()
    code, shown = _lint_with_output(capsys, repo, f"json:{repo / 'folder'}")
    assert code == 2 and "Traceback" not in shown and "is a folder" in shown
    code, shown = _lint_with_output(capsys, repo, f"json:{repo / 'missing' / 'vlint.json'}")
    assert code == 2 and "Traceback" not in shown and "does not exist" in shown
    assert not (repo / "missing").exists()


def test_output_files_follow_the_umask(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = _layout(tmp_path)
    old = os.umask(0o022)
    try:
        code, _ = _lint_with_output(capsys, repo, f"sarif:{repo / 'vlint.sarif'}")
    finally:
        os.umask(old)
    assert code == 1
    assert (repo / "vlint.sarif").stat().st_mode & 0o777 == 0o644


def test_compose_interpolation_is_bounded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = _layout(tmp_path)
    lines = ["X0=aaaaaaaaaa", *(f"X{i}=${{X{i - 1}}}${{X{i - 1}}}" for i in range(1, 11))]
    (repo / ".env").write_text("\n".join(lines) + "\n")  # X10 is 10 KiB
    (repo / "compose.yaml").write_text(  # ... named 20,000 times: 200 MiB
        "services:\n  vllm:\n    image: vllm/vllm-openai:latest\n"
        f"    command: [m, --served-model-name, '{'${X10}' * 20_000}', --max-model-len, 16k]\n"
    )
    started = time.monotonic()
    code, report, _ = _json(capsys, str(repo))
    assert time.monotonic() - started < 20
    assert code == 1
    assert "VL202" in [f["code"] for f in report["findings"]]  # type: ignore[attr-defined]
