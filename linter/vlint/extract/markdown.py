"""Markdown: the vLLM launches in fenced code blocks, with exact positions in the ``.md`` file.

Blocks are found with markdown-it-py (CommonMark), so fences inside lists and blockquotes and
``~~~`` fences count, and a fence's backticks inside a code span do not.  Each block's content
becomes a text of its own whose every line maps back to its file line and the indentation cut
from it:

- ``bash``, ``sh``, ``shell``, ``zsh``: shell (read as a transcript when it starts with a
  prompt: ``$ ``, ``(venv) user@host:~/dir$ ``, ``[root@node ~]# ``, ``bash-5.2$ ``);
- ``console`` / ``shell-session``: only prompted lines (those prompts, or ``# ``) and their
  ``\\`` continuations are commands; output lines are not;
- ``python`` / ``py``: Python; an interactive session (``pycon``, or a Python or shell block
  whose first line is a ``>>>`` prompt): the prompted lines without their prompts;
- ``cmd`` / ``bat`` / ``batch``: the Windows command prompt, read as shell with ``^`` as the
  line continuation and ``%NAME%`` an unresolved variable;
- ``yaml`` / ``yml``: the first YAML kind that claims the block (compose, ...), ``dockerfile``
  likewise, through the extractor registry;
- ``powershell`` / ``ps1`` / ``pwsh``: shell, but only a block with no PowerShell syntax the
  shell would read differently: no backtick (PowerShell's line continuation and escape), no
  ``$env:`` / ``${env:`` variable, no ``@(`` / ``@{`` array or hash literal, and no backslash
  (a literal character in PowerShell, an escape in the shell).  A block with any of them is not
  read (VL004 reports the launch in it as unread);
- untagged blocks that name vLLM's command (``vllm serve``, the API server module) or hold a
  command line as below, and indented (four-space) code blocks that hold a command line (an
  indented block is as often a log as code): shell.

MDX (Docusaurus) pages write fences inside JSX or HTML elements (``<Tabs>``, ``<TabItem>``,
``<details>``) with no blank line around them, at any indentation; CommonMark reads such a
region as one raw HTML block (or, in a list item, one paragraph), with nothing in it as code.
A region that holds a fence is read again as MDX reads it (``_mdx``): its fences are code, its
HTML and prose are not.  An HTML comment or a ``<pre>``/``<script>``/``<style>`` block is never
read.  (A fence inside an element whose content has a blank line is cut there by CommonMark,
and is read only as far as the blank line.)

Outside code blocks, two shapes are commands too (read as shell at their exact source
positions):

- a paragraph whose first line is a command line (``vllm serve``, ``python -m vllm.``/``python3
  -m vllm.``, ``docker run``, ``sudo docker run``, ``podman run``, followed by an option or by a
  first word with ``/``, ``:``, ``$`` or ``<`` in it, as a model, an image or a variable) and
  whose every other line is a ``\\`` continuation or another command line.  A paragraph with
  inline markup (emphasis, links, code spans, HTML other than a ``<placeholder>``) is prose;
- an inline code span that is one such command line naming what it serves (a model word,
  ``--model``, or a container run's image: `` `vllm serve org/model --port 8000` ``); a span
  that names only a flag (`` `vllm serve --tensorizer` reads...``) is prose.

A command line that asks for ``--help`` / ``-h`` is not a launch.

In shell blocks a ``<placeholder>`` is an unresolved value, as the document means it.

A block that does not parse (an elided YAML example, Python with ``...``) is skipped: one bad
snippet does not stop the rest of the document from being linted.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from vlint.discover import yaml_kind
from vlint.errors import Unparsable
from vlint.extract import (
    compose, dockerfile, helm, kubernetes, launcher, python, shell, shell_programs, vllm_config,
)
from vlint.extract.deployment import enclosed
from vlint.extract.nested import Embedded, ExtractContext, Extractor, embedded, relocate
from vlint.model import Invocation
from vlint.syntax import yamlpos

if TYPE_CHECKING:
    from markdown_it.token import Token

KIND = "markdown"
_SHELL = frozenset({"bash", "sh", "shell", "zsh"})
_CONSOLE = frozenset({"console", "shell-session", "shellsession"})
_PYTHON = frozenset({"python", "py", "python3"})
_YAML = frozenset({"yaml", "yml"})
_DOCKERFILE = frozenset({"dockerfile", "docker", "containerfile"})
_PROMPT = re.compile(r"[$#] ")
# A shell prompt as transcripts print it: an optional virtual environment, then ``user@host:dir``
# or ``[user@host dir]`` or ``bash-5.2``, then ``$``/``#``/``%`` and a blank (``(venv)
# user@gpu:~/app$ ``, ``[root@node0 ~]# ``).  A bare ``# `` is a prompt only in a console
# block: in a shell block it starts a comment.
_RICH_PROMPT = re.compile(
    r"(?:\([\w.-]{1,64}\)[ \t]*)?"
    r"(?:[\w.-]{1,64}@[\w.-]{1,255}(?::[^\s$#%]{0,255})?|\[[^\]\n]{1,128}\]|bash-[\d.]+)?"
    r"[ \t]*[$#%][ \t]"
)
_SHELL_PROMPT = re.compile(
    r"(?:\([\w.-]{1,64}\)[ \t]*)?"
    r"(?:(?:[\w.-]{1,64}@[\w.-]{1,255}(?::[^\s$#%]{0,255})?|\[[^\]\n]{1,128}\]|bash-[\d.]+)"
    r"[ \t]*[$#%]|\$)[ \t]"
)
# Python's interactive prompts (``>>> `` and ``... ``), as doctests and REPL transcripts show
# them (https://docs.python.org/3/tutorial/interpreter.html#interactive-mode).
_REPL = re.compile(r">>>(?: |$)|\.\.\.(?: |$)")
_PYCON = frozenset({"pycon", "python-console", "pyrepl"})
# Windows command prompt fences: ``^`` ends a continued line and ``%NAME%`` is a variable
# (cmd.exe's ``call /?`` and ``set /?``; https://learn.microsoft.com/windows-server/
# administration/windows-commands/cmd).
_CMD = frozenset({"cmd", "bat", "batch", "dos"})
_CMD_VARIABLE = re.compile(r"%([A-Za-z_][A-Za-z0-9_]*)%")
_PLACEHOLDER = re.compile(r"(?<![<\w])<([A-Za-z][\w.-]*)>")
_HAS_FENCE = re.compile(r"^ {0,3}(```|~~~)", re.MULTILINE)
_LOOKS_LIKE_VLLM = re.compile(r"\bvllm\s+serve\b|vllm\.entrypoints\.openai\.api_server")
_POWERSHELL = frozenset({"powershell", "ps1", "pwsh"})
# PowerShell syntax the shell would read differently (about_Quoting_Rules, about_Special_Characters,
# about_Environment_Variables, about_Arrays, about_Hash_Tables in Microsoft's PowerShell docs).
_POWERSHELL_SYNTAX = re.compile(r"`|\\|\$\{?env:|@[({]", re.IGNORECASE)
# The commands that start vLLM in a document's prose, at the start of a line: vLLM's CLI
# (``vllm/entrypoints/cli/serve.py``), its server modules run with ``python -m``, and a container
# run (https://docs.vllm.ai/en/latest/deployment/docker/).
_COMMAND = re.compile(
    r"[ \t]*(?:vllm[ \t]+serve|python3?[ \t]+-m[ \t]+vllm\.[\w.]+"
    r"|(?:sudo[ \t]+)?(?:docker|podman)[ \t]+run)(?=[ \t])"
)
_HELP = re.compile(r"(?<!\S)(?:--help|-h)(?:=\S*)?(?!\S)")
# Inline tokens that a command paragraph may hold; any other (emphasis, a link, a code span)
# makes it prose.
_PLAIN_INLINE = frozenset({"text", "softbreak", "hardbreak"})


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    context = context or ExtractContext((KIND,))
    found: list[Invocation] = []
    for language, block in _blocks(embedded(_document_lines(text))):
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


# The pseudo-languages of what is not a fence: read as shell when they hold a command.
_INDENTED, _COMMANDS = "<indented>", "<commands>"


def _blocks(
    document: Embedded, depth: int = 0, jsx: bool = False
) -> Iterator[tuple[str, Embedded]]:
    """The code of ``document`` as (language, text), each line mapped back through
    ``document``'s own: fenced blocks (their language), indented blocks (``_INDENTED``), and the
    command paragraphs and code spans of the module docstring (``_COMMANDS``).

    An indented block that holds a fence (MkDocs content tabs and admonitions indent their
    body by four spaces, which CommonMark reads as an indented code block) is read again as
    Markdown, and so is a JSX region that holds a fence (``_mdx``): only its fences (``jsx``),
    since its text is the elements' prose.
    """
    from markdown_it import MarkdownIt  # lazy: only Markdown files need the parser

    lines = document.text.split("\n")
    tokens = MarkdownIt("commonmark").parse(document.text)
    for index, token in enumerate(tokens):
        if token.map is None:
            continue
        first = token.map[0]
        if token.type == "code_block":
            if depth < 4 and _HAS_FENCE.search(token.content):
                yield from _blocks(_rows(document, lines, first, token.content), depth + 1)
            else:
                yield _INDENTED, _rows(document, lines, first, token.content)
        elif token.type == "fence":
            info = token.info.strip().lstrip("{").lstrip(".")
            language = re.split(r"[\s,{}]", info, maxsplit=1)[0].lower() if info else ""
            yield language, _rows(document, lines, first + 1, token.content)
        elif token.type == "html_block":
            if depth < 4 and _ANY_FENCE.search(token.content) and not _RAW_HTML.match(
                token.content
            ):
                region = _mdx(_rows(document, lines, first, token.content))
                yield from _blocks(region, depth + 1, jsx=True)
        elif token.type == "inline" and not jsx:
            in_paragraph = index > 0 and tokens[index - 1].type == "paragraph_open"
            if in_paragraph and depth < 4 and _holds_jsx_fences(token.content):
                rows = _inline_rows(document, lines, token)
                if rows is not None:
                    yield from _blocks(_mdx(embedded(rows)), depth + 1, jsx=True)
                    continue
            yield from _inline_commands(document, lines, token, in_paragraph)


# MDX (Docusaurus) pages write fences inside JSX elements (``<Tabs>``, ``<TabItem>``,
# ``<details>``) at any indentation; CommonMark reads such a run of lines as one raw HTML block
# (or, inside a list item, as one paragraph), so nothing in it is code.
_ANY_FENCE = re.compile(r"^[ \t]*(```|~~~)", re.MULTILINE)
_FENCE_LINE = re.compile(r"([ \t]*)(`{3,}|~{3,})(.*)")
_TAG_LINE = re.compile(r"[ \t]*</?[A-Za-z]")
_JSX_LINE = re.compile(r"^[ \t]*</?[A-Za-z][\w.:-]*(?=[\s/>]|$)", re.MULTILINE)
# HTML blocks whose content is not Markdown in either reading: comments (commented-out code),
# and the raw elements CommonMark keeps verbatim (spec section 4.6, start condition 1).
_RAW_HTML = re.compile(r"[ \t]*(?:<!--|<\?|<![A-Za-z\[]|<(?:script|pre|style|textarea)\b)",
                       re.IGNORECASE)


def _holds_jsx_fences(content: str) -> bool:
    """Whether a paragraph is JSX elements with fences in them: one of its lines starts with
    a tag and one opens a fence."""
    return _JSX_LINE.search(content) is not None and _ANY_FENCE.search(content) is not None


def _mdx(block: Embedded) -> Embedded:
    """The lines of a JSX region as MDX reads them, to be parsed again as Markdown.

    MDX has no indented code (https://mdxjs.com/docs/what-is-mdx/#markdown): a fence opens at
    any indentation, and its content lines lose as much indentation as its opening line has
    (as CommonMark's do, spec section 4.5); the closing fence may be indented too.  Outside
    fences a line loses its indentation, and a line that starts with a tag is blank: HTML and
    JSX are never read as commands, and the blank keeps what is around them apart.  Every kept
    character stays at its file position.
    """
    rows: list[tuple[int, int, str]] = []
    fence: tuple[str, int, int] | None = None  # marker character, its length, the indentation
    for line, shift, content in zip(block.lines, block.shifts, block.text.split("\n")):
        marker = _FENCE_LINE.fullmatch(content)
        blanks = len(content) - len(content.lstrip(" \t"))
        if fence is not None:
            char, length, indent = fence
            run = marker.group(2) if marker is not None else ""
            if marker is not None and run[0] == char and len(run) >= length and not (
                marker.group(3).strip()
            ):
                fence = None
                cut = blanks
            else:
                cut = min(blanks, indent)
        elif marker is not None and (marker.group(2)[0] == "~" or "`" not in marker.group(3)):
            fence = (marker.group(2)[0], len(marker.group(2)), blanks)
            cut = blanks
        elif _TAG_LINE.match(content):
            rows.append((line, shift, ""))
            continue
        else:
            cut = blanks
        rows.append((line, shift + cut, content[cut:]))
    return embedded(rows)


def _inline_commands(
    document: Embedded, lines: list[str], token: Token, in_paragraph: bool
) -> Iterator[tuple[str, Embedded]]:
    """A command paragraph, or the command code spans of an inline run (a paragraph's, a
    heading's), as shell texts at their source positions."""
    children = token.children or []
    if not any(child.type == "code_inline" for child in children) and not (
        in_paragraph and _COMMAND.match(token.content)
    ):
        return
    rows = _inline_rows(document, lines, token)
    if rows is None:  # a line not found in its source (a tab expanded): no exact position
        return
    if in_paragraph and all(
        child.type in _PLAIN_INLINE
        or (child.type == "html_inline" and _PLACEHOLDER.fullmatch(child.content))
        for child in children
    ):
        if _command_paragraph([kept for _, _, kept in rows]):
            yield _COMMANDS, embedded(rows)
        return
    yield from _code_spans(rows, children)


def _inline_rows(
    document: Embedded, lines: list[str], token: Token
) -> list[tuple[int, int, str]] | None:
    """The lines of an inline run, each at its file line and the characters cut before it.

    markdown-it cuts each line's container markers and indentation and the run's trailing
    blanks, so a line of the run is the end of its source line, trailing blanks aside."""
    assert token.map is not None
    rows = []
    for offset, kept in enumerate(token.content.split("\n")):
        at = token.map[0] + offset
        if at >= len(lines) or at >= len(document.lines):
            return None
        original, wanted = lines[at].rstrip(" \t"), kept.rstrip(" \t")
        if not original.endswith(wanted):
            return None
        shift = len(original) - len(wanted)
        rows.append((document.lines[at], document.shifts[at] + shift, kept))
    return rows


def _command_paragraph(lines: list[str]) -> bool:
    """Whether a paragraph's lines are commands: each line that does not continue one before
    it with a ``\\`` starts a command line (read with the lines it continues onto)."""
    commands: list[str] = []
    continued = False
    for line in lines:
        stripped = line.rstrip(" \t")
        joined = stripped.removesuffix("\\")
        if continued:
            commands[-1] += " " + joined
        else:
            commands.append(joined)
        continued = stripped.endswith("\\")
    return all(_command_line(command) for command in commands)


def _command_line(line: str) -> bool:
    """Whether ``line`` starts vLLM in a way prose does not: a command of ``_COMMAND``, then an
    option or a first word that names a model, an image or a variable; never ``--help``."""
    command = _COMMAND.match(line)
    if command is None or _HELP.search(line, command.end()):
        return False
    words = line[command.end():].split()
    if not words:
        return False
    return any(word.startswith("-") for word in words) or any(c in words[0] for c in "/:$<")


def _code_spans(
    rows: list[tuple[int, int, str]], children: list[Token]
) -> Iterator[tuple[str, Embedded]]:
    """The code spans of an inline run that are one command line each, at their positions.

    markdown-it gives a span's text, not its place: each is found in the run's text after
    the previous one, as its backtick string, the text (with the one space CommonMark strips
    from each end, where it did), and the backtick string again.  A span not found so (one over
    several lines, whose line breaks CommonMark made spaces) ends the search: the spans after it
    cannot be placed for sure, and searching on for each would be quadratic."""
    text = "\n".join(kept for _, _, kept in rows)
    starts = [0]
    for _, _, kept in rows[:-1]:
        starts.append(starts[-1] + len(kept) + 1)
    cursor = 0
    for child in children:
        if child.type != "code_inline":
            continue
        fence, code = child.markup, child.content
        found = _find_span(text, fence, code, cursor)
        if found is None:
            return
        start, cursor = found
        if not _command_line(code) or not _names_a_model(code):
            continue
        row = bisect_right(starts, start) - 1
        line, shift, _ = rows[row]
        yield _COMMANDS, embedded([(line, shift + start - starts[row], code)])


def _names_a_model(code: str) -> bool:
    """Whether a command in a code span names what it serves (a model word, ``--model``, an
    image): prose names a flag with one (`` `vllm serve --tensorizer` reads weights...``), a
    launch it can run says what it serves."""
    command = _COMMAND.match(code)
    if command is None:
        return False
    words = code[command.end():].split()
    if not words:
        return False
    if code[:command.end()].rstrip().endswith("run"):
        return True  # ``docker run ... IMAGE``: the image says it
    return not words[0].startswith("-") or any(
        word == "--model" or word.startswith("--model=") for word in words)


def _find_span(text: str, fence: str, code: str, cursor: int) -> tuple[int, int] | None:
    """Where the code of a span written ``fence code fence`` starts in ``text``, from
    ``cursor``, and where the span ends; None when it is not there as a whole backtick run."""
    for pad in ("", " "):
        written = fence + pad + code + pad + fence
        at = text.find(written, cursor)
        end = at + len(written)
        if at >= 0 and text[at - 1:at] != "`" and text[end:end + 1] != "`":
            return at + len(fence) + len(pad), end
    return None


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
        if language in _PYCON or (language in _PYTHON | _SHELL and _is_repl(block.text)):
            return _nested(path, "python", _repl(block), context)
        if language in _SHELL and not _is_transcript(block.text):
            return _shell(path, block, context)
        if language in _CONSOLE or language in _SHELL:
            return _shell(path, _console(block), context)
        if language in _PYTHON:
            return _nested(path, "python", block, context)
        if language in _CMD:
            return _shell(path, _cmd(block), context)
        if language in _YAML:
            kind = _yaml_kind(path, block.text)
            if kind is None and _compose_services(block.text):
                return _nested(path, compose.KIND, _under_services(block), context)
            return _nested(path, kind, block, context) if kind else []
        if language in _DOCKERFILE:
            return _nested(path, "dockerfile", block, context)
        if language in _POWERSHELL and not _POWERSHELL_SYNTAX.search(block.text):
            return _shell(path, block, context)
        if language == _COMMANDS:
            return _shell(path, block, context)
        if language in ("", _INDENTED) and _holds_a_command(block.text, not language):
            return _shell(path, _console(block) if _is_transcript(block.text) else block,
                          context)
    except Unparsable:
        return []
    return []


def _shell(path: str, block: Embedded, context: ExtractContext) -> list[Invocation]:
    # Documentation writes placeholders as ``<model-name>``; read one as an unresolved word
    # (``$model-name_``, the same length so every position stays), not as redirections.
    text = _PLACEHOLDER.sub(lambda m: "$" + m.group(1) + "_", block.text)
    placeholders = [match.span() for match in _PLACEHOLDER.finditer(block.text)]
    return shell_programs.extract(path, text, context.inner(shell.KIND, block.locate),
                                  unknown=placeholders)


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
    """The kind of a YAML fence; a fragment of a manifest (documentation often shows only the
    part to change: ``spec: containers: - image: ...``, without ``apiVersion:``/``kind:``) is
    read as Kubernetes when it holds a ``containers:`` list: the manifest walk finds containers
    wherever they sit."""
    data = text.encode("utf-8")
    kind = yaml_kind(path, data)
    if kind is None and _CONTAINERS.search(data):
        return kubernetes.KIND
    return kind


_CONTAINERS = re.compile(rb"^\s*(init)?[cC]ontainers:[ \t]*(#.*)?$", re.MULTILINE)
# The keys of a compose service that say what it runs or how
# (https://docs.docker.com/reference/compose-file/services/).
_SERVICE_KEYS = frozenset({"command", "entrypoint", "environment", "ports", "deploy", "volumes"})


def _compose_services(text: str) -> bool:
    """A fragment of a compose file that shows its services without ``services:`` (``vllm:
    {image: ..., command: ...}``): a mapping each of whose values is a mapping, one of them
    with ``image:`` (or ``build:``) and a key only a service has."""
    documents = yamlpos.compose_documents(text)
    if not documents or len(documents) != 1 or yamlpos.mapping_node(documents[0]) is None:
        return False
    services = [value for _, value in yamlpos.mapping_items(documents[0])]
    if not services or any(yamlpos.mapping_node(v) is None for v in services):
        return False
    return any(
        (yamlpos.mapping_get(v, "image") is not None or yamlpos.mapping_get(v, "build") is not None)
        and any(yamlpos.mapping_get(v, key) is not None for key in _SERVICE_KEYS)
        for v in services
    )


def _under_services(block: Embedded) -> Embedded:
    """The fragment as the compose file it is part of: a ``services:`` line before it, each of
    its lines indented under it (two characters every position is moved back by)."""
    rows = [(block.lines[0], 0, "services:")]
    for line, shift, content in zip(block.lines, block.shifts, block.text.split("\n")):
        rows.append((line, shift - 2, "  " + content if content else content))
    return embedded(rows)


def _holds_a_command(text: str, untagged: bool) -> bool:
    """Whether an untagged fence or an indented block starts vLLM: one of its lines (past a
    ``$ `` prompt) is a command line; or, in an untagged fence (written as code, where an
    indented block is often a log), it names ``vllm serve`` or the API server module."""
    if untagged and _LOOKS_LIKE_VLLM.search(text):
        return True
    return any(_command_line(_without_prompt(line)) for line in text.split("\n"))


def _without_prompt(line: str) -> str:
    prompt = _SHELL_PROMPT.match(line)
    return line[prompt.end():] if prompt is not None else line


def _is_transcript(text: str) -> bool:
    """A shell block written as a transcript: its first line is a prompt (``$ ``, ``(venv)
    user@host:~$ ``; not a bare ``# ``, a comment there)."""
    first = next((line for line in text.split("\n") if line.strip()), "")
    return _SHELL_PROMPT.match(first) is not None


def _is_repl(text: str) -> bool:
    """A Python block written as an interactive session: its first line is a ``>>>`` prompt."""
    first = next((line for line in text.split("\n") if line.strip()), "")
    return first.startswith(">>>")


def _repl(block: Embedded) -> Embedded:
    """An interactive session's code: each prompted line without its prompt (cut, so that the
    code keeps its own indentation, and its characters their columns), output lines empty."""
    rows = []
    for line, shift, content in zip(block.lines, block.shifts, block.text.split("\n")):
        prompt = _REPL.match(content)
        if prompt is None:
            rows.append((line, shift, ""))
        else:
            rows.append((line, shift + prompt.end(), content[prompt.end():]))
    return embedded(rows)


def _cmd(block: Embedded) -> Embedded:
    """A Windows command prompt block as the shell reads it, every character in its place: a
    line-ending ``^`` becomes ``\\`` and ``%NAME%`` the unresolved ``$NAME_``."""
    rows = []
    for line, shift, content in zip(block.lines, block.shifts, block.text.split("\n")):
        kept = _CMD_VARIABLE.sub(lambda m: "$" + m.group(1) + "_", content)
        stripped = kept.rstrip()
        if stripped.endswith("^") and not stripped.endswith("^^"):
            kept = stripped[:-1] + "\\" + kept[len(stripped):]
        rows.append((line, shift, kept))
    return embedded(rows)


def _console(block: Embedded) -> Embedded:
    """A console transcript's commands: prompts become spaces, output lines become empty."""
    rows = []
    continued = False
    for line, shift, content in zip(block.lines, block.shifts, block.text.split("\n")):
        prompt = _RICH_PROMPT.match(content) or _PROMPT.match(content)
        if prompt is not None and not continued:
            kept = " " * prompt.end() + content[prompt.end() :]
        elif continued:
            # The shell's continuation prompt (PS2, ``> ``) before a continued line is not
            # part of the command.
            kept = "  " + content[2:] if content.startswith("> ") else content
        else:
            kept = ""
        continued = bool(kept) and kept.endswith("\\")
        rows.append((line, shift, kept))
    return embedded(rows)
