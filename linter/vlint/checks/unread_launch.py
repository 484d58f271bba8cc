"""What it does
    Reports a place in a linted file that looks like a vLLM launch but is not one of the launches
    vlint read from the file: nothing in it was checked.

    The mentions looked for:

    - ``vllm serve`` (not ``vllm serve --help``, nor ``vllm serve`` at the end of a string, nor
      ``vllm serve ...``, its arguments left out);
    - the server modules run with ``python -m``: ``vllm.entrypoints.openai.api_server``,
      ``vllm.entrypoints.api_server``, ``vllm.entrypoints.cli.main`` (not an ``import`` of them);
    - a vLLM server image, ``vllm/vllm-openai`` and its variants (``-rocm``, ``-cpu``...), in a
      file (in Markdown, a fence) where vlint read no launch at all: a launch's image is often
      written away from its command (dstack's ``image:``, a Kubernetes worker beside its
      leader).  Not an image alone on its line (a name in a list or a text block), nor one that
      ``docker pull|push|tag|build|save|load|ps|stop|kill|rm|logs...`` or
      ``singularity|apptainer pull|build`` names, nor one run with ``--entrypoint`` on the same
      line (it runs that program; a server module it runs is a mention of its own), nor one in
      a Helm chart (its values name the image, its templates hold the command), except as
      follows;
    - in a Helm values file (no template actions) where vlint read no launch: its first vLLM
      image (``image: vllm/vllm-openai:TAG``, ``image: {registry, repository, tag}``, any key
      written as a vLLM image reference, or a repository of vLLM images vlint knows) when the
      file also holds settings shaped as vLLM's arguments (``args:``, ``extraArgs:``, or a key
      of more than one word that spells a ``vllm serve`` option, ``maxModelLen``): the chart's
      templates make the command from them, and nothing in them was checked;
    - in Python, notebooks and Markdown Python fences that import ``vllm``: a call of
      ``LLM(...)``, ``EngineArgs(...)``, ``AsyncEngineArgs(...)``, ``LLMEngine(...)``,
      ``AsyncLLMEngine(...)`` or ``*.from_engine_args(...)`` that vlint did not read as a
      launch (in a notebook, the import may be in any code cell);
    - Ray Serve LLM's ``engine_kwargs``.

    A mention counts as read when it lies on the lines of a launch vlint found (from its first
    to its last argument, keyword or image). Not looked at: comment lines (``#`` first, in every
    kind but Markdown; ``;`` first too in a supervisord file), and in a Taskfile the lines of a
    task's ``desc:``, ``summary:``, ``label:`` or ``prompt:``; in Markdown, anything outside
    fenced code blocks (the command paragraphs and code spans the Markdown extractor reads are
    launches of their own; other prose names commands, it does not run them) and the output
    lines of a ``console`` fence; in a notebook,
    anything outside its code and Markdown cells (outputs, tracebacks, metadata), each cell read
    as Python or Markdown; in Python, docstrings and other string statements (prose: a docstring
    that says ``equivalent to vllm serve m``), and a call of a name the code binds to something
    other than vLLM's (``class LLM:``, ``from other import LLM``); in a makefile, ``define ...
    endef`` blocks (variable values); a line that only quotes the mention (``echo``, ``printf``,
    ``print(``, a logger, ``grep`` first, after a Make or just prefix too, ``@echo``; or an
    ``echo``/``printf`` word before it in the same command: ``sh -c "echo vllm serve m"``); in
    a systemd unit, a command before an empty ``ExecStart=``, which resets it. ``pip install
    vllm``, ``import vllm`` and ``vllm --version`` are not launch-shaped. At most five mentions are reported per file.

Why is this bad?
    vlint reports "All checks passed" for a file when it finds nothing wrong in the launches it
    read.  A launch it could not read (a command built in a way it does not follow, a kind of
    file or a shape of configuration it does not know) would pass the same way, with its removed
    flags, literal API keys or unpinned images unchecked.  This finding says which launches the
    clean result does not cover.

Example
    ``subprocess.run(make_command("vllm serve m --swap-space 4"))`` in Python, or a Kubernetes
    container whose image is ``vllm/vllm-openai:v0.9.0`` and whose command comes from a
    ConfigMap.

Use instead
    Where possible, write the launch in a form vlint reads (the README's ``Use`` section lists
    them); otherwise ignore the finding (``--ignore VL004``, or a suppression comment) once the
    launch has been checked by hand.

Fix safety
    No automatic fix.

vLLM releases
    All: the mentions are of vLLM's command (``vllm/entrypoints/cli/serve.py``), its server
    modules, its images and its Python entry points, whatever the release.

References
    https://docs.vllm.ai/en/latest/cli/serve/
    https://docs.vllm.ai/en/latest/deployment/docker/
    https://docs.vllm.ai/en/latest/serving/offline_inference/
    https://docs.ray.io/en/latest/serve/llm/
"""

