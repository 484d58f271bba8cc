"""Fixes: every fix as a before -> after pair, a no-op and a re-run; --diff; safe writing."""

from __future__ import annotations

import difflib
import os
import shutil
import stat
from pathlib import Path

import pytest

from tests._support.files import read_tree
from vlint.engine import fixes
from vlint.fix import apply as fixing
from vlint.cli import main
from vlint.engine.lint import Report, lint
from vlint.settings import Settings
from vlint.model import Edit, Fix, Pos, Span

ROOT = Path(__file__).parent.parent
TARGET = ["--target-version", "0.33.0"]
OLD = 1_000_000_000  # an mtime (ns, seconds scale below) well in the past

COMPOSE_HEAD = "services:\n  llm:\n    image: vllm/vllm-openai:v0.33.0\n"
SUBPROCESS = 'import subprocess\nsubprocess.run(["vllm", "serve", "m", {}])\n'

# (id, file name, before, after, extra options); every fix of every rule, in every input kind.
PAIRS = [
    ("VL202-shell", "serve.sh",
     "vllm serve m --max-num-batched-tokens 16k\n",
     "vllm serve m --max-num-batched-tokens 16000\n", []),
    ("VL202-shell-quoted", "serve.sh",
     "vllm serve m \\\n  --max-model-len '16k' \\\n  --port 8000  # keep me\n",
     "vllm serve m \\\n  --max-model-len '16000' \\\n  --port 8000  # keep me\n", []),
    ("VL202-shell-equals", "serve.sh",
     'vllm serve m --max-model-len="2k"\n',
     'vllm serve m --max-model-len="2000"\n', []),
    ("VL202-unsafe-shell", "serve.sh",
     "vllm serve m --max-num-batched-tokens 16k\n",
     "vllm serve m --max-num-batched-tokens 16384\n", ["--unsafe-fixes"]),
    ("VL202-compose-list", "docker-compose.yml",
     COMPOSE_HEAD + "    command:\n      - m\n      - --max-model-len\n      - '16k'  # why\n",
     COMPOSE_HEAD + "    command:\n      - m\n      - --max-model-len\n      - '16000'  # why\n",
     []),
    ("VL202-compose-string", "docker-compose.yml",
     COMPOSE_HEAD + '    command: m --max-model-len "16k" --port 8000\n',
     COMPOSE_HEAD + '    command: m --max-model-len "16000" --port 8000\n', []),
    ("VL202-unsafe-compose-list", "docker-compose.yml",
     COMPOSE_HEAD + "    command: [m, --max-model-len, 8k]\n",
     COMPOSE_HEAD + "    command: [m, --max-model-len, 8192]\n", ["--unsafe-fixes"]),
    ("VL202-python-argv", "launch.py",
     SUBPROCESS.format('"--max-model-len", "16k"'),
     SUBPROCESS.format('"--max-model-len", "16000"'), []),
    ("VL202-unsafe-python-argv", "launch.py",
     SUBPROCESS.format('"--max-model-len", "16k"'),
     SUBPROCESS.format('"--max-model-len", "16384"'), ["--unsafe-fixes"]),
    ("VL105-shell", "serve.sh",
     "vllm serve m --max-model 4096\n",
     "vllm serve m --max-model-len 4096\n", []),
    ("VL105-compose-list", "docker-compose.yml",
     COMPOSE_HEAD + "    command:\n      - m\n      - --max-num-seq\n      - 8\n",
     COMPOSE_HEAD + "    command:\n      - m\n      - --max-num-seqs\n      - 8\n", []),
    ("VL105-python-argv", "launch.py",
     SUBPROCESS.format('"--max-model", "4096"'),
     SUBPROCESS.format('"--max-model-len", "4096"'), []),
    ("VL206-shell-false", "serve.sh",
     "vllm serve m --enable-chunked-prefill=false\n",
     "vllm serve m --disable-chunked-prefill\n", []),
    ("VL206-shell-true", "serve.sh",
     "vllm serve m --enable-chunked-prefill=true\n",
     "vllm serve m --enable-chunked-prefill\n", []),
    ("VL206-compose-string", "docker-compose.yml",
     COMPOSE_HEAD + "    command: m --enable-prefix-caching=no --port 8000\n",
     COMPOSE_HEAD + "    command: m --disable-prefix-caching --port 8000\n", []),
    ("VL206-python-argv", "launch.py",
     SUBPROCESS.format('"--enable-prefix-caching=off"'),
     SUBPROCESS.format('"--disable-prefix-caching"'), []),
    ("VL104-unsafe-shell-continuation", "serve.sh",
     "vllm serve m \\\n  --disable-cascade-attn \\\n  --port 8000\n",
     "vllm serve m \\\n  --port 8000\n", ["--unsafe-fixes"]),
    ("VL104-unsafe-shell-with-value", "serve.sh",
     "vllm serve m --no-disable-cascade-attn --max-num-seqs 8  # tuned\n",
     "vllm serve m --max-num-seqs 8  # tuned\n", ["--unsafe-fixes"]),
    ("VL001-shell-trailing-comment", "serve.sh",
     "vllm serve m --max-num-seqs 8  # vlint: ignore[VL202] meant 16k once\n",
     "vllm serve m --max-num-seqs 8\n", []),
    ("VL001-shell-comment-line", "serve.sh",
     "# vlint: ignore[VL105]\nvllm serve m --max-num-seqs 8\n",
     "vllm serve m --max-num-seqs 8\n", []),
    ("VL001-one-of-two-codes", "serve.sh",
     "vllm serve m --max-num-batched-tokens 16k  # vlint: ignore[VL301, VL202]\n",
     "vllm serve m --max-num-batched-tokens 16k  # vlint: ignore[VL202]\n", ["--ignore", "VL202"]),
    ("VL001-last-of-two-codes", "serve.sh",
     "vllm serve m --max-num-batched-tokens 16k  # vlint: ignore[VL202,VL301]\n",
     "vllm serve m --max-num-batched-tokens 16k  # vlint: ignore[VL202]\n", ["--ignore", "VL202"]),
    ("VL001-markdown-html-comment", "README.md",
     "Run:\n\n<!-- vlint: ignore[VL202] -->\n```sh\nvllm serve m --max-num-seqs 8\n```\n",
     "Run:\n\n```sh\nvllm serve m --max-num-seqs 8\n```\n", []),
    ("VL001-compose-yaml-comment", "docker-compose.yml",
     COMPOSE_HEAD + "    command: [m, --max-num-seqs, '8']  # vlint: ignore[VL105]\n",
     COMPOSE_HEAD + "    command: [m, --max-num-seqs, '8']\n", []),
    ("VL101-unsafe-did-you-mean", "serve.sh",
     "vllm serve m --gpu-memory-utilisation 0.9\n",
     "vllm serve m --gpu-memory-utilization 0.9\n", ["--unsafe-fixes"]),
    ("VL101-unsafe-compose-list", "docker-compose.yml",
     COMPOSE_HEAD + "    command: [m, '--max-num-seq-total', '8']\n",
     COMPOSE_HEAD + "    command: [m, '--max-num-seqs', '8']\n", ["--unsafe-fixes"]),
    ("VL106-unsafe-did-you-mean", "serve.py",
     "from vllm import LLM\nLLM(model='m', max_num_seq=8)\n",
     "from vllm import LLM\nLLM(model='m', max_num_seqs=8)\n", ["--unsafe-fixes"]),
    # Overlapping edits: the expansion and the boolean fix both rewrite the same word; the
    # first applies, and the second round applies the boolean fix to the expanded word.
    ("overlap-VL105-VL206", "serve.sh",
     "vllm serve m --enable-chunked-pref=false\n",
     "vllm serve m --disable-chunked-prefill\n", []),
]

