"""SARIF 2.1.0 for code scanning: rule metadata, exact regions and stable fingerprints.

A fingerprint hashes the rule, the path, the offending source text and which occurrence of that
text in the file it is — never line numbers — so a finding keeps its identity when lines above
it move.  A URI is relative to the repository root (``uriBaseId`` ``%SRCROOT%``, whose
``file://`` URI ``originalUriBaseIds`` gives; the working directory outside a repository), so
neither it nor a fingerprint depends on where vlint was run from.  It percent-encodes the
path's bytes, so a file name that is not UTF-8 keeps its exact bytes (``bad%FF.sh``); text
elsewhere is valid Unicode (see :mod:`vlint.render.escape`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from vlint import __version__
from vlint.checks import all_rules
from vlint.checks.base import RuleModule
from vlint.checks.docs import documentation, help_uri, summary
from vlint.discover import repository_root
from vlint.engine.report import Report, kinds_by_count
from vlint.model import Finding, Span
from vlint.render.escape import json_dumps
from vlint.render.json_output import confirmation_dict

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/vlint/vlint"
FINGERPRINT_KEY = "vlint/v1"
LEVELS: Mapping[str, str] = {"error": "error", "warning": "warning", "info": "note"}


def _rule(module: RuleModule) -> dict[str, Any]:
    rule = module.RULE
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.name},
        "fullDescription": {"text": summary(module)},
        "help": {"text": documentation(module)},
        "helpUri": help_uri(rule.code),
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"since": rule.since, "fix": rule.fix},
    }


SRCROOT = "%SRCROOT%"


def source_root(report: Report) -> str:
    """The folder URIs are relative to: the repository of the first finding (or of the working
    directory), else the working directory."""
    start = os.path.dirname(os.path.abspath(report.findings[0].path)) if report.findings else "."
    found = repository_root(start)
    return str(found) if found is not None else os.path.realpath(".")


def uri(path: str, root: str | None = None) -> str:
    """A POSIX URI reference for ``path``, relative to ``root`` (the working directory when
    None); absolute (``file://``) when ``path`` is not inside it."""
    base = os.path.realpath(root if root is not None else ".")
    try:
        relative = os.path.relpath(os.path.realpath(path), base)
    except ValueError:  # another drive
        return PurePath(os.path.abspath(path)).as_uri()
    if relative == ".." or relative.startswith(".." + os.sep):
        return PurePath(os.path.realpath(path)).as_uri()
    return quote(os.fsencode(PurePath(relative).as_posix()))


def _location(path: str, root: str) -> dict[str, str]:
    written = uri(path, root)
    if written.startswith("file:"):
        return {"uri": written}
    return {"uri": written, "uriBaseId": SRCROOT}


def span_text(source: str | None, span: Span) -> str:
    """The text ``span`` covers in ``source`` (empty when the source is not known)."""
    if source is None:
        return ""
    lines = source.split("\n")
    start, end = span.start, span.end
    if not 1 <= start.line <= end.line <= len(lines):
        return ""
    if start.line == end.line:
        return lines[start.line - 1][start.column - 1 : end.column - 1]
    first = lines[start.line - 1][start.column - 1 :]
    last = lines[end.line - 1][: end.column - 1]
    return "\n".join([first, *lines[start.line : end.line - 1], last])


def fingerprints(report: Report, root: str | None = None) -> list[str]:
    """One stable fingerprint per finding, in ``report.findings`` order."""
    root = source_root(report) if root is None else root
    seen: dict[tuple[str, str, str], int] = {}
    prints: list[str] = []
    for finding in report.findings:
        text = span_text(report.sources.get(finding.path), finding.span)
        key = (finding.code, uri(finding.path, root), text)
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        material = "\0".join((*key, str(occurrence)))
        digest = hashlib.sha256(material.encode("utf-8", "surrogatepass"))
        prints.append(digest.hexdigest()[:32])
    return prints


def _result(finding: Finding, index: int | None, fingerprint: str, root: str) -> dict[str, Any]:
    rule: dict[str, Any] = {"ruleId": finding.code}
    if index is not None:
        rule["ruleIndex"] = index
    result = {
        **rule,
        "level": LEVELS[finding.severity],
        "message": {"text": f"{finding.message} (help: {finding.help})"},
        "locations": [{"physicalLocation": _physical(finding.path, finding.span, root)}],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
        "properties": _properties(finding),
    }
    if finding.related:
        result["relatedLocations"] = [
            {"id": number, "physicalLocation": _physical(finding.path, related.span, root),
             "message": {"text": related.message}}
            for number, related in enumerate(finding.related)
        ]
    return result


def _physical(path: str, span: Span, root: str) -> dict[str, Any]:
    start, end = span.start, span.end
    return {
        "artifactLocation": _location(path, root),
        "region": {
            "startLine": start.line,
            "startColumn": start.column,
            "endLine": end.line,
            "endColumn": end.column,
        },
    }


def _properties(finding: Finding) -> dict[str, Any]:
    properties: dict[str, Any] = {"vllm_versions": list(finding.vllm_versions)}
    if finding.invocation is not None:
        properties["invocation"] = finding.invocation
    if finding.confirmation is not None:
        properties["confirmation"] = confirmation_dict(finding.confirmation)
    return properties


def _policy_rules(report: Report, known: Mapping[str, int]) -> list[dict[str, Any]]:
    """Rule metadata for the policies (ORG001, VLP001) that have findings, from the findings."""
    rules: dict[str, dict[str, Any]] = {}
    for finding in report.findings:
        policy = not finding.code[2:3].isdigit()  # ORG001, VLP001: not a VLnnn rule
        if policy and finding.code not in known and finding.code not in rules:
            rules[finding.code] = {
                "id": finding.code,
                "name": finding.name,
                "shortDescription": {"text": finding.message},
                "help": {"text": finding.help},
                "properties": {"policy": True},
            }
    return [rules[code] for code in sorted(rules)]


def render(report: Report) -> str:
    modules = all_rules()
    indices = {module.RULE.code: i for i, module in enumerate(modules)}
    policies = _policy_rules(report, indices)
    indices.update({rule["id"]: len(modules) + i for i, rule in enumerate(policies)})
    root = source_root(report)
    results = [
        _result(finding, indices.get(finding.code), fingerprint, root)
        for finding, fingerprint in zip(report.findings, fingerprints(report, root), strict=True)
    ]
    run = {
        "tool": {
            "driver": {
                "name": "vlint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [_rule(module) for module in modules] + policies,
            }
        },
        "originalUriBaseIds": {SRCROOT: {"uri": PurePath(root).as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": results,
        "properties": {
            "targets": [str(v) for v in sorted(report.targets)],
            "invocationsByKind": dict(kinds_by_count(report.invocations_by_kind)),
        },
    }
    document = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json_dumps(document) + "\n"
