"""``vlint show``: each invocation's settings as the target release resolves them.

Per invocation and release, every flag or keyword as written, the destination it sets, the value
vLLM resolves it to and where that value comes from (the file position of the value, or the
release default with ``--all``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from packaging.version import Version

from vlint import catalog
from vlint.lint import Report, _releases_for
from vlint.model import Invocation, Span
from vlint.normalise import Resolution, Setting, resolve
from vlint.report.escape import inert, json_dumps, plain_line
from vlint.report.sarif import span_text

Row = tuple[str, str, str]


def show(paths: Sequence[str], target: str | None, include_defaults: bool = False) -> str:
    user_target = catalog.resolve_target(target) if target else None
    report = Report()
    out: list[str] = []
    for invocation, source in _invocations(paths, report):
        for release in user_target or _releases_for(invocation, None, report):
            resolution = resolve(invocation, catalog.load(release))
            out.extend(describe(resolution, source, include_defaults))
    if not out:
        out.append("no vLLM invocation found")
    if report.defaulted_target:
        report.notes.insert(
            0,
            f"no target release given or pinned: showing the newest known, vLLM "
            f"{catalog.newest()} (use --target-version)",
        )
    out.extend(f"note: {note}" for note in report.notes)
    return "".join(plain_line(line) + "\n" for line in out)


def _invocations(paths: Sequence[str], report: Report) -> Iterator[tuple[Invocation, str]]:
    """The invocations of the files in ``paths``, read as ``vlint check`` reads them: only
    inside the given roots, regular files, at most the maximum file size (else a note)."""
    from vlint.discover import Refused, confined_read, kind_of, linted_roots, prefilter, walk
    from vlint.extract import extractor
    from vlint.lint import Settings

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
        f"vLLM {release}"
    )
    rows = _written_rows(resolution, source)
    if include_defaults:
        rows += _default_rows(resolution, release)
    rows = [(inert(a), inert(b), inert(c)) for a, b, c in rows]
    if not rows:
        return [header, "  (nothing written)"]
    return [header, *_table(rows)]


def _label(invocation: Invocation) -> str:
    if invocation.style == "python":
        return f"{inert(invocation.callee or 'LLM')}(...)"
    return "vllm serve" if invocation.entry == "serve" else "vllm.entrypoints.openai.api_server"


def _written_rows(resolution: Resolution, source: str) -> list[Row]:
    path = resolution.invocation.path
    rows: list[Row] = []
    for use in resolution.uses:
        tokens = [use.token, *(v.token for v in use.values if v.token is not use.token)]
        written = " ".join(token.text for token in tokens)
        dest = use.option.dest if use.option is not None else None
        rows.append(_row(written, dest, resolution, path))
    for keyword, known in resolution.keywords:
        written = f"{keyword.name.text}={span_text(source, keyword.value_span)}"
        rows.append(_row(written, keyword.name.text if known else None, resolution, path))
    return rows


def _row(written: str, dest: str | None, resolution: Resolution, path: str) -> Row:
    setting = resolution.settings.get(dest) if dest is not None else None
    if dest is None or setting is None:
        return (written, "(not set: unknown to this release)", "")
    return (written, _assignment(dest, setting), _origin(path, setting.span))


def _assignment(dest: str, setting: Setting) -> str:
    certainty = "" if setting.certain else " (not certain statically)"
    return f"{dest} = {setting.value!r}{certainty}"


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


def show_json(paths: Sequence[str], target: str | None, include_defaults: bool = False) -> str:
    """The resolved settings of every invocation as JSON (the shape is in the README)."""
    user_target = catalog.resolve_target(target) if target else None
    report = Report()
    rows = []
    for invocation, _source in _invocations(paths, report):
        for release in user_target or _releases_for(invocation, None, report):
            resolution = resolve(invocation, catalog.load(release))
            rows.append(_json_invocation(resolution, include_defaults))
    document = {"version": 1, "invocations": rows, "notes": report.notes}
    return json_dumps(document, default=str) + "\n"


def _json_invocation(resolution: Resolution, include_defaults: bool) -> dict[str, object]:
    from vlint.policy_check import variables

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
    return {
        "path": invocation.path,
        "span": _json_span(invocation.anchor),
        "kind": invocation.kind,
        "style": invocation.style,
        "launcher": _label(invocation),
        "image": invocation.image,
        "release": str(resolution.release),
        "args": seen["args"],
        "env": seen["env"],
        "settings": settings,
    }


def _json_span(span: Span | None) -> dict[str, int] | None:
    if span is None:
        return None
    return {
        "line": span.start.line, "column": span.start.column,
        "end_line": span.end.line, "end_column": span.end.column,
    }
