"""Hostile files through the command line (``vlint.cli.main``): each one gives a finding (VL002)
or a skip note, the run goes on, the other files are still linted, and the exit code is 0 or 1
(2 is for usage errors only)."""

from __future__ import annotations

import builtins
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._support.run import vlint_main
from vlint.knowledge import catalog
from vlint.cli import main

GOOD = "vllm serve m --max-model-len 16k\n"  # VL202 at 1:30


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, object]], str]:
    code, out, err = vlint_main(capsys, "--isolated", "--target-version", str(catalog.newest()),
                                "--output-format", "json", *argv)
    findings = json.loads(out)["findings"] if out.strip() else []
    return code, findings, err


def _linted_good(findings: list[dict[str, object]], folder: Path) -> bool:
    return any(f["path"] == str(folder / "good.sh") and f["code"] == "VL202" for f in findings)


def _folder(tmp_path: Path) -> Path:
    (tmp_path / "good.sh").write_text(GOOD)
    return tmp_path


def test_invalid_utf8_is_a_skip_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _folder(tmp_path)
    (folder / "bad.sh").write_bytes(b"vllm serve m --max-model-len 16k \xff\xfe\xc3\x28\n")
    code, findings, err = _run(capsys, str(folder))
    assert code == 1 and _linted_good(findings, folder)
    assert f"{folder / 'bad.sh'}: skipped (not UTF-8)" in err


