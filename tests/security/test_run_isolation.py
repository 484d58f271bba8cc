"""One file can never stop the run, and a checkout can never make vlint import its code.

An exception while linting one file (extract, normalise, check, policy) or a file that takes
longer than the per-file time budget becomes one VL003 finding for that file; the other files
are reported as usual, in every format, and the exit code is 1.  ``python -m vlint`` in a
hostile checkout imports nothing from it: neither a module shadowing one vlint imports nor a
policy pack declared by a ``.dist-info`` folder there.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from vlint.engine import lint as lint_module
from vlint.cli import main
from vlint.engine.lint import lint
from vlint.settings import Settings

# VL202 (warning) at 1:39 in vLLM 0.33.0.
GOOD = "vllm serve m --max-num-batched-tokens 16k\n"
# The failing file's own text: none of it may appear in the output.
BAD = "vllm serve m --max-num-seqs 8  # SECRET-TOKEN-1234\n"
SECRET = "SECRET-TOKEN-1234"


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.sh").write_text(GOOD, "utf-8")
    (tmp_path / "bad.sh").write_text(BAD, "utf-8")


def _fail_on_bad(original: Callable[..., Any], error: BaseException) -> Callable[..., Any]:
    """``original``, raising ``error`` when it works on bad.sh (its path is an argument or the
    path of the invocation or resolution it is given)."""

    def failing(*args: Any, **options: Any) -> Any:
        if any("bad.sh" in _path_of(arg) for arg in args):
            raise error
        return original(*args, **options)

    return failing


def _path_of(value: Any) -> str:
    if isinstance(value, str):
        return value
    for chain in (("path",), ("resolution", "invocation", "path"), ("invocation", "path")):
        found: Any = value
        for name in chain:
            found = getattr(found, name, None)
        if isinstance(found, str):
            return found
    return ""


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any], str]:
    code = main(["--output-format", "json", "--target-version", "0.33.0",
                 "--output", "sarif:out.sarif", *args, "good.sh", "bad.sh"])
    out, err = capsys.readouterr()
    assert code != 2, err
    return code, json.loads(out), err


def _assert_one_internal_error(
    code: int, document: dict[str, Any], err: str, *words: str
) -> None:
    assert code == 1
    by_path: dict[str, list[dict[str, Any]]] = {}
    for finding in document["findings"]:
        by_path.setdefault(finding["path"], []).append(finding)
    assert [f["code"] for f in by_path["good.sh"]] == ["VL202"]
    (internal,) = by_path["bad.sh"]
    assert internal["code"] == "VL003" and internal["name"] == "internal-error"
    assert internal["severity"] == "error"
    assert (internal["line"], internal["column"]) == (1, 1)
    for word in words:
        assert word in internal["message"]
    sarif = Path("out.sarif").read_text("utf-8")
    assert SECRET not in json.dumps(document) and SECRET not in sarif and SECRET not in err
    results = json.loads(sarif)["runs"][0]["results"]
    assert sorted((r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
                  for r in results) == [("VL003", "bad.sh"), ("VL202", "good.sh")]


def test_a_failing_extractor(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from vlint.extract import shell

    monkeypatch.setattr(shell, "extract", _fail_on_bad(shell.extract, ValueError(SECRET)))
    _assert_one_internal_error(*_run(capsys), "ValueError", "extract")


def test_a_failing_normaliser(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from vlint.normalise import resolution as normalise

    monkeypatch.setattr(normalise, "resolve", _fail_on_bad(normalise.resolve, KeyError(SECRET)))
    _assert_one_internal_error(*_run(capsys), "KeyError", "normalise")


def test_a_failing_rule(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from vlint.checks import unknown_flag

    monkeypatch.setattr(unknown_flag, "check",
                        _fail_on_bad(unknown_flag.check, RecursionError(SECRET)))
    _assert_one_internal_error(*_run(capsys), "RecursionError", "VL101")


def test_a_failing_policy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from vlint.policy import evaluate as policy_check

    (tmp_path / "org.yaml").write_text(
        "policies:\n  - id: ORG001\n    severity: info\n    message: no\n    help: no\n"
        "    rule: {setting: max_num_seqs, op: absent}\n", "utf-8")
    (tmp_path / "vlint.toml").write_text('policies = ["org.yaml"]\nignore = ["ORG"]\n', "utf-8")
    monkeypatch.setattr(policy_check, "evaluate",
                        _fail_on_bad(policy_check.evaluate, TypeError(SECRET)))
    _assert_one_internal_error(*_run(capsys), "TypeError", "policy")


def _hang_on_bad(monkeypatch: pytest.MonkeyPatch) -> None:
    from vlint.checks import unknown_flag

    def sleeper(*args: Any) -> Iterator[Any]:
        # Bounded, so that a run without a budget fails instead of hanging the suite.
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            time.sleep(0.05)
        yield from ()

    original = unknown_flag.check

    def check(context: Any) -> Any:
        if "bad.sh" in _path_of(context):
            return sleeper()
        return original(context)

    monkeypatch.setattr(unknown_flag, "check", check)
    monkeypatch.setattr(lint_module, "FILE_TIME_BUDGET", 0.5, raising=False)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_hanging_rule_ends_at_the_time_budget(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, jobs: str
) -> None:
    _hang_on_bad(monkeypatch)
    started = time.monotonic()
    code, document, err = _run(capsys, "--jobs", jobs)
    assert time.monotonic() - started < 30
    _assert_one_internal_error(code, document, err, "time budget")


def test_the_budget_is_a_settings_field(monkeypatch: pytest.MonkeyPatch) -> None:
    _hang_on_bad(monkeypatch)
    monkeypatch.setattr(lint_module, "FILE_TIME_BUDGET", 1000.0, raising=False)
    report = lint(["good.sh", "bad.sh"], Settings(target="0.33.0", time_budget=0.3))
    assert [(f.path, f.code) for f in report.findings] == [("bad.sh", "VL003"), ("good.sh", "VL202")]


def test_outside_the_main_thread_the_budget_is_a_no_op() -> None:
    found: list[list[str]] = []
    worker = threading.Thread(
        target=lambda: found.append(
            [f.code for f in lint(["good.sh"], Settings(target="0.33.0", time_budget=0.3)).findings]
        )
    )
    worker.start()
    worker.join(60)
    assert found == [["VL202"]]


# -- no repository code --------------------------------------------------------------------


def _hostile_checkout(root: Path) -> Path:
    """A checkout whose modules write ``marker`` when imported: a module shadowing one vlint
    imports (click) and a policy pack declared by a distribution in the checkout."""
    marker = root / "marker"
    payload = f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n"
    (root / ".git").mkdir()
    (root / "click.py").write_text(payload, "utf-8")
    (root / "evilpack.py").write_text(payload + "POLICIES = 'policies: []'\n", "utf-8")
    info = root / "evilpack-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: evilpack\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[vlint.policies]\nevil = evilpack:POLICIES\n")
    (root / "run.sh").write_text(GOOD, "utf-8")
    return marker


@pytest.mark.parametrize(
    ("args", "config", "expected"),
    [
        (["--isolated"], None, 1),
        ([], None, 1),
        # A pack named but found only in the checkout is a configuration error.
        ([], 'policy-packs = ["evil"]\n', 2),
        (["--policy-pack", "evil"], None, 2),
    ],
)
def test_python_m_vlint_imports_nothing_from_the_checkout(
    tmp_path: Path, args: list[str], config: str | None, expected: int
) -> None:
    marker = _hostile_checkout(tmp_path)
    if config is not None:
        (tmp_path / "vlint.toml").write_text(config, "utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "vlint", "--target-version", "0.33.0", "--output-format",
         "concise", *args, "run.sh"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )
    assert not marker.exists(), marker.read_text("utf-8")
    assert done.returncode == expected, done.stderr
    if expected == 1:
        assert "run.sh:1:39: VL202" in done.stdout
    else:
        assert "policy pack 'evil'" in done.stderr
