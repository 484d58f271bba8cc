"""``--jobs``: linting in worker processes gives the report one process gives, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vlint.engine import parallel as lint_module
from vlint.cli import main
from vlint.engine.lint import lint
from vlint.settings import Settings
from vlint.render import renderer

ROOT = Path(__file__).parent.parent
INPUTS = [str(ROOT / "tests" / "golden"), str(ROOT / "examples")]


def _json(jobs: int, target: str | None) -> str:
    report = lint(INPUTS, Settings(target=target, jobs=jobs))
    assert report.findings
    return renderer("json").render(report)


@pytest.mark.parametrize("target", [None, ">=0.31.0"])
def test_two_workers_give_the_report_of_one(target: str | None) -> None:
    one = _json(1, target)
    assert _json(2, target) == one
    # Small chunks: the merge, not a lucky split, keeps the order.
    assert _json(5, target) == one


def test_workers_are_used(monkeypatch: pytest.MonkeyPatch) -> None:
    import multiprocessing.context

    pools: list[int | None] = []
    fork_pool = multiprocessing.context.ForkContext.Pool

    def spy(self: object, processes: int | None = None, *args: object) -> object:
        pools.append(processes)
        return fork_pool(self, processes, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(multiprocessing.context.ForkContext, "Pool", spy)
    report = lint(INPUTS, Settings(jobs=2))
    assert pools == [2]
    assert report.invocations > 10
    assert lint_module._WORK is None


def test_auto_stays_in_process_for_few_files() -> None:
    assert lint_module._workers(0, lint_module.FILES_PER_WORKER - 1) == 0
    assert lint_module._workers(3, 2) == 2


def test_cli_json_is_identical(capsys: pytest.CaptureFixture[str]) -> None:
    outputs = []
    for jobs in ("1", "2"):
        assert main([*INPUTS, "--output-format", "json", "--exit-zero", "--jobs", jobs]) == 0
        outputs.append(capsys.readouterr().out)
    assert json.loads(outputs[0]) and outputs[0] == outputs[1]
