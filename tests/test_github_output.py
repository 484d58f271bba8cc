"""GitHub workflow commands: exact lines, escaping, and the registry of renderers."""

from __future__ import annotations

import importlib
import types
from pathlib import Path

import pytest

from vlint.engine.lint import Report, lint
from vlint.settings import Settings
from vlint.model import Finding, Pos, Span
from vlint.render import RENDERERS, github, renderer

SCRIPT = "vllm serve m \\\n  --max-num-batched-tokens 16k \\\n  --max-num-seqs 4\n"


def test_annotates_the_finding_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("run.sh").write_text(SCRIPT, "utf-8")
    output = github.render(lint(["run.sh"], Settings(target="0.32.0")))
    assert output == (
        "::warning file=run.sh,line=2,col=28,endLine=2,endColumn=31,"
        "title=VL202 ambiguous-unit-suffix::'16k' is 16,000 (decimal 'k'), not 16,384"
        "%0Ahelp: write '16000' if decimal is meant, or '16K' for the power of two\n"
    )


def _finding(severity: str, path: str, message: str) -> Finding:
    span = Span(Pos(3, 1), Pos(4, 2))
    return Finding("VL999", "made-up", severity, message, "a, b: c", path, span)  # type: ignore[arg-type]


def test_escaping_and_commands() -> None:
    report = Report(findings=[
        _finding("error", "dir,x/a:b.sh", "100% of\r\nit"),
        _finding("info", "n.sh", "ok"),
    ])
    assert github.render(report).splitlines() == [
        "::error file=dir%2Cx/a%3Ab.sh,line=3,col=1,endLine=4,endColumn=2,"
        "title=VL999 made-up::100%25 of%0D%0Ait%0Ahelp: a, b: c",
        "::notice file=n.sh,line=3,col=1,endLine=4,endColumn=2,"
        "title=VL999 made-up::ok%0Ahelp: a, b: c",
    ]


@pytest.mark.parametrize("name", sorted(RENDERERS))
def test_every_renderer_is_importable(name: str) -> None:
    module = renderer(name)
    assert isinstance(module, types.ModuleType) and module.__name__.startswith("vlint.render.")
    assert importlib.import_module(module.__name__) is module and callable(module.render)


def test_every_format_module_is_registered() -> None:
    # A module of the render package whose ``render(report)`` prints a format is one of RENDERERS.
    folder = Path(github.__file__).parent
    formats = {path.stem for path in folder.glob("*.py")
               if "\ndef render(report: Report" in path.read_text("utf-8")}
    loaded = [renderer(name) for name in RENDERERS]
    assert formats == {m.__name__.rsplit(".", 1)[1] for m in loaded if isinstance(m, types.ModuleType)}


def test_ci_formats_are_registered() -> None:
    assert {"sarif", "github"} <= set(RENDERERS)
    assert RENDERERS == dict(sorted(RENDERERS.items()))
