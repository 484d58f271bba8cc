"""Per-rule cases: each YAML file under cases/ lists sources that must pass or fail at line:col.

A case is ``{name, source, kind, target, expect}``.  ``kind`` is the input kind the source is
linted as (``KINDS``: shell by default; a Helm template gets its chart's ``Chart.yaml``).
``expect`` is a list of ``"line:col"`` (or ``"line:col-end_line:end_col"``) for the file's rule,
``[]`` for a pass, with an optional ``severity``, ``message``, ``help`` or ``versions`` each
finding must have.  ``requires`` lists releases the case needs in the catalog
(a case about an old release); until the catalog holds them the case is skipped, naming them.

``files`` maps other files of the case's folder to their text (a model folder's
``config.json``).  ``fix`` is the text after ``vlint --fix`` (every safe fix), ``unsafe_fix`` after
``vlint --fix --unsafe-fixes``; the fixed text is linted and fixed again, which must change
nothing and leave no finding of the rule with a fix to apply.  A fixable rule has a case its
fix changes and a case it leaves as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version
from ruamel.yaml import YAML

from tests._support.files import write_tree
from vlint.checks import MODULES, rule as rule_of
from vlint.discover import kind_of
from vlint.engine.fixes import plan
from vlint.engine.lint import lint
from vlint.engine.report import Report
from vlint.extract import EXTRACTORS
from vlint.fix.apply import chosen
from vlint.knowledge import catalog
from vlint.model import Finding
from vlint.settings import Settings

CASES = Path(__file__).parent / "cases"
# Each input kind's file name, and the files that make it that kind.
KINDS = {
    "shell": "case.sh",
    "compose": "docker-compose.yml",
    "python": "case.py",
    "vllm-config": "vllm-config.yaml",
    "dockerfile": "Dockerfile",
    "systemd": "case.service",
    "kubernetes": "deployment.yaml",
    "helm": "chart/templates/deployment.yaml",
    "markdown": "README.md",
    "launcher": "sky.yaml",
    "ray-serve": "serve_config.yaml",
    "makefile": "Makefile",
    "notebook": "case.ipynb",
    "justfile": "justfile",
    "procfile": "Procfile",
    "supervisord": "supervisord.conf",
    "taskfile": "Taskfile.yml",
}
BESIDE = {"helm": {"chart/Chart.yaml": "apiVersion: v2\nname: case\nversion: 0.1.0\n"}}
FIXES = {"fix": False, "unsafe_fix": True}  # the key, and whether unsafe fixes apply


def _documents() -> list[dict[str, Any]]:
    return [YAML(typ="safe", pure=True).load(path.read_text("utf-8"))
            for path in sorted(CASES.glob("*.yaml"))]


def _load() -> list[Any]:
    return [pytest.param(document["rule"], case, id=f"{document['rule']}-{case['name']}")
            for document in _documents() for case in document["cases"]]


def _where(finding: Finding) -> str:
    start, end = finding.span.start, finding.span.end
    return f"{start.line}:{start.column}-{end.line}:{end.column}"


def _of_rule(report: Report, rule: str) -> list[Finding]:
    return sorted((f for f in report.findings if f.code == rule),
                  key=lambda f: (f.span.start, f.span.end))


def test_every_rule_has_cases() -> None:
    covered = {path.stem for path in CASES.glob("*.yaml")}
    assert covered == set(MODULES)


def test_every_input_kind_has_cases() -> None:
    assert set(KINDS) == set(EXTRACTORS)
    used = {case.get("kind", "shell") for document in _documents() for case in document["cases"]}
    assert used == set(KINDS)


def test_every_fixable_rule_has_a_fix_case_and_a_no_op_case() -> None:
    changed: set[str] = set()
    unchanged: set[str] = set()
    for document in _documents():
        for case in document["cases"]:
            for key in FIXES:
                if key in case:
                    (changed if case[key] != case["source"] else unchanged).add(document["rule"])
    fixable = {code for code in MODULES if rule_of(code).fix != "none"}
    assert sorted(fixable - changed) == [], "add a case with fix: (or unsafe_fix:)"
    assert sorted(fixable - unchanged) == [], "add a case whose fix: leaves the source as it is"
    assert sorted((changed | unchanged) - fixable) == [], "a fix: case for a rule that never fixes"


@pytest.mark.parametrize(("rule", "case"), _load())
def test_case(rule: str, case: dict[str, Any], tmp_path: Path) -> None:
    # The whole pipeline runs, filter stage included (suppressions, VL001).
    missing = [v for v in case.get("requires", ()) if Version(v) not in catalog.known_releases()]
    if missing:
        pytest.skip(f"vLLM {', '.join(missing)} not in the catalog yet")
    kind = case.get("kind", "shell")
    write_tree(tmp_path, {**BESIDE.get(kind, {}), **case.get("files", {})})
    path = write_tree(tmp_path, {KINDS[kind]: case["source"]}) / KINDS[kind]
    assert kind_of(str(path), path.read_bytes()) == kind, "the case's file is not of its kind"
    target = case.get("target") or str(catalog.newest())
    settings = Settings(target=target)
    report = lint([str(path)], settings)
    found = _of_rule(report, rule)
    expected = case.get("expect") or []
    wanted = [str(e) if "-" in str(e) else None for e in expected]
    got = [
        _where(f) if want else f"{f.span.start.line}:{f.span.start.column}"
        for f, want in zip(found, wanted + [None] * len(found))
    ]
    assert got == [str(e) for e in expected], [f.message for f in found]
    targeted = [str(v) for v in catalog.target(target).releases]
    for finding in found:
        if "severity" in case:
            assert finding.severity == case["severity"]
        if "message" in case:
            assert case["message"] in finding.message
        if "help" in case:
            assert case["help"] in finding.help
        if "versions" in case:
            assert list(finding.vllm_versions) == case["versions"]
        # The releases a finding names are targeted ones, each once, oldest first.
        assert [v for v in targeted if v in finding.vllm_versions] == list(finding.vllm_versions)
    for key, unsafe in FIXES.items():
        if key in case:
            _check_fix(rule, case["source"], case[key], path, settings, report, unsafe)


def _fixed(report: Report, settings: Settings, path: Path, unsafe: bool, text: str) -> str:
    changes = [c for c in plan(report, settings, unsafe) if c.path == str(path)]
    assert len(changes) <= 1
    return changes[0].after if changes else text


def _check_fix(rule: str, source: str, expected: str, path: Path, settings: Settings,
               report: Report, unsafe: bool) -> None:
    after = _fixed(report, settings, path, unsafe, source)
    assert after == expected
    # Fixed again: nothing changes, and no finding of the rule has a fix left to apply.
    path.write_text(after, "utf-8")
    again = lint([str(path)], settings)
    assert _fixed(again, settings, path, unsafe, after) == after
    left = [f.message for f in _of_rule(again, rule) if chosen(f, unsafe) is not None]
    assert left == []


def test_the_case_files_parse_into_known_keys() -> None:
    keys = {"name", "source", "kind", "target", "expect", "severity", "message", "help",
            "versions", "requires", "files", *FIXES}
    unknown: Mapping[str, set[str]] = {
        f"{document['rule']}-{case['name']}": set(case) - keys
        for document in _documents() for case in document["cases"] if set(case) - keys
    }
    assert unknown == {}