from __future__ import annotations

import ast
import heapq
import re
import sys
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from vlint.checks.base import Rule, rule_finding
from vlint.errors import Unparsable
from vlint.model import Finding, Invocation, LineIndex, Locator, Span

# Reported by the engine (``vlint.engine.file``) after a file's launches are extracted.
RULE = Rule(code="VL004", name="unread-launch", severity="info", since="0.1.0", scope="file")

MAX_PER_FILE = 5

# The mentions that start with ``vllm`` (at a word boundary), each tried where ``str.find``
# finds the word: a scan for a literal is far faster than a pattern's.  No pattern repeats a
# group inside another, so none backtracks.
_AT_VLLM = (
    # Not ``vllm serve`` that ends a string (``"... equivalent to vllm serve"``): no model, no
    # arguments, a name; nor ``vllm serve ...``, an example with its arguments left out.
    (re.compile(
        r"vllm[ \t]+serve\b(?![ \t]+(?:--help|-h)\b|[\"']|[ \t]+(?:\.\.\.|\u2026)(?![^\s\"']))"
    ), "serve"),
    (re.compile(r"vllm\.entrypoints\.(?:openai\.api_server|api_server|cli\.main)\b"), "module"),
    (re.compile(r"vllm/vllm-openai(?:-[a-z0-9]+)*(?::[\w.-]+)?(?:@sha256:[0-9a-f]{1,64})?"),
     "image"),
)
# vLLM's Python entry points, called: a call the Python extractor did not read as a launch (a
# notebook cell whose import is in another cell, a fence that does not parse, an engine built
# from arguments vlint cannot see) is a mention.
_PYTHON_CALL = re.compile(
    r"\b((?:Async)?LLMEngine\.from_engine_args|(?:Async)?EngineArgs|(?:Async)?LLMEngine|LLM)"
    r"[ \t]*\("
)
_ENGINE_KWARGS = "engine_kwargs"
_DEFINES_NAME = re.compile(
    r"^[ \t]*(?:(?:class|def)[ \t]+((?:Async)?(?:LLMEngine|EngineArgs)|LLM)\b"
    r"|((?:Async)?(?:LLMEngine|EngineArgs)|LLM)[ \t]*=(?!=))",
    re.MULTILINE,
)
_IMPORTS_VLLM = re.compile(r"^[ \t]*(?:from[ \t]+vllm\b|import[ \t]+vllm\b)", re.MULTILINE)
# Commands that name an image without starting it.
_NOT_STARTED = re.compile(
    r"\b(?:docker|podman|nerdctl)[ \t]+(?:image[ \t]+)?"
    r"(?:pull|push|tag|build|save|load|rmi|inspect|history|ps|images|stop|kill|rm|logs)\b"
    r"|\b(?:singularity|apptainer)[ \t]+(?:pull|build)\b"
    # An image run with another entry point runs that program, not vLLM's server.
    r"|--entrypoint\b"
)
_LOOKBACK = 200
# A line that holds an image name and nothing else (a list of images, a name in a text block)
# names it; a launch has a command, a key (``image:``) or an instruction (``FROM``) around it.
_ONLY_BEFORE = re.compile(r"[ \t]*(?:-[ \t]+)?[\"']?")
_ONLY_AFTER = re.compile(r"[\"']?,?[ \t]*\r?(?:\n|$)")
# Tests at the start of a mention's line (``re.match`` at the line start: they read only what
# they match).
_COMMENT = re.compile(r"[ \t]*#")
_INI_COMMENT = re.compile(r"[ \t]*[#;]")  # supervisord's configuration parser
# A Taskfile's prose keys (https://taskfile.dev/docs/reference/schema): a task's description.
_TASK_PROSE = re.compile(r"[ \t]*(?:desc|summary|label|prompt)[ \t]*:")
# (After a YAML list's ``- ``, IPython's ``!``, or Make's and just's ``@``/``-``/``+`` prefixes.)
_QUOTES_IT = re.compile(
    r"[ \t]*(?:-[ \t]+|!|[@+-]+)?"
    r"(?:(?:echo|printf|grep|egrep|rg)\b|print[ \t]*\(|logger\.\w+\(|log\w*\()"
)
# ``echo``/``printf`` as a word (after a blank or a quote) inside a command before a mention.
_ECHO_WORD = re.compile(r"(?:^|(?<=[\s'\"]))(?:echo|printf)(?=[\s'\"])")
# GNU Make's ``define`` directive (with its modifiers) and ``endef``.
_MAKE_DEFINE = re.compile(r"[ \t]*(?:(?:override|export|private)[ \t]+)*define\b")
_MAKE_ENDEF = re.compile(r"[ \t]*endef\b")
# systemd: an empty ``ExecStart=`` resets the commands before it (systemd.service(5)).
_EXEC_START_RESET = re.compile(r"^[ \t]*ExecStart[ \t]*=[ \t]*\r?$", re.MULTILINE)
_IMPORT_LINE = re.compile(r"[ \t]*(?:from|import)[ \t]")
_FENCE = re.compile(r"[ \t]*(?:>[ \t]*)*(`{3,}|~{3,})[ \t]*\{?\.?([\w-]*)")
_PYTHON_LANGUAGES = frozenset({"python", "python3", "py"})
_CONSOLE_LANGUAGES = frozenset({"console", "shell-session", "shellsession"})
# A transcript's command line (the Markdown extractor reads only these and their continuations).
_PROMPT = re.compile(r"[ \t]*(?:>[ \t]*)*[$#][ \t]")


