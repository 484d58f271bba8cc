"""``vlint show``: each invocation's settings as the target release resolves them.

Per invocation and release (chosen as ``vlint check`` chooses it: ``--target-version``, else the
file's configuration, else the image tag or the project's pins, else the newest release), the
served model, then every flag or keyword as written, the destination it sets, the value vLLM
resolves it to and where that value comes from (the file position of the value, or the release
default with ``--all``); a known flag the release's parser rejects says why.  A secret is
masked as ``vlint check`` masks it (VL503).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from packaging.version import Version

from vlint.checks.quoting import SECRET_DESTS, mask_secrets
from vlint.checks.secret_in_config import SECRET_VARIABLES
from vlint.engine.lint import defaulted_note, lint
from vlint.engine.report import Report
from vlint.knowledge import catalog
from vlint.model import Finding, Invocation, Span
from vlint.normalise.resolution import OptionUse, Resolution, Setting, resolve
from vlint.policy.evaluate import variables
from vlint.render import concise
from vlint.render.escape import inert, json_dumps, plain_line
from vlint.render.json_output import finding_dict
from vlint.render.sarif import span_text
from vlint.settings import Settings

Row = tuple[str, str, str]


# The findings that mean a file could not be shown (it does not parse, or vlint failed on it).
FILE_PROBLEMS = ("VL002", "VL003")


def show(paths: Sequence[str], settings: Settings, include_defaults: bool = False) -> Shown:
    """What ``vlint show`` prints: each invocation's header and its settings, then each file
    that could not be shown (as ``vlint check`` reports it), then the notes."""
    report, resolutions = _resolutions(paths, settings)
    out: list[str] = []
    for resolution, source in resolutions:
        out.extend(describe(resolution, source, include_defaults))
    problems = _problems(report)
    if not out and not problems:
        out.append("no vLLM invocation found")
    text = "".join(plain_line(line) + "\n" for line in out)
    text += concise.render(replace(report, findings=problems))
    text += "".join(plain_line(f"note: {note}") + "\n" for note in report.notes)
    return Shown(text, bool(problems))


class Shown(NamedTuple):
    """What ``vlint show`` prints, and whether a file could not be shown (exit 1)."""

    text: str
    failed: bool


def _problems(report: Report) -> list[Finding]:
    return [f for f in report.findings if f.code in FILE_PROBLEMS]


def _resolutions(
    paths: Sequence[str], settings: Settings
) -> tuple[Report, list[tuple[Resolution, str]]]:
    """The run's report (read and linted as ``vlint check`` does it), and every invocation
    resolved against each release ``vlint check`` checked it with."""
    # One process: workers leave the launches out of the report.
    report = lint(paths, replace(settings, jobs=1), every_source=True)
    if report.defaulted_target:
        report.notes[report.notes.index(defaulted_note())] = defaulted_note("showing")
    resolutions = [
        (resolve(invocation, catalog.load(release)), report.sources[invocation.path])
        for invocation, releases in report.launches
        for release in releases
    ]
    return report, resolutions


def describe(resolution: Resolution, source: str, include_defaults: bool) -> list[str]:
    invocation = resolution.invocation
    start = invocation.anchor.start
    release = resolution.release.version
    header = (
        f"{inert(invocation.path)}:{start.line}:{start.column}: {_label(invocation)}, "
        f"{_model(resolution)}vLLM {release}"
    )
    rows = _written_rows(resolution, source)
    if include_defaults:
        rows += _default_rows(resolution, release)
    rows = [(inert(a), inert(b), inert(c)) for a, b, c in rows]
    if not rows:
        return [header, "  (nothing written)"]
    return [header, *_table(rows)]


def _model(resolution: Resolution) -> str:
    setting = resolution.settings.get("model")
    if setting is None or setting.value is None:
        return ""
    default = " (release default)" if setting.span is None else ""
    return f"model {inert(mask_secrets(repr(setting.value)))}{default}, "


def _label(invocation: Invocation) -> str:
    if invocation.style == "python":
        return f"{inert(invocation.callee or 'LLM')}(...)"
    return _ENTRY_LABELS[invocation.entry]


_ENTRY_LABELS = {
    "serve": "vllm serve",
    "api_server": "vllm.entrypoints.openai.api_server",
    "demo_server": "vllm.entrypoints.api_server",
}


def _written_rows(resolution: Resolution, source: str) -> list[Row]:
    path = resolution.invocation.path
    rows: list[Row] = []
    for use in resolution.uses:
        tokens = [use.token, *(v.token for v in use.values if v.token is not use.token)]
        dest = use.option.dest if use.option is not None else None
        secret = dest in SECRET_DESTS
        written = " ".join(
            token.text if token is use.token else mask_secrets(token.text, secret)
            for token in tokens
        )
        rejected = _rejection(use)
        if rejected is not None:
            rows.append((mask_secrets(written), f"(rejected: {rejected})", ""))
            continue
        rows.append(_row(mask_secrets(written), dest, resolution, path))
    for keyword, known in resolution.keywords:
        name = keyword.name.text
        value = mask_secrets(span_text(source, keyword.value_span), name in SECRET_DESTS)
        written = mask_secrets(f"{name}={value}")
        rows.append(_row(written, name if known else None, resolution, path))
    return rows


def _rejection(use: OptionUse) -> str | None:
    """Why the release's parser rejects a known option as written, in a few words."""
    if use.match == "ambiguous":
        return "ambiguous abbreviation of " + " / ".join(use.candidates)
    error = use.arity_error
    if use.option is None or error is None:
        return None
    for said, reason in _ARITY_REASONS:
        if said in error:
            return reason
    return error.partition(": ")[2] or error


