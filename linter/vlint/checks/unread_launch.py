"""What it does
    Reports a place in a linted file that looks like a vLLM launch but is not one of the launches
    vlint read from the file: nothing in it was checked.

    The mentions looked for:

    - ``vllm serve`` (not ``vllm serve --help``);
    - the server modules run with ``python -m``: ``vllm.entrypoints.openai.api_server``,
      ``vllm.entrypoints.api_server``, ``vllm.entrypoints.cli.main`` (not an ``import`` of them);
    - a vLLM server image, ``vllm/vllm-openai`` and its variants (``-rocm``, ``-cpu``...), in a
      file (in Markdown, a fence) where vlint read no launch at all: a launch's image is often
      written away from its command (dstack's ``image:``, a Kubernetes worker beside its
      leader).  Not an image that ``docker pull|push|tag|build|save|load`` or
      ``singularity|apptainer pull|build`` names, nor one run with ``--entrypoint`` on the same
      line (it runs that program; a server module it runs is a mention of its own), nor one in
      a Helm chart (its values name the image, its templates hold the command);
    - in Python that imports ``vllm``: an engine built as ``LLMEngine(...)``,
      ``AsyncLLMEngine(...)`` or ``*.from_engine_args(...)`` (the Python extractor reads every
      call of vLLM's ``LLM``, ``EngineArgs`` and ``AsyncEngineArgs`` itself); in a Markdown
      Python fence, those calls too (a fence that does not parse is not read);
    - Ray Serve LLM's ``engine_kwargs``.

    A mention counts as read when it lies on the lines of a launch vlint found (from its first
    to its last argument, keyword or image).  Not looked at: comment lines (``#`` first, in every
    kind but Markdown); in Markdown, anything outside fenced code blocks (prose and inline code
    name commands, they do not run them) and the output lines of a ``console`` fence; a line
    that only quotes the mention (``echo``, ``printf``, ``print(``, a logger, ``grep``); in a
    systemd unit, a command before an empty ``ExecStart=``, which resets it.  ``pip install
    vllm``, ``import vllm`` and ``vllm --version`` are not launch-shaped.  At most five mentions
    are reported per file.

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

import heapq
import re
import sys
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence

from vlint.checks.base import Rule, rule_finding
from vlint.model import Finding, Invocation, LineIndex, Span

# Reported by the engine (``vlint.engine.file``) after a file's launches are extracted.
RULE = Rule(code="VL004", name="unread-launch", severity="info", since="0.1.0", scope="file")

MAX_PER_FILE = 5

# The mentions that start with ``vllm`` (at a word boundary), each tried where ``str.find``
# finds the word: a scan for a literal is far faster than a pattern's.  No pattern repeats a
# group inside another, so none backtracks.
_AT_VLLM = (
    (re.compile(r"vllm[ \t]+serve\b(?![ \t]+(?:--help|-h)\b)"), "serve"),
    (re.compile(r"vllm\.entrypoints\.(?:openai\.api_server|api_server|cli\.main)\b"), "module"),
    (re.compile(r"vllm/vllm-openai(?:-[a-z0-9]+)*(?::[\w.-]+)?(?:@sha256:[0-9a-f]{1,64})?"),
     "image"),
)
# In Python files the extractor reads every call of vLLM's ``LLM``, ``EngineArgs`` and
# ``AsyncEngineArgs`` (through the names imports bind, which a pattern cannot follow): only the
# engines built another way are mentions there.  In Markdown a Python fence may not parse.
_ENGINE_CALL = re.compile(r"\b((?:Async)?LLMEngine(?:\.from_engine_args)?)[ \t]*\(")
_PYTHON_CALL = re.compile(
    r"\b((?:Async)?LLMEngine\.from_engine_args|(?:Async)?EngineArgs|(?:Async)?LLMEngine|LLM)"
    r"[ \t]*\("
)
_ENGINE_KWARGS = "engine_kwargs"
_IMPORTS_VLLM = re.compile(r"^[ \t]*(?:from[ \t]+vllm\b|import[ \t]+vllm\b)", re.MULTILINE)
# Commands that name an image without starting it.
_NOT_STARTED = re.compile(
    r"\b(?:docker|podman|nerdctl)[ \t]+(?:image[ \t]+)?"
    r"(?:pull|push|tag|build|save|load|rmi|inspect|history)\b"
    r"|\b(?:singularity|apptainer)[ \t]+(?:pull|build)\b"
    # An image run with another entry point runs that program, not vLLM's server.
    r"|--entrypoint\b"
)
_LOOKBACK = 200
# Tests at the start of a mention's line (``re.match`` at the line start: they read only what
# they match).
_COMMENT = re.compile(r"[ \t]*#")
_QUOTES_IT = re.compile(
    r"[ \t]*(?:-[ \t]+)?(?:(?:echo|printf|grep|egrep|rg)\b|print[ \t]*\(|logger\.\w+\(|log\w*\()"
)
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
    covered = _covered_lines(invocations)
    anchors = sorted(invocation.anchor.start.line for invocation in invocations)
    lines = LineIndex.of(text)
    fences = _Fences(text) if kind == "markdown" else None
    calls = None
    if kind in ("python", "markdown") and _IMPORTS_VLLM.search(text) is not None:
        calls = _ENGINE_CALL if kind == "python" else _PYTHON_CALL
    reset = 0
    if kind == "systemd":
        reset = max((m.start() for m in _EXEC_START_RESET.finditer(text)), default=0)
    found: list[Finding] = []
    for start, end, what in _mentions(text, calls):
        at = lines.pos(start)
        if _inside(covered, at.line):
            continue
        line_start = lines.starts[at.line - 1]
        if fences is not None and not fences.may_run(what, at.line, text, lines):
            continue
        if kind != "markdown" and _COMMENT.match(text, line_start):
            continue
        if _QUOTES_IT.match(text, line_start, start) or start < reset:
            continue
        if what == "module" and _IMPORT_LINE.match(text, line_start, start):
            continue
        if what == "image" and (
            kind == "helm" or _image_beside_a_launch(at.line, anchors, fences)
            or _NOT_STARTED.search(text, max(line_start, start - _LOOKBACK), start)
        ):
            continue
        found.append(_finding(path, Span(at, lines.pos(end)), what, text[start:end]))
        if len(found) == MAX_PER_FILE:
            break
    return found


def _mentions(text: str, calls: re.Pattern[str] | None) -> Iterator[tuple[int, int, str]]:
    """Every launch-shaped mention as (start, end, what it is), in file order."""
    streams = [_vllm_mentions(text), _engine_kwargs(text)]
    if calls is not None:  # the call's name, without its parenthesis
        streams.append((m.start(), m.end(1), "call") for m in calls.finditer(text))
    return heapq.merge(*streams)


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


def _image_beside_a_launch(line: int, anchors: list[int], fences: _Fences | None) -> bool:
    """Whether a launch was read in the same file (in Markdown, the same fence) as an image
    mention on ``line``: the image of a launch is often written away from its command (dstack's
    ``image:``, a Kubernetes worker beside its leader).  ``anchors``: the launches' first
    lines, sorted."""
    if fences is None:
        return bool(anchors)
    first, last = fences.around(line)
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