def unread(path: str, kind: str, text: str,
           invocations: Sequence[Invocation]) -> list[Finding]:
    """The first ``MAX_PER_FILE`` launch-shaped mentions of ``text`` outside every launch read.

    Linear in the text: the patterns do not backtrack, and each test on a mention's line reads
    at most ``_LOOKBACK`` characters of it."""
    if "vllm" not in text.lower() and "engine_kwargs" not in text:
        return []
    read = _Read(invocations)
    if kind == "helm" and not invocations and "{{" not in text:
        return _helm_values(path, text, read)
    if kind == "notebook":
        return _notebook(path, text, read)
    calls = None
    if kind in ("python", "markdown") and _IMPORTS_VLLM.search(text) is not None:
        calls = _PYTHON_CALL
    lines = LineIndex.of(text)
    code = _python(text) if kind == "python" else None
    if code is not None and code.statements:
        read.covered = _grown(read.covered, code.statements)
    return list(_scan(path, kind, text, calls, read, lines.pos, MAX_PER_FILE, code))


def _helm_values(path: str, text: str, read: _Read) -> list[Finding]:
    """A values file with no launch read: its command mentions, and one vLLM image whose
    settings look like vLLM's arguments (``extract.helm.unread_values_image``)."""
    found = list(_scan(path, "helm", text, None, read, LineIndex.of(text).pos, MAX_PER_FILE))
    from vlint.extract import helm  # lazy: only Helm files are asked (its YAML readers are heavy)

    image = helm.unread_values_image(path, text)
    if image is not None and len(found) < MAX_PER_FILE:
        found.append(_finding(path, image.span, "image", image.value))
    return sorted(found, key=lambda finding: finding.span.start)


