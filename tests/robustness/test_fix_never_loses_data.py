"""``--fix`` never loses data (what tests/test_fix.py does not already cover): the new text goes
to a temporary file in the same folder that is renamed over the original, a failed write leaves
the original and no temporary file behind and is a note rather than a crash, a symlink stays a
symlink, and every byte outside the fixed token is kept."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vlint.knowledge import catalog
from vlint.cli import main

from tests.robustness.robust_support import examples

BEFORE = "vllm serve m --max-model-len 16k\n"
AFTER = "vllm serve m --max-model-len 16000\n"


def _fix(*paths: Path) -> int:
    return main(["--isolated", "--target-version", str(catalog.newest()), "--fix",
                 *map(str, paths)])


def test_the_fixed_text_is_renamed_into_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "serve.sh"
    path.write_text(BEFORE)
    real_replace = os.replace
    calls: list[tuple[str, str]] = []

    def observed(source: str, target: str) -> None:
        # At the rename the original is still whole and the temporary file complete.
        assert path.read_text() == BEFORE
        assert Path(source).read_text() == AFTER
        calls.append((str(source), str(target)))
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", observed)
    _fix(path)
    capsys.readouterr()
    assert path.read_text() == AFTER
    ((source, target),) = calls
    assert target == os.path.realpath(path)
    assert os.path.dirname(source) == os.path.dirname(target)  # same file system: atomic
    assert sorted(p.name for p in tmp_path.iterdir()) == ["serve.sh"]


def test_a_failed_write_keeps_the_original_and_is_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "serve.sh"
    path.write_text(BEFORE)
    other = tmp_path / "other.sh"
    other.write_text(BEFORE)

    def disk_full(source: str, target: str) -> None:
        if str(target).endswith("serve.sh"):
            raise OSError(28, "No space left on device")
        os.rename(source, target)

    monkeypatch.setattr(os, "replace", disk_full)
    code = _fix(path, other)
    out = capsys.readouterr().out
    assert code == 1  # serve.sh still has its finding
    assert path.read_text() == BEFORE
    assert other.read_text() == AFTER  # the run went on
    assert f"{path}: not fixed (No space left on device)" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.sh", "serve.sh"]


def test_a_symlink_stays_a_symlink(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    real = tmp_path / "real.sh"
    real.write_text(BEFORE)
    link = tmp_path / "link.sh"
    link.symlink_to("real.sh")
    _fix(link)
    capsys.readouterr()
    assert link.is_symlink() and os.readlink(link) == "real.sh"
    assert real.read_text() == AFTER


# Text around the launch: other lines, comments, CRLF line ends, a byte order mark, non-ASCII.
AROUND = st.lists(
    st.sampled_from(["# é ü 中文 😀", "echo 'vllm'", "", "  ", "\t# tab", "export A=1",
                     "# --max-model-len 16k in a comment", "\r", "x=$(date)"]),
    max_size=6,
).map("\n".join)


@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(head=AROUND, tail=AROUND, bom=st.booleans(), crlf=st.booleans())
def test_every_byte_outside_the_fix_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], head: str, tail: str, bom: bool,
    crlf: bool,
) -> None:
    end = "\r\n" if crlf else "\n"
    prefix = ("\ufeff" if bom else "") + head + end
    path = tmp_path / "serve.sh"
    original = (prefix + BEFORE.rstrip("\n") + end + tail).encode("utf-8")
    path.write_bytes(original)
    _fix(path)
    capsys.readouterr()
    expected = original.replace(b"--max-model-len 16k" + end.encode(), b"--max-model-len 16000"
                                + end.encode(), 1)
    assert path.read_bytes() == expected