# Already correct: nothing to fix, nothing written.
NOOPS = [
    ("VL202", "serve.sh", "vllm serve m --max-num-batched-tokens 16000 --max-model-len 16K\n"),
    ("VL202-compose", "docker-compose.yml",
     COMPOSE_HEAD + "    command: [m, --max-model-len, '16000', --api-key, '${VLLM_API_KEY}']\n"),
    ("VL202-python", "launch.py", SUBPROCESS.format('"--max-model-len", "16384"')),
    ("VL105", "serve.sh", "vllm serve m --max-model-len 4096\n"),
    ("VL206", "serve.sh", "vllm serve m --disable-chunked-prefill --enable-prefix-caching\n"),
    ("VL104", "serve.sh", "vllm serve m --max-num-seqs 8\n"),
    ("VL001", "serve.sh", "vllm serve m --max-num-batched-tokens 16k  # vlint: ignore[VL202]\n"),
]


def _write(folder: Path, name: str, text: str, mode: int = 0o644) -> Path:
    path = folder / name
    path.write_bytes(text.encode("utf-8"))
    path.chmod(mode)
    os.utime(path, ns=(OLD * 10**9, OLD * 10**9))
    return path


def _vlint(folder: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    monkeypatch.chdir(folder)
    return main([*TARGET, *args])


@pytest.mark.parametrize(("name", "before", "after", "options"),
                         [pytest.param(*p[1:], id=p[0]) for p in PAIRS])
def test_fix_before_after_then_rerun(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    name: str, before: str, after: str, options: list[str],
) -> None:
    path = _write(tmp_path, name, before)
    _vlint(tmp_path, monkeypatch, "--fix", *options, name)
    assert path.read_text("utf-8") == after
    assert "Applied " in capsys.readouterr().out
    os.utime(path, ns=(OLD * 10**9, OLD * 10**9))
    _vlint(tmp_path, monkeypatch, "--fix", *options, name)
    assert path.read_text("utf-8") == after
    assert path.stat().st_mtime_ns == OLD * 10**9
    assert "Applied 0 fixes to 0 files." in capsys.readouterr().out


def test_a_did_you_mean_is_not_a_safe_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "vllm serve m --gpu-memory-utilisation 0.9\n"
    path = _write(tmp_path, "serve.sh", text)
    assert _vlint(tmp_path, monkeypatch, "--fix", "serve.sh") == 1
    assert path.read_text("utf-8") == text
    assert "Applied 0 fixes" in capsys.readouterr().out


@pytest.mark.parametrize(("name", "text"), [pytest.param(*n[1:], id=n[0]) for n in NOOPS])
def test_fix_noop_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    name: str, text: str,
) -> None:
    path = _write(tmp_path, name, text)
    assert _vlint(tmp_path, monkeypatch, "--fix", "--unsafe-fixes", name) == 0
    assert path.read_text("utf-8") == text
    assert path.stat().st_mtime_ns == OLD * 10**9
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]
    assert "Applied 0 fixes to 0 files." in capsys.readouterr().out