class _Read:
    """The launches vlint read in a file: the lines they cover, and the lines they start on."""

    def __init__(self, invocations: Sequence[Invocation]) -> None:
        self.covered = _covered_lines(invocations)
        self.anchors = sorted(invocation.anchor.start.line for invocation in invocations)


def _notebook(path: str, text: str, read: _Read) -> list[Finding]:
    """A notebook's mentions, in its code and Markdown cells only (not in outputs or metadata,
    where a traceback or a log names ``vllm serve`` without running it); a code cell as Python
    (its ``!`` lines as the commands they are), a Markdown cell as Markdown.  The cells share one
    namespace, so an import of vLLM in any code cell makes vLLM's calls mentions in all."""
    from vlint.syntax import notebook  # lazy: only notebooks are read this way

    try:
        cells = [c for c in notebook.parse(text).cells if c.cell_type in ("code", "markdown")]
    except Unparsable:
        return []  # reported as VL002 by the engine
    # A code cell's Python, its IPython lines masked offset for offset (None: a shell cell).
    pythons = {c.number: notebook.ipython(c.source).python for c in cells if c.cell_type == "code"}
    code = {n: _python(p.text) for n, p in pythons.items() if p is not None}
    calls = None
    if any(_IMPORTS_VLLM.search(c.source.text) for c in cells if c.number in code):
        calls = _PYTHON_CALL
    own = frozenset().union(*(c.own for c in code.values()))
    found: list[Finding] = []
    for cell in cells:
        kind, cell_calls, cell_code = "markdown", calls, None
        if cell.cell_type == "code":
            kind, cell_code = "python", code.get(cell.number)
            if cell_code is None:
                cell_calls = None
            else:
                cell_code = _Code(cell_code.ends, own, cell_code.prose)
        found.extend(_scan(path, kind, cell.source.text, cell_calls, read, cell.source.locate,
                           MAX_PER_FILE - len(found), cell_code))
        if len(found) >= MAX_PER_FILE:
            break
    return found


def _scan(
    path: str, kind: str, text: str, calls: re.Pattern[str] | None, read: _Read,
    locate: Locator, limit: int, code: _Code | None = None,
) -> Iterator[Finding]:
    """The first ``limit`` mentions in ``text`` (a file of ``kind``, or a notebook cell read as
    one), each at its file position (``locate`` maps an offset of ``text`` to it); ``code`` as
    for ``_mentions``."""
    if limit <= 0 or (calls is None and "vllm" not in text.lower()
                      and _ENGINE_KWARGS not in text):
        return
    lines = LineIndex.of(text)
    fences = _Fences(text) if kind == "markdown" else None
    reset = 0
    if kind == "systemd":
        reset = max((m.start() for m in _EXEC_START_RESET.finditer(text)), default=0)
    defines = _defines(text) if kind == "makefile" else []
    count = 0
    for start, end, what in _mentions(text, calls, code):
        local = lines.line_of(start) + 1
        at = locate(start)
        if _inside(read.covered, at.line) or _inside(defines, local):
            continue
        if code is not None and _inside(code.prose, local):
            continue
        line_start = lines.starts[local - 1]
        if fences is not None and not fences.may_run(what, local, text, lines):
            continue
        if kind != "markdown" and (_INI_COMMENT if kind == "supervisord" else _COMMENT).match(
                text, line_start):
            continue
        if kind == "taskfile" and _TASK_PROSE.match(text, line_start):
            continue
        if _quoted(text, line_start, start) or start < reset:
            continue
        if what == "module" and _IMPORT_LINE.match(text, line_start, start):
            continue
        if what == "image" and (
            kind == "helm" or _image_beside_a_launch(local, read.anchors, fences, text, lines,
                                                     locate)
            or _NOT_STARTED.search(text, max(line_start, start - _LOOKBACK), start)
            or (_ONLY_BEFORE.fullmatch(text, line_start, start) is not None
                and _ONLY_AFTER.match(text, end) is not None)
        ):
            continue
        yield _finding(path, Span(at, locate(end)), what, text[start:end])
        count += 1
        if count == limit:
            return