def test_binary_files_with_vllm_inside(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _folder(tmp_path)
    blob = bytes(range(256)) * 4 + b"vllm serve m --max-model-len 16k\x00" + bytes(range(256))
    for name in ("model.bin", "weights.safetensors", "serve.sh", "compose.yaml", "Dockerfile",
                 "README.md", "launch.py", "vllm.service", "vllm-config.yaml"):
        (folder / name).write_bytes(blob)
    (folder / "nul.sh").write_bytes(b"vllm serve m\x00 --max-model-len 16k\n\x00\x01\x02")
    code, findings, err = _run(capsys, str(folder))
    assert code == 1 and _linted_good(findings, folder)
    assert "skipped (not UTF-8)" in err


def test_a_huge_yaml_file_is_skipped_in_bounded_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path)
    huge = folder / "compose.yaml"
    line = "# " + "x" * 97 + "\n"
    with huge.open("w") as handle:
        handle.write("services:\n  vllm:\n    image: vllm/vllm-openai:latest\n"
                     "    command: [m, --max-model-len, 16k]\n")
        handle.write(line * (50 * 2**20 // len(line)))
    assert huge.stat().st_size >= 50 * 2**20
    started = time.monotonic()
    code, findings, err = _run(capsys, str(folder))
    assert time.monotonic() - started < 30
    assert code == 1 and _linted_good(findings, folder)
    assert f"{huge}: skipped (larger than vlint's maximum file size" in err
    assert not any(f["path"] == str(huge) for f in findings)


def test_the_size_limit_is_a_setting(tmp_path: Path) -> None:
    from vlint.engine.lint import lint
    from vlint.settings import Settings

    (tmp_path / "good.sh").write_text(GOOD)
    (tmp_path / "big.sh").write_text(GOOD + "# padding\n" * 100)
    (tmp_path / "big.bin").write_bytes(b"\0" * 5000)  # not a kind vlint reads: no note
    report = lint([str(tmp_path)], Settings(target=str(catalog.newest()), max_file_size=500))
    assert [f.path for f in report.findings] == [str(tmp_path / "good.sh")]
    assert report.notes == [
        f"{tmp_path / 'big.sh'}: skipped (larger than vlint's maximum file size, 500 bytes)"
    ]


DEEP = {
    "flow.yaml": "services:\n  vllm:\n    command: " + "[" * 10_000 + "\n",
    "flow-maps.yaml": "services:\n  vllm:\n    command: " + "{a: " * 10_000 + "\n",
    "dashes.yaml": "services:\n  vllm:\n    command:\n" + "- " * 10_000 + "vllm\n",
    "block.yaml": "services:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 2000)),
    "deep.md": "```yaml\nservices:\n  vllm:\n    command: " + "[" * 10_000 + "\n```\n",
    "deep.py": "from vllm import LLM\nLLM(" + "(" * 10_000 + ")\n",
    "unary.py": "from vllm import LLM\nLLM(max_model_len=" + "-" * 100_000 + "1)\n",
    "attrs.py": "import vllm\nvllm" + ".x" * 50_000 + "(1)\n",
    "deep.sh": "vllm serve m " + "$(" * 5000 + "\n",
    "json.sh": "vllm serve m --compilation-config '" + '{"a":' * 10_000 + "'\n",
}


def test_deep_nesting_never_overflows_the_stack(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path)
    for name, text in DEEP.items():
        (folder / name).write_text(text)
    started = time.monotonic()
    code, findings, _ = _run(capsys, str(folder))
    assert time.monotonic() - started < 60
    assert code == 1 and _linted_good(findings, folder)
    unparsable = {Path(str(f["path"])).name for f in findings if f["code"] == "VL002"}
    # (A Markdown block that does not parse is skipped, as documented.)
    assert {"flow.yaml", "flow-maps.yaml", "deep.py", "unary.py"} <= unparsable


def _laughs(leaf: str, levels: int = 9) -> str:
    text = f"x0: &x0 [{', '.join([leaf] * 10)}]\n"
    for level in range(1, levels + 1):
        text += f"x{level}: &x{level} [{', '.join([f'*x{level - 1}'] * 10)}]\n"
    return text


BOMBS = {
    "compose.yaml": _laughs("vllm") + "services:\n  vllm:\n    command: *x9\n",
    "deployment.yaml": _laughs("vllm") + "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n"
    "  - name: vllm\n    image: vllm/vllm-openai:latest\n    args: *x9\n    env: *x9\n",
    "values.yaml": _laughs("vllm") + "vllmConfig:\n  extraArgs: *x9\nnested: *x9\n",
    "vllm-config.yaml": _laughs("vllm") + "max-model-len: *x9\nhf-overrides: {a: *x9}\n",
    "sky.yaml": _laughs("vllm") + "resources: *x9\nrun: vllm serve m\nsetup: *x9\n",
    "README.md": "```yaml\n" + _laughs("vllm") + "services:\n  a:\n    command: *x9\n```\n",
}


def test_exponential_aliases_do_not_blow_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path)
    for name, text in BOMBS.items():
        (folder / name).write_text(text)
    started = time.monotonic()
    code, findings, _ = _run(capsys, str(folder))
    assert time.monotonic() - started < 60
    assert code == 1 and _linted_good(findings, folder)
    assert any(f["code"] == "VL002" and str(f["path"]).endswith("vllm-config.yaml")
               for f in findings)


def test_symlink_loops(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _folder(tmp_path)
    os.symlink("self.sh", folder / "self.sh")
    os.symlink("b.sh", folder / "a.sh")
    os.symlink("a.sh", folder / "b.sh")
    os.mkdir(folder / "sub")
    os.symlink("..", folder / "sub" / "up")  # a folder loop: never followed
    code, findings, err = _run(capsys, str(folder))
    assert code == 1 and _linted_good(findings, folder)
    assert f"{folder / 'self.sh'}: skipped (Too many levels of symbolic links)" in err
    assert f"{folder / 'a.sh'}: skipped (Too many levels of symbolic links)" in err


def test_a_fifo_is_not_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _folder(tmp_path)
    os.mkfifo(folder / "pipe.sh")  # reading it would block for ever
    (folder / "config.sh").write_text(
        f"vllm serve m --config {folder / 'pipe.sh'}\nvllm serve m --config /dev/zero\n"
    )
    code, findings, err = _run(capsys, str(folder))
    assert code == 1 and _linted_good(findings, folder)
    assert f"{folder / 'pipe.sh'}: skipped (not a regular file)" in err


def test_an_unreadable_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _folder(tmp_path)
    locked = folder / "locked.sh"
    locked.write_text(GOOD)
    locked.chmod(0)
    try:
        with open(locked, "rb"):
            bites = False  # running as root: permissions do not stop a read
    except PermissionError:
        bites = True
    if not bites:
        real_open = builtins.open

        def refusing_open(file: object, *args: object, **kwargs: object) -> object:
            if str(file) == str(locked):
                raise PermissionError(13, "Permission denied", str(file))
            return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

        monkeypatch.setattr(builtins, "open", refusing_open)
    code, findings, err = _run(capsys, str(folder))
    locked.chmod(0o644)
    assert code == 1 and _linted_good(findings, folder)
    assert f"{locked}: skipped (Permission denied)" in err
    assert not any(f["path"] == str(locked) for f in findings)


def test_a_file_deleted_during_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from vlint import discover

    folder = _folder(tmp_path)
    doomed = folder / "doomed.sh"
    doomed.write_text(GOOD)
    real_walk = discover.walk

    def walk_then_delete(*args: object, **kwargs: object) -> Iterator[str]:
        for path in real_walk(*args, **kwargs):  # type: ignore[arg-type]
            if path == str(doomed):
                doomed.unlink()  # found by discovery, gone before it is read
            yield path

    monkeypatch.setattr("vlint.engine.read.walk", walk_then_delete)  # where the engine finds it
    code, findings, err = _run(capsys, str(folder))
    assert code == 1 and _linted_good(findings, folder)
    assert f"{doomed}: skipped (No such file or directory)" in err


def test_only_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--isolated", str(tmp_path / "missing.sh")]) == 2
    assert main(["--isolated", "--target-version", "0.0.0.1", str(tmp_path)]) == 2
    capsys.readouterr()


def test_a_dotenv_whose_values_double_at_every_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path)
    lines = ["X0=aaaaaaaaaa", *(f"X{i}=${{X{i - 1}}}${{X{i - 1}}}" for i in range(1, 40))]
    (folder / ".env").write_text("\n".join(lines) + "\n")  # X39 would be 5 TiB
    (folder / "compose.yaml").write_text(
        "services:\n  vllm:\n    image: vllm/vllm-openai:latest\n"
        "    command: [m, --max-model-len, 16k, --served-model-name, '${X39}', '${X5}']\n"
    )
    started = time.monotonic()
    code, findings, _ = _run(capsys, str(folder))
    assert time.monotonic() - started < 30
    assert code == 1 and _linted_good(findings, folder)
    assert any(f["code"] == "VL202" and str(f["path"]).endswith("compose.yaml") for f in findings)


def test_a_fifo_where_the_project_pins_are_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path)
    os.mkfifo(folder / "requirements.txt")  # read for the vllm pin when no target is given
    code = main(["--isolated", "--output-format", "json", str(folder)])
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert code == 1 and _linted_good(findings, folder)
