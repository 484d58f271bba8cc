"""The engine: one file linted into a value, a run collected then filtered, the one writer."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from tests._support.files import write_tree
from vlint.checks.base import rule_finding
from vlint.checks.unpredicted_vllm_error import RULE as VL901
from vlint.discover import Source
from vlint.engine import fixes
from vlint.engine.file import lint_file
from vlint.engine.lint import collect, finish, lint
from vlint.engine.report import FileResult
from vlint.fix import apply as fixing
from vlint.fix import atomic
from vlint.model import Pos, Span
from vlint.render import outputs
from vlint.settings import Settings

TARGET = "0.33.0"
# VL202 at 1:39 (a safe fix), suppressed by the comment on its line.
SUPPRESSED = "vllm serve m --max-num-batched-tokens 16k  # vlint: ignore[VL202]\n"
TWO = "vllm serve a --max-num-batched-tokens 16k\nvllm serve b --max-num-seqs 1k\n"


def test_lint_file_is_a_value_before_the_filter_stage() -> None:
    result = lint_file(Source("run.sh", "shell", SUPPRESSED), Settings(target=TARGET))
    assert isinstance(result, FileResult)
    assert [f.code for f in result.findings] == ["VL202"]  # the comment is the filter's job
    assert result.invocations == 1 and len(result.launches) == 1
    (invocation, releases), = result.launches
    assert invocation.path == "run.sh" and [str(r) for r in releases] == [TARGET]
    assert {str(v) for v in result.targets} == {TARGET}


def test_lint_file_gives_vl002_for_a_file_that_does_not_parse() -> None:
    broken = Source("compose.yaml", "compose", 'services:\n  v:\n    command: ["x"\n')
    (finding,) = lint_file(broken, Settings(target=TARGET)).findings
    assert finding.code == "VL002"


def test_findings_name_their_invocation() -> None:
    result = lint_file(Source("run.sh", "shell", TWO), Settings(target=TARGET))
    by_line = {f.span.start.line: f.invocation for f in result.findings}
    assert by_line == {1: 0, 2: 1}


def test_the_run_filters_what_lint_file_gave(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    write_tree(tmp_path, {"run.sh": SUPPRESSED})
    monkeypatch.chdir(tmp_path)
    assert lint(["run.sh"], Settings(target=TARGET)).findings == []


def test_a_later_producer_is_filtered_too(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    write_tree(tmp_path, {"run.sh": "vllm serve m  # vlint: ignore[VL901]\n", "b.sh": TWO})
    monkeypatch.chdir(tmp_path)
    settings = Settings(target=TARGET, ignore=("VL203",))
    collected = collect(["."], settings)
    assert [f.code for f in collected.report.findings if f.path == "b.sh"] == ["VL202", "VL203"]
    late = [rule_finding(VL901, path, Span(Pos(1, 1), Pos(1, 5)), "vLLM refused", "do x")
            for path in ("run.sh", "b.sh")]
    report = finish(replace(collected, report=replace(
        collected.report, findings=[*collected.report.findings, *late])))
    # The comment suppresses run.sh's (and is not unused); --ignore still applies to b.sh.
    assert [(f.path, f.code) for f in report.findings] == [("b.sh", "VL901"), ("b.sh", "VL202")]


def test_one_atomic_writer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    written: list[str] = []
    original = atomic.replace_file

    def counting(path: str | Path, *args: object, **kwargs: object) -> None:
        written.append(Path(path).name)
        original(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(atomic, "replace_file", counting)
    monkeypatch.setattr(fixing, "replace_file", counting)
    monkeypatch.setattr(outputs, "replace_file", counting)
    write_tree(tmp_path, {"run.sh": TWO})
    monkeypatch.chdir(tmp_path)
    settings = Settings(target=TARGET)
    report = lint(["run.sh"], settings)
    (change,) = fixes.plan(report, settings, unsafe=False)
    assert fixing.write(change)
    outputs.write_atomically(tmp_path / "out.txt", "x\n")
    assert written == ["run.sh", "out.txt"]
    assert "16000" in (tmp_path / "run.sh").read_text("utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt", "run.sh"]


def test_the_fix_loop_relints_until_nothing_applies(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    write_tree(tmp_path, {"run.sh": TWO})
    monkeypatch.chdir(tmp_path)
    settings = Settings(target=TARGET)
    (change,) = fixes.plan(lint(["run.sh"], settings), settings, unsafe=False)
    again = replace(settings, stdin_text=change.after, stdin_filename="run.sh")
    assert not [f for f in lint(["-"], again).findings if fixing.chosen(f, False) is not None]


UNREADABLE_RESULT = """
import sys
from vlint.engine import parallel
from vlint.engine.lint import lint
from vlint.settings import Settings


def refuse() -> None:
    raise RuntimeError("this result cannot be read back")


class Unreadable:
    def __reduce__(self) -> tuple[object, tuple[()]]:
        return refuse, ()


linted = parallel.lint_file
parallel.lint_file = lambda *args, **kwargs: parallel.replace(
    linted(*args, **kwargs), notes=(Unreadable(),))
try:
    lint(sys.argv[1:], Settings(target="0.33.0", jobs=2))
except RuntimeError as error:
    print(error)
"""


def test_a_result_a_worker_cannot_send_back_fails_the_run(tmp_path: Path) -> None:
    """Regression: the pool's result thread died on it and the run waited forever."""
    write_tree(tmp_path, {"a.sh": TWO, "b.sh": TWO})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", UNREADABLE_RESULT, str(tmp_path / "a.sh"),
                           str(tmp_path / "b.sh")], capture_output=True, text=True, timeout=60,
                          env=env)
    assert done.stdout.strip() == "this result cannot be read back", done.stderr