def _quoted(text: str, line_start: int, start: int) -> bool:
    """Whether the mention at ``start`` is only quoted: its line starts with ``echo``,
    ``printf``, ``print(``, a logger or ``grep``; or, in the command it is part of (after the
    last ``;``, ``&``, ``|``, ``(``, `` ` `` before it on its line), an ``echo`` or ``printf``
    word comes before it (``sh -c "echo vllm serve m"``, ``docker run alpine echo ...``)."""
    if _QUOTES_IT.match(text, line_start, start):
        return True
    window = max(line_start, start - _LOOKBACK)
    separator = max(text.rfind(char, window, start) for char in ";&|(`")
    return _ECHO_WORD.search(text, max(window, separator + 1), start) is not None


def _defines(text: str) -> list[tuple[int, int]]:
    """The lines of a makefile's ``define ... endef`` blocks (nested ones counted): variable
    values, which run nowhere unless expanded (the GNU Make manual, "Defining Multi-Line
    Variables").  A line that starts with a tab is a recipe line, never a ``define``."""
    blocks: list[tuple[int, int]] = []
    depth = first = 0
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith("\t") and not depth:
            continue
        if _MAKE_DEFINE.match(line):
            depth, first = depth + 1, first if depth else number
        elif depth and _MAKE_ENDEF.match(line):
            depth -= 1
            if not depth:
                blocks.append((first, number))
    if depth:
        blocks.append((first, text.count("\n") + 1))
    return blocks


def _mentions(text: str, calls: re.Pattern[str] | None,
              code: _Code | None = None) -> Iterator[tuple[int, int, str]]:
    """Every launch-shaped mention as (start, end, what it is), in file order; ``code``: what
    ``ast`` says of the text, where it is Python, to tell vLLM's calls from the rest."""
    streams = [_vllm_mentions(text), _engine_kwargs(text)]
    if calls is not None:  # the call's name, without its parenthesis
        code = code or _NO_CODE
        streams.append(
            (m.start(), m.end(1), "call") for m in calls.finditer(text)
            if (m.group(1).split(".")[0] not in code.own or text[m.start() - 1:m.start()] == ".")
            and (code.ends is None or m.end(1) in code.ends)
        )
    return heapq.merge(*streams)


@dataclass(frozen=True)
class _Code:
    """What ``ast`` says of a Python text: where the callee of each call ends (so a call's name
    written in a string or a docstring is no call), None when the text does not parse (an elided
    snippet in a Markdown fence: every call-shaped text counts); and the names of vLLM's entry
    points the code binds to something else (``class LLM:``, ``from other import LLM``, ``LLM =
    ...``): a bare call of one is not vLLM's."""

    ends: frozenset[int] | None
    own: frozenset[str]
    # The lines of its docstrings and other string statements, and of strings that are the
    # values of a dict display (``{"equivalent_command": f"vllm serve ..."}``: data, not a
    # command given to anything): prose, never run.
    prose: list[tuple[int, int]] = field(default_factory=list)
    # The lines of each simple statement (an assignment, an expression, a return): a launch read
    # on one of its lines covers all of them (``LLMConfig(...)`` over many lines, the dict
    # ``engine_kwargs = dict(...)`` its keywords were read from).
    statements: list[tuple[int, int]] = field(default_factory=list)


