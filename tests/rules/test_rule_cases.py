"""Per-rule cases: each YAML file under cases/ lists sources that must pass or fail at line:col.

A case is ``{name, source, kind (shell|compose|python), target, expect}``, where ``expect`` is a
list of ``"line:col"`` (or ``"line:col-end_line:end_col"``) for the file's rule, ``[]`` for a
pass, and an optional ``severity``, ``message``, ``help`` or ``versions`` each finding must have.
``requires`` lists releases the case needs in the catalog (a case about an old release); until the
catalog holds them the case is skipped, naming them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version
from ruamel.yaml import YAML

from vlint.knowledge import catalog
from vlint.checks import MODULES
from vlint.engine.lint import lint
from vlint.settings import Settings
from vlint.model import Finding

CASES = Path(__file__).parent / "cases"
NAMES = {"shell": "case.sh", "compose": "docker-compose.yml", "python": "case.py",
         "vllm-config": "vllm-config.yaml", "dockerfile": "Dockerfile",
         "systemd": "case.service"}


def _load() -> list[Any]:
    params = []
    for path in sorted(CASES.glob("*.yaml")):
        document = YAML(typ="safe", pure=True).load(path.read_text("utf-8"))
        for case in document["cases"]:
            params.append(pytest.param(document["rule"], case, id=f"{path.stem}-{case['name']}"))
    return params


def _where(finding: Finding) -> str:
    start, end = finding.span.start, finding.span.end
    return f"{start.line}:{start.column}-{end.line}:{end.column}"


def test_every_rule_has_cases() -> None:
    covered = {path.stem for path in CASES.glob("*.yaml")}
    assert covered == set(MODULES)


@pytest.mark.parametrize(("rule", "case"), _load())
def test_case(rule: str, case: dict[str, Any], tmp_path: Path) -> None:
    # The whole pipeline runs, filter stage included (suppressions, VL001).
    missing = [v for v in case.get("requires", ()) if Version(v) not in catalog.known_releases()]
    if missing:
        pytest.skip(f"vLLM {', '.join(missing)} not in the catalog yet")
    path = tmp_path / NAMES[case.get("kind", "shell")]
    path.write_text(case["source"], "utf-8")
    target = case.get("target") or str(catalog.newest())
    report = lint([str(path)], Settings(target=target))
    found = sorted(
        (f for f in report.findings if f.code == rule),
        key=lambda f: (f.span.start, f.span.end),
    )
    expected = case.get("expect") or []
    wanted = [str(e) if "-" in str(e) else None for e in expected]
    got = [
        _where(f) if want else f"{f.span.start.line}:{f.span.start.column}"
        for f, want in zip(found, wanted + [None] * len(found))
    ]
    assert got == [str(e) for e in expected], [f.message for f in found]
    for finding in found:
        if "severity" in case:
            assert finding.severity == case["severity"]
        if "message" in case:
            assert case["message"] in finding.message
        if "help" in case:
            assert case["help"] in finding.help
        if "versions" in case:
            assert list(finding.vllm_versions) == case["versions"]
    assert all(isinstance(Version(v), Version) for f in found for v in f.vllm_versions)