def test_unsafe_fixes_alone_lists_them_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "vllm serve m --max-num-batched-tokens 16k\n"
    path = _write(tmp_path, "serve.sh", text)
    assert _vlint(tmp_path, monkeypatch, "--unsafe-fixes", "serve.sh") == 1
    assert path.read_text("utf-8") == text
    out = capsys.readouterr().out
    assert "serve.sh:1:39: VL202 unsafe fix available with --fix --unsafe-fixes: write 16384" in out


def test_a_fix_the_targeted_releases_disagree_on_is_not_applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 0.31 and 0.32 spell the negative '--no-enable-chunked-prefill', 0.33 '--disable-...'.
    text = "vllm serve m --enable-chunked-prefill=false --max-model-len 16k\n"
    path = _write(tmp_path, "serve.sh", text)
    monkeypatch.chdir(tmp_path)
    main(["--target-version", ">=0.31,<=0.33", "--fix", "serve.sh"])
    assert path.read_text("utf-8") == (
        "vllm serve m --enable-chunked-prefill=false --max-model-len 16000\n"
    )


def test_diff_prints_the_change_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "#!/bin/sh\nvllm serve m \\\n  --max-model 4096 \\\n  --max-num-batched-tokens 8k"
    path = _write(tmp_path, "serve.sh", text)
    assert _vlint(tmp_path, monkeypatch, "--diff", "serve.sh") == 1
    captured = capsys.readouterr()
    assert captured.out == (
        "--- a/serve.sh\n"
        "+++ b/serve.sh\n"
        "@@ -1,4 +1,4 @@\n"
        " #!/bin/sh\n"
        " vllm serve m \\\n"
        "-  --max-model 4096 \\\n"
        "-  --max-num-batched-tokens 8k\n"
        "\\ No newline at end of file\n"
        "+  --max-model-len 4096 \\\n"
        "+  --max-num-batched-tokens 8000\n"
        "\\ No newline at end of file\n"
    )
    assert "Would apply 2 fixes to 1 file." in captured.err
    assert path.read_text("utf-8") == text
    assert path.stat().st_mtime_ns == OLD * 10**9