_NO_CODE = _Code(None, frozenset())
_ENTRY_NAMES = frozenset({"LLM", "EngineArgs", "AsyncEngineArgs", "LLMEngine", "AsyncLLMEngine"})


def _python(text: str) -> _Code:
    """``text`` read with ``ast`` (parsed, never run); by pattern where it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        own = frozenset(m.group(1) or m.group(2) for m in _DEFINES_NAME.finditer(text))
        return _Code(None, own)
    lines = LineIndex.of(text)
    ends: set[int] = set()
    bound: set[str] = set()
    prose: list[tuple[int, int]] = []
    statements: list[tuple[int, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, _SIMPLE_STATEMENTS):
            statements.append((node.lineno, node.end_lineno or node.lineno))
        if isinstance(node, ast.Expr) and isinstance(node.value, (ast.Constant, ast.JoinedStr)):
            prose.append((node.lineno, node.end_lineno or node.lineno))
        elif isinstance(node, ast.Dict):
            prose.extend((value.lineno, value.end_lineno or value.lineno) for value in node.values
                         if isinstance(value, (ast.Constant, ast.JoinedStr)))
        elif isinstance(node, ast.Call) and node.func.end_lineno is not None:
            line = node.func.end_lineno - 1
            if line < len(lines.starts):
                start = lines.starts[line]
                column = node.func.end_col_offset or 0  # in UTF-8 bytes
                written = text[start:start + column].encode("utf-8")[:column]
                ends.add(start + len(written.decode("utf-8", "ignore")))
        elif isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            bound.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, ast.ImportFrom) and not _is_vllm(node.module or ""):
            bound.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            bound.update(alias.asname for alias in node.names if alias.asname)
    return _Code(frozenset(ends), frozenset(bound & _ENTRY_NAMES), _merged(prose), statements)


_SIMPLE_STATEMENTS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Return)


def _grown(covered: list[tuple[int, int]], statements: list[tuple[int, int]]
           ) -> list[tuple[int, int]]:
    """``covered`` with the lines of every statement that shares a line with it (both sorted
    and merged by ``_merged``; linear after the sort)."""
    grown = list(covered)
    for first, last in statements:
        at = bisect_right(covered, (last, sys.maxsize))
        if at and covered[at - 1][1] >= first:
            grown.append((first, last))
    return _merged(grown)


def _is_vllm(module: str) -> bool:
    return module == "vllm" or module.startswith("vllm.")


def _vllm_mentions(text: str) -> Iterator[tuple[int, int, str]]:
    at = text.find("vllm")
    while at >= 0:
        if not _word_before(text, at):
            for pattern, what in _AT_VLLM:
                match = pattern.match(text, at)
                if match is not None:
                    yield match.start(), match.end(), what
                    break
        at = text.find("vllm", at + 4)


def _engine_kwargs(text: str) -> Iterator[tuple[int, int, str]]:
    at = text.find(_ENGINE_KWARGS)
    while at >= 0:
        end = at + len(_ENGINE_KWARGS)
        if not _word_before(text, at) and not _word_before(text, end + 1):
            yield at, end, "engine_kwargs"
        at = text.find(_ENGINE_KWARGS, end)


def _word_before(text: str, at: int) -> bool:
    """Whether the character before ``at`` is a word character (no word boundary there)."""
    if at == 0 or at > len(text):
        return False
    before = text[at - 1]
    return before.isalnum() or before == "_"


def _finding(path: str, span: Span, what: str, written: str) -> Finding:
    quoted = written.rstrip(" \t")
    if what == "image":
        message = (f"'{quoted}' image with no vLLM command vlint could read: its launch was "
                   "not checked")
    elif what == "call":
        message = f"'{quoted}(...)' is a vLLM launch vlint could not read: it was not checked"
    elif what == "engine_kwargs":
        message = ("'engine_kwargs' of a Ray Serve LLM launch vlint could not read: it was not "
                   "checked")
    else:
        message = f"'{quoted}' here is a vLLM launch vlint could not read: it was not checked"
    return rule_finding(
        RULE, path, span, message,
        "write the launch in a form vlint reads (see `vlint explain VL004`), or check it by "
        "hand and ignore VL004 here",
    )


def _image_beside_a_launch(line: int, anchors: list[int], fences: _Fences | None, text: str,
                           lines: LineIndex, locate: Locator) -> bool:
    """Whether a launch was read in the same file (in Markdown, the same fence) as an image
    mention on ``line`` of ``text``: the image of a launch is often written away from its
    command (dstack's ``image:``, a Kubernetes worker beside its leader).  ``anchors``: the
    launches' first lines in the file, sorted."""
    if fences is None:
        return bool(anchors)
    first, last = (locate(lines.starts[at - 1]).line for at in fences.around(line))
    index = bisect_left(anchors, first)
    return index < len(anchors) and anchors[index] <= last


def _covered_lines(invocations: Sequence[Invocation]) -> list[tuple[int, int]]:
    """The line ranges of the launches read, merged and sorted."""
    ranges: list[tuple[int, int]] = []
    for invocation in invocations:
        spans = [invocation.anchor, *(t.span for t in invocation.args),
                 *(t.span for t in invocation.repeated_entry),
                 *(k.name.span for k in invocation.keywords),
                 *(k.value_span for k in invocation.keywords)]
        if invocation.image_span is not None:
            spans.append(invocation.image_span)
        ranges.append((min(s.start.line for s in spans), max(s.end.line for s in spans)))
    return _merged(ranges)


class _Fences:
    """A Markdown document's fenced blocks: a fence closes with its own character, at least as
    long, and an unclosed one runs to the end, as CommonMark has it."""

    def __init__(self, text: str) -> None:
        self.blocks: list[tuple[int, int]] = []  # the lines inside each fence
        self.python: list[tuple[int, int]] = []
        self.transcripts: list[tuple[int, int]] = []
        opened: tuple[str, int, str] | None = None  # the fence, its line, its language
        number = 0
        for number, line in enumerate(text.split("\n"), start=1):
            match = _FENCE.match(line)
            if match is None:
                continue
            fence = match.group(1)
            if opened is None:
                opened = (fence, number, match.group(2).lower())
            elif (fence[0] == opened[0][0] and len(fence) >= len(opened[0])
                  and not line[match.end():].strip()):
                self._add(opened[1] + 1, number - 1, opened[2], text)
                opened = None
        if opened is not None:
            self._add(opened[1] + 1, number, opened[2], text)

    def _add(self, first: int, last: int, language: str, text: str) -> None:
        self.blocks.append((first, last))
        if language in _PYTHON_LANGUAGES:
            self.python.append((first, last))
        elif language in _CONSOLE_LANGUAGES:
            self.transcripts.append((first, last))

    def around(self, line: int) -> tuple[int, int]:
        """The lines of the fence ``line`` is in (one it is in)."""
        return self.blocks[bisect_right(self.blocks, (line, sys.maxsize)) - 1]

    def may_run(self, what: str, line: int, text: str, lines: LineIndex) -> bool:
        """Whether a mention on ``line`` may be code that runs: inside a fence, in a Python
        fence for a Python call, on a command line (or its continuation) of a transcript."""
        if not _inside(self.blocks, line) or (what == "call" and not _inside(self.python, line)):
            return False
        if not _inside(self.transcripts, line):
            return True
        start = lines.starts[line - 1]
        if _PROMPT.match(text, start):
            return True
        before = text[max(0, start - 2):start].rstrip("\r\n")
        return line > 1 and before.endswith("\\")


def _merged(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for first, last in sorted(ranges):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return merged


def _inside(ranges: list[tuple[int, int]], line: int) -> bool:
    index = bisect_right(ranges, (line, sys.maxsize)) - 1
    return index >= 0 and ranges[index][0] <= line <= ranges[index][1]