_ARITY_REASONS = (
    ("ignored explicit argument", "takes no value"),
    ("expected at least one argument", "needs at least one value"),
    ("expected one argument", "needs a value"),
)


def _row(written: str, dest: str | None, resolution: Resolution, path: str) -> Row:
    setting = resolution.settings.get(dest) if dest is not None else None
    if dest is None or setting is None:
        return (written, "(not set: unknown to this release)", "")
    borrowed = resolution.invocation.borrowed_at
    if borrowed is not None and setting.span is not None and setting.span.start == borrowed:
        # Words another linted file holds (``Invocation.borrowed_at``): a chart's template,
        # a script a Dockerfile copies.
        return (written, _assignment(dest, setting), "another file")
    return (written, _assignment(dest, setting), _origin(path, setting.span))


def _assignment(dest: str, setting: Setting) -> str:
    certainty = "" if setting.certain else " (not certain statically)"
    value = setting.value
    if dest in SECRET_DESTS and isinstance(value, str) and setting.span is not None:
        return f"{dest} = {mask_secrets(value, True)!r}{certainty}"
    return f"{dest} = {mask_secrets(repr(value))}{certainty}"


def _origin(path: str, span: Span | None) -> str:
    if span is None:
        return "release default"
    return f"{path}:{span.start.line}:{span.start.column}"


def _default_rows(resolution: Resolution, release: Version) -> list[Row]:
    return [
        ("(default)", _assignment(dest, setting), f"vLLM {release} default")
        for dest, setting in sorted(resolution.settings.items())
        if setting.span is None
    ]


def _table(rows: list[Row]) -> list[str]:
    written = max(len(row[0]) for row in rows)
    origin = max(len(row[2]) for row in rows)
    return [f"  {a:<{written}}  {c:<{origin}}  {b}" for a, b, c in rows]


def show_json(paths: Sequence[str], settings: Settings, include_defaults: bool = False) -> Shown:
    """The resolved settings of every invocation as JSON (the shape is in the README), with
    the files that could not be shown (``findings``, as ``vlint check --output-format json``)."""
    report, resolutions = _resolutions(paths, settings)
    rows = [_json_invocation(resolution, include_defaults) for resolution, _ in resolutions]
    problems = _problems(report)
    document = {"version": 1, "invocations": rows, "notes": report.notes,
                "findings": [finding_dict(f) for f in problems]}
    return Shown(json_dumps(document, default=str) + "\n", bool(problems))


def _json_masked(value: Any) -> Any:
    if isinstance(value, str):
        return mask_secrets(value)
    if isinstance(value, dict):
        return {k: _json_masked(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_masked(v) for v in value]
    return value


def _json_invocation(resolution: Resolution, include_defaults: bool) -> dict[str, object]:
    invocation = resolution.invocation
    seen = variables(resolution)
    settings = {
        dest: {
            "value": setting.value,
            "certain": setting.certain,
            "written": setting.span is not None,
            "span": _json_span(setting.span),
        }
        for dest, setting in sorted(resolution.settings.items())
        if include_defaults or setting.span is not None
    }
    for dest in SECRET_DESTS & settings.keys():
        if isinstance(settings[dest]["value"], str) and settings[dest]["written"]:
            settings[dest]["value"] = mask_secrets(settings[dest]["value"], True)
    env = {
        name: mask_secrets(value, name in SECRET_VARIABLES)
        for name, value in seen["env"].items()
    }
    args = list(seen["args"])
    for index, arg in enumerate(args[:-1]):
        if arg == "--api-key":
            args[index + 1] = mask_secrets(args[index + 1], True)
    return {
        "path": invocation.path,
        "span": _json_span(invocation.anchor),
        "kind": invocation.kind,
        "style": invocation.style,
        "launcher": _label(invocation),
        "image": invocation.image,
        "release": str(resolution.release),
        "args": _json_masked(args),
        "env": _json_masked(env),
        "settings": _json_masked(settings),
    }


def _json_span(span: Span | None) -> dict[str, int] | None:
    if span is None:
        return None
    return {
        "line": span.start.line, "column": span.start.column,
        "end_line": span.end.line, "end_column": span.end.column,
    }