def test_diff_with_nothing_to_fix_exits_zero(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path, "serve.sh", "vllm serve m --max-model-len 4096\n")
    assert _vlint(tmp_path, monkeypatch, "--diff", "serve.sh") == 0
    assert capsys.readouterr().out == ""


def test_overlapping_edits_apply_the_first_and_skip_the_rest() -> None:
    def edit(line: int, start: int, end: int, text: str) -> Fix:
        return Fix(text, (Edit(Span(Pos(line, start), Pos(line, end)), text),), safe=True)

    source = "abcdef\nghij\n"
    fixes = [edit(1, 2, 5, "X"), edit(1, 4, 6, "Y"), edit(2, 1, 2, "Z"), edit(1, 6, 6, "+"),
             edit(1, 6, 6, "-")]
    assert fixing.apply_fixes(source, fixes) == ("aXe+f\nZhij\n", 3)


def test_permissions_are_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, "serve.sh", "vllm serve m --max-model-len 16k\n", mode=0o751)
    _vlint(tmp_path, monkeypatch, "--fix", "serve.sh")
    assert path.read_text("utf-8") == "vllm serve m --max-model-len 16000\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o751


def test_a_file_changed_after_it_was_read_is_not_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "serve.sh", "vllm serve m --max-model-len 16k\n")
    edited = "vllm serve m --max-model-len 16k  # edited meanwhile\n"
    planned = fixes.plan

    def plan_then_edit(report: Report, settings: Settings, unsafe: bool) -> list[fixing.Change]:
        changes = planned(report, settings, unsafe)
        path.write_text(edited, "utf-8")
        return changes

    monkeypatch.setattr("vlint.commands.fix.plan", plan_then_edit)
    _vlint(tmp_path, monkeypatch, "--fix", "serve.sh")
    assert path.read_text("utf-8") == edited
    assert "changed on disk while vlint was fixing it" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["serve.sh"]


def test_write_refuses_a_changed_file(tmp_path: Path) -> None:
    path = _write(tmp_path, "serve.sh", "vllm serve m --max-model-len 16k\n")
    report = lint([str(path)], Settings(target="0.33.0"))
    (change,) = fixes.plan(report, Settings(target="0.33.0"), unsafe=False)
    path.write_text("something else\n", "utf-8")
    assert fixing.write(change) is False
    assert path.read_text("utf-8") == "something else\n"


EXAMPLES_DIFF = """\
--- a/compose/docker-compose.yml
+++ b/compose/docker-compose.yml
@@ -15 +15 @@
-      - 8k
+      - 8000
--- a/seeds/batched-tokens.sh
+++ b/seeds/batched-tokens.sh
@@ -8 +8 @@
-  --max-num-batched-tokens 16k \\
+  --max-num-batched-tokens 16000 \\
--- a/seeds/concurrency-mistakes.sh
+++ b/seeds/concurrency-mistakes.sh
@@ -8,2 +8,2 @@
-  --max-model 4096 \\
-  --enable-chunked-prefill=false > serve.log 2>&1 &
+  --max-model-len 4096 \\
+  --disable-chunked-prefill > serve.log 2>&1 &
"""


def test_fix_on_the_examples_changes_exactly_the_safe_fixes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "examples"
    shutil.copytree(ROOT / "examples", copy)
    before = read_tree(copy)
    monkeypatch.chdir(copy)
    fixable = {
        (f.path, f.code, f.span.start.line)
        for f in lint(["."], Settings()).findings
        if f.fix is not None and f.fix.safe
    }
    assert len(fixable) == 4
    main(["--fix", "."])
    assert "Applied 4 fixes to 3 files." in capsys.readouterr().out
    after = read_tree(copy)
    diff = "".join(
        line
        for name in sorted(before)
        for line in difflib.unified_diff(
            before[name].splitlines(keepends=True), after[name].splitlines(keepends=True),
            f"a/{name}", f"b/{name}", n=0,
        )
    )
    assert diff == EXAMPLES_DIFF
    stamps = {name: (copy / name).stat().st_mtime_ns for name in after}
    main(["--fix", "."])
    assert "Applied 0 fixes to 0 files." in capsys.readouterr().out
    assert read_tree(copy) == after
    assert {name: (copy / name).stat().st_mtime_ns for name in after} == stamps
    remaining = {(f.path, f.code, f.span.start.line) for f in lint(["."], Settings()).findings}
    assert not fixable & remaining
