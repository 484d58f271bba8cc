"""``vlint show``: each invocation's settings as the target release resolves them.

Per invocation and release (chosen as ``vlint check`` chooses it: ``--target-version``, else the
file's configuration, else the image tag or the project's pins, else the newest release), the
served model, then every flag or keyword as written, the destination it sets, the value vLLM
resolves it to and where that value comes from (the file position of the value, or the release
default with ``--all``); a known flag the release's parser rejects says why.  A secret is
masked as ``vlint check`` masks it (VL503).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from packaging.version import Version

from vlint.knowledge import catalog
from vlint.checks.quoting import SECRET_DESTS, mask_secrets
from vlint.engine.lint import Report, _releases_for
from vlint.settings import Settings
from vlint.model import Invocation, Span
from vlint.normalise.resolution import OptionUse, Resolution, Setting, resolve
from vlint.render.escape import inert, json_dumps, plain_line
from vlint.render.sarif import span_text

Row = tuple[str, str, str]


def show(paths: Sequence[str], settings: Settings, include_defaults: bool = False) -> str:
    """What ``vlint show`` prints: each invocation's header and its settings, then the notes."""
    report = Report()
    out: list[str] = []
    for resolution, source in _resolutions(paths, settings, report):
        out.extend(describe(resolution, source, include_defaults))
    if not out:
        out.append("no vLLM invocation found")
    out.extend(f"note: {note}" for note in report.notes)
    return "".join(plain_line(line) + "\n" for line in out)


def _resolutions(
    paths: Sequence[str], settings: Settings, report: Report
) -> Iterator[tuple[Resolution, str]]:
    """Every invocation resolved against each release ``vlint check`` would check it with."""
    targets: dict[str | None, Sequence[Version] | None] = {}
    for invocation, source in _invocations(paths, report):
        own = settings.per_file(invocation.path) if settings.per_file is not None else settings
        if own.target not in targets:
            targets[own.target] = _user_target(own.target, report)
        for release in targets[own.target] or _releases_for(invocation, None, report):
            yield resolve(invocation, catalog.load(release)), source
    if report.defaulted_target:
        report.notes.insert(
            0,
            f"no target release given or pinned: showing the newest known, vLLM "
            f"{catalog.newest()} (use --target-version)",
        )


def _user_target(target: str | None, report: Report) -> Sequence[Version] | None:
    if not target:
        return None
    resolved = catalog.target(target)
    if resolved.note and resolved.note not in report.notes:
        report.notes.append(resolved.note)
    return resolved.releases


def _invocations(paths: Sequence[str], report: Report) -> Iterator[tuple[Invocation, str]]:
    """The invocations of the files in ``paths``, read as ``vlint check`` reads them: only
    inside the given roots, regular files, at most the maximum file size (else a note)."""
    from vlint.discover import Refused, confined_read, kind_of, linted_roots, prefilter, walk
    from vlint.extract import extractor
    from vlint.settings import Settings

    roots = linted_roots(list(paths))
    for path in walk(list(paths)):
        try:
            data = confined_read(path, roots, Settings().max_file_size)
        except Refused as refused:
            report.notes.append(f"{path}: skipped ({refused.reason})")
            continue
        kind = kind_of(path, data) if prefilter(data) else None
        if kind is None:
            continue
        text = data.decode("utf-8", errors="replace")
        for invocation in extractor(kind).extract(path, text):
            yield invocation, text


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
    return "vllm serve" if invocation.entry == "serve" else "vllm.entrypoints.openai.api_server"


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


def show_json(paths: Sequence[str], settings: Settings, include_defaults: bool = False) -> str:
    """The resolved settings of every invocation as JSON (the shape is in the README)."""
    report = Report()
    rows = [
        _json_invocation(resolution, include_defaults)
        for resolution, _source in _resolutions(paths, settings, report)
    ]
    document = {"version": 1, "invocations": rows, "notes": report.notes}
    return json_dumps(document, default=str) + "\n"


def _json_masked(value: Any) -> Any:
    if isinstance(value, str):
        return mask_secrets(value)
    if isinstance(value, dict):
        return {k: _json_masked(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_masked(v) for v in value]
    return value


def _json_invocation(resolution: Resolution, include_defaults: bool) -> dict[str, object]:
    from vlint.policy.evaluate import variables

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
    from vlint.checks.secret_in_config import SECRET_VARIABLES

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
