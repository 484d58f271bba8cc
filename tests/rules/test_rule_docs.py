"""Every registered rule module follows STYLE.md: the docs template, RULE metadata matching its
registration, and a name that states the problem in kebab-case."""

from __future__ import annotations

import re

import pytest

from vlint.checks import MODULES, rule_module

SECTIONS = (
    "What it does",
    "Why is this bad?",
    "Example",
    "Use instead",
    "Fix safety",
    "vLLM releases",
    "References",
)


@pytest.mark.parametrize("code", sorted(MODULES))
def test_docs_follow_the_template(code: str) -> None:
    doc = rule_module(code).__doc__ or ""
    headings = [line for line in doc.splitlines() if line and not line.startswith(" ")]
    assert headings == list(SECTIONS), f"{code}: headings {headings}"
    for section, following in zip(SECTIONS, SECTIONS[1:], strict=False):
        body = doc.split(section, 1)[1].split(following, 1)[0]
        assert body.strip(), f"{code}: section {section!r} is empty"


@pytest.mark.parametrize("code", sorted(MODULES))
def test_metadata_matches_the_registry(code: str) -> None:
    rule = rule_module(code).RULE
    assert rule.code == code
    assert re.fullmatch(r"[a-z]+(-[a-z0-9]+)+", rule.name), rule.name
    assert rule.severity in ("error", "warning", "info")
    assert rule.fix in ("safe", "unsafe", "none")
    assert MODULES[code] == rule.name.replace("-", "_")
