"""Markdown: the vLLM launches in fenced code blocks, with exact positions in the ``.md`` file.

Fences are found with markdown-it-py (CommonMark), so fences inside lists and blockquotes and
``~~~`` fences count, and code spans and indented blocks do not.  Each fence's content becomes a
text of its own whose every line maps back to its file line and the indentation cut from it:

- ``bash``, ``sh``, ``shell``, ``zsh``: shell (read as a transcript when it starts with ``$ ``);
- ``console`` / ``shell-session``: only prompted lines (``$ `` or ``# ``) and their ``\\``
  continuations are commands; output lines are not;
- ``python`` / ``py``: Python;
- ``yaml`` / ``yml``: the first YAML kind that claims the block (compose, ...), ``dockerfile``
  likewise, through the extractor registry;
- untagged blocks that start vLLM (``vllm serve``, the API server module): shell.

In shell blocks a ``<placeholder>`` is an unresolved value, as the document means it.

A block that does not parse (an elided YAML example, Python with ``...``) is skipped: one bad
snippet does not stop the rest of the document from being linted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from vlint.discover import yaml_kind
from vlint.errors import Unparsable
from vlint.extract import compose, dockerfile, helm, kubernetes, launcher, python, shell, vllm_config
from vlint.extract.deployment import enclosed
from vlint.extract.nested import Embedded, ExtractContext, Extractor, embedded, relocate
from vlint.model import Invocation

KIND = "markdown"
_SHELL = frozenset({"bash", "sh", "shell", "zsh"})
_CONSOLE = frozenset({"console", "shell-session", "shellsession"})
_PYTHON = frozenset({"python", "py", "python3"})
_YAML = frozenset({"yaml", "yml"})
_DOCKERFILE = frozenset({"dockerfile", "docker", "containerfile"})
_PROMPT = re.compile(r"[$#] ")
_PLACEHOLDER = re.compile(r"(?<![<\w])<([A-Za-z][\w.-]*)>")
_HAS_FENCE = re.compile(r"^ {0,3}(```|~~~)", re.MULTILINE)
_LOOKS_LIKE_VLLM = re.compile(r"\bvllm\s+serve\b|vllm\.entrypoints\.openai\.api_server")


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    context = context or ExtractContext((KIND,))
    found: list[Invocation] = []
    for language, block in _fences(embedded(_document_lines(text))):
        # The fence's launches were found through this document (origin[0] is its kind).
        found.extend(enclosed(i, KIND) for i in _block(path, language, block, context))
    return found


def _document_lines(text: str) -> list[tuple[int, int, str]]:
    """The document's lines as markdown-it counts them, each at its file line and column.

    A lone ``\\r`` ends a Markdown line but not a file line (positions count ``\\n`` only):
    the text after it is the same file line, shifted.
    """
    rows = []
    for number, line in enumerate(text.split("\n"), start=1):
        start = 0
        for piece in line.removesuffix("\r").split("\r"):
            rows.append((number, start, piece))
            start += len(piece) + 1
    return rows


def _fences(document: Embedded, depth: int = 0) -> Iterator[tuple[str, Embedded]]:
    """The fenced blocks of ``document``, each line mapped back through ``document``'s own.

    An indented block that holds a fence (MkDocs content tabs and admonitions indent their
    body by four spaces, which CommonMark reads as an indented code block) is read again as
    Markdown.
    """
    from markdown_it import MarkdownIt  # lazy: only Markdown files need the parser

    lines = document.text.split("\n")
    for token in MarkdownIt("commonmark").parse(document.text):
        if token.map is None:
            continue
        first = token.map[0]
        if token.type == "code_block" and depth < 4 and _HAS_FENCE.search(token.content):
            yield from _fences(_rows(document, lines, first, token.content), depth + 1)
        if token.type != "fence":
            continue
        info = token.info.strip().lstrip("{").lstrip(".")
        language = re.split(r"[\s,{}]", info, maxsplit=1)[0].lower() if info else ""
        yield language, _rows(document, lines, first + 1, token.content)


def _rows(document: Embedded, lines: list[str], first: int, content: str) -> Embedded:
    """``content``'s lines, which start at ``lines[first]``, mapped to the file."""
    rows = []
    for index, kept in enumerate(content.split("\n")[:-1] if content else []):
        at = min(first + index, len(document.lines) - 1)
        original = lines[first + index] if first + index < len(lines) else kept
        shift = len(original) - len(kept) if original.endswith(kept) else 0
        rows.append((document.lines[at], document.shifts[at] + shift, kept))
    return embedded(rows)


def _block(path: str, language: str, block: Embedded, context: ExtractContext) -> list[Invocation]:
    try:
        if language in _SHELL and not _is_transcript(block.text):
            return _shell(path, block, context)
        if language in _CONSOLE or language in _SHELL:
            return _shell(path, _console(block), context)
        if language in _PYTHON:
            return _nested(path, "python", block, context)
        if language in _YAML:
            kind = _yaml_kind(path, block.text)
            return _nested(path, kind, block, context) if kind else []
        if language in _DOCKERFILE:
            return _nested(path, "dockerfile", block, context)
        if not language and _LOOKS_LIKE_VLLM.search(block.text):
            return _shell(path, block, context)
    except Unparsable:
        return []
    return []


def _shell(path: str, block: Embedded, context: ExtractContext) -> list[Invocation]:
    # Documentation writes placeholders as ``<model-name>``; read one as an unresolved word
    # (``$model-name_``, the same length so every position stays), not as redirections.
    text = _PLACEHOLDER.sub(lambda m: "$" + m.group(1) + "_", block.text)
    return shell.extract(path, text, context.inner(shell.KIND, block.locate))


# The kinds a fence can hold besides shell, each read by its own extractor.  (Imported here, not
# through the registry in ``vlint.extract``: the registry loads this module.)
HOSTED: Mapping[str, Extractor] = {
    compose.KIND: compose,
    dockerfile.KIND: dockerfile,
    helm.KIND: helm,
    kubernetes.KIND: kubernetes,
    launcher.KIND: launcher,
    python.KIND: python,
    vllm_config.KIND: vllm_config,
}


def _nested(path: str, kind: str, block: Embedded, context: ExtractContext) -> list[Invocation]:
    """Another kind's extractor on the block alone, its positions moved into this file."""
    hosted = HOSTED.get(kind)
    if hosted is None:
        return []
    found = hosted.extract(path, block.text, context.inner(kind))
    return [relocate(invocation, block) for invocation in found]


def _yaml_kind(path: str, text: str) -> str | None:
    return yaml_kind(path, text.encode("utf-8"))


def _is_transcript(text: str) -> bool:
    """A shell block written as a transcript: its first line is a ``$ `` prompt."""
    first = next((line for line in text.split("\n") if line.strip()), "")
    return first.startswith("$ ")


def _console(block: Embedded) -> Embedded:
    """A console transcript's commands: prompts become spaces, output lines become empty."""
    rows = []
    continued = False
    for line, shift, content in zip(block.lines, block.shifts, block.text.split("\n")):
        prompt = _PROMPT.match(content)
        if prompt is not None and not continued:
            kept = " " * prompt.end() + content[prompt.end() :]
        elif continued:
            kept = content
        else:
            kept = ""
        continued = bool(kept) and kept.endswith("\\")
        rows.append((line, shift, kept))
    return embedded(rows)
