"""Python code: ``LLM(...)``/``EngineArgs(...)``/``AsyncEngineArgs(...)`` calls, Ray Serve
``LLMConfig(...)``, argv lists, and commands built in strings.

The code is parsed with :mod:`ast` and never imported or run.  Only names bound by imports from
``vllm`` count as vLLM's classes, whatever alias they are imported under (and from ``ray`` for
``LLMConfig``).  Argv lists (``["vllm", "serve", model, "--max-num-seqs", "8"]``) are handed to
the argv recogniser; strings (literals, f-strings, ``+``, ``"sep".join([...])``, and names
assigned them) given to ``shlex.split(...)``, ``subprocess.run(..., shell=True)``,
``os.system(...)`` ... to the shell extractor, and those split by ``str.split()`` to the argv
recogniser.  A string that starts as a vLLM launch (``vllm serve``, ``python -m
vllm.entrypoints.``) given to another library's runner (``conn.run(...)``, a sandbox request's
``command=``) goes to the shell extractor too.  ``**config`` and Ray's
``engine_kwargs=config`` read the mapping assigned to ``config`` before the call.  A vLLM call
that unpacks its function's ``**kwargs`` parameter (``def __init__(self, **kwargs):
AsyncEngineArgs(**kwargs)``) takes its keywords from that function's callers in the module
(``_Forwarder``), Ray Serve's ``Deployment.bind(...)`` among them.  A notebook passes the names
its earlier cells imported (``imports``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Union

from vlint.errors import Unparsable
from vlint.extract import deployment, python_argv, python_cli_dict, shell
from vlint.extract.argv import recognise_all
from vlint.extract.nested import ExtractContext
from vlint.knowledge.catalog import option_lifetimes
from vlint.knowledge.curated import EngineWrapper, engine_wrappers
from vlint.model import Deployment, EnvVar, Invocation, Keyword, Locator, Pos, Span, Token

KIND = "python"
_CALLEES = frozenset({"LLM", "EngineArgs", "AsyncEngineArgs"})
_SHELL_FUNCTIONS = frozenset(
    {
        "os.system",
        "os.popen",
        "shlex.split",
        "subprocess.getoutput",
        "subprocess.getstatusoutput",
        "asyncio.create_subprocess_shell",
    }
)
_SUBPROCESS = frozenset(
    {
        "subprocess.run",
        "subprocess.Popen",
        "subprocess.call",
        "subprocess.check_call",
        "subprocess.check_output",
    }
)
_SIMPLE_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


class Source:
    """Positions in Python source: ast's UTF-8 byte columns become 1-based character columns."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")

    def pos(self, line: int, byte_column: int) -> Pos:
        if not 1 <= line <= len(self.lines):
            return Pos(line, byte_column + 1)
        encoded = self.lines[line - 1].encode("utf-8")
        return Pos(line, len(encoded[:byte_column].decode("utf-8", errors="replace")) + 1)

    def start(self, node: ast.expr | ast.keyword) -> Pos:
        return self.pos(node.lineno, node.col_offset)

    def end(self, node: ast.expr | ast.keyword) -> Pos:
        line = node.end_lineno if node.end_lineno is not None else node.lineno
        column = node.end_col_offset if node.end_col_offset is not None else node.col_offset
        return self.pos(line, column)

    def span(self, node: ast.expr | ast.keyword) -> Span:
        return Span(self.start(node), self.end(node))

    def segment(self, start: Pos, end: Pos) -> str:
        if start.line == end.line:
            return self.lines[start.line - 1][start.column - 1 : end.column - 1]
        parts = [self.lines[start.line - 1][start.column - 1 :]]
        parts.extend(self.lines[start.line : end.line - 1])
        parts.append(self.lines[end.line - 1][: end.column - 1])
        return "\n".join(parts)


def extract(
    path: str,
    text: str,
    context: ExtractContext | None = None,
    *,
    imports: dict[str, str] | None = None,
) -> list[Invocation]:
    """Every vLLM launch in Python source; raises Unparsable when it does not parse.

    ``imports``: the names code run before this text bound by imports (a notebook's earlier
    cells: Python resolves a cell's names in the namespace the cells run before it filled),
    local name → dotted name; the text's own imports are added to it, in place, for the code
    run after it."""
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        where = Pos(error.lineno or 1, max(error.offset or 1, 1))
        raise Unparsable(f"invalid Python: {error.msg}", where) from None
    except (ValueError, RecursionError, MemoryError) as error:
        # CPython's parser raises MemoryError when its stack overflows on deep nesting.
        raise Unparsable(f"invalid Python: {type(error).__name__}") from None
    source = Source(text)
    names = _import_bindings(tree)
    if imports is not None:
        imports.update(names)
        names = imports
    strings = _Strings(source, _string_bindings(tree))
    mappings = _mapping_bindings(tree)
    forwarders = _forwarders(tree, names)
    built = python_argv.built_lists(tree)
    consumed = {node for steps in built.values() for node in steps.consumed}
    programs = python_argv.program_names(tree)
    cli_builders = python_cli_dict.builders(tree, names)
    found: list[Invocation] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            forwarder = forwarders.get(id(node))
            if forwarder is not None:
                found.extend(_forwarded(path, source, names, node, forwarder, mappings))
                continue
            if isinstance(node.func, ast.Name) and node.func.id in cli_builders and node.args:
                found.extend(_cli_dict(path, source, node, mappings))
                continue
            found.extend(_call(path, source, names, node, strings, mappings))
        elif id(node) in built:
            steps = built[id(node)]
            launches = _argv_elements(path, source, steps.elements, programs)
            # A step not read (a loop adding words): the launch may hold more arguments.
            found.extend(launches if steps.complete else
                         [replace(launch, args_complete=False) for launch in launches])
        elif isinstance(node, ast.BinOp) and id(node) not in consumed:
            elements = python_argv.joined(node)
            if elements is not None:
                consumed.update(id(inner) for inner in ast.walk(node))
                found.extend(_argv_elements(path, source, [(e, None) for e in elements],
                                            programs))
        elif isinstance(node, (ast.List, ast.Tuple)) and id(node) not in consumed:
            found.extend(_argv_list(path, source, node, programs))
    found.sort(key=lambda invocation: invocation.anchor.start)
    return found


def _import_bindings(tree: ast.Module) -> dict[str, str]:
    """Local name → the dotted name it was imported as (``L`` → ``vllm.LLM``)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    root = alias.name.split(".", 1)[0]
                    names[root] = root
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                if alias.name != "*":
                    names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def qualified_name(node: ast.expr, names: dict[str, str]) -> str | None:
    """The dotted name a call target refers to, resolved through the imports."""
    attributes: list[str] = []
    while isinstance(node, ast.Attribute):  # a loop: attribute chains can be very deep
        attributes.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([names.get(node.id, node.id), *reversed(attributes)])


def _vllm_callee(node: ast.expr, names: dict[str, str]) -> str | None:
    root = node
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name) or root.id not in names:
        return None
    qualified = qualified_name(node, names)
    if qualified is None or not qualified.startswith("vllm."):
        return None
    last = qualified.rsplit(".", 1)[1]
    return last if last in _CALLEES else None


def _call(
    path: str,
    source: Source,
    names: dict[str, str],
    node: ast.Call,
    strings: _Strings,
    mappings: _Mappings,
) -> list[Invocation]:
    callee = _vllm_callee(node.func, names)
    if callee is not None:
        return [_keywords_invocation(path, source, node, callee, mappings)]
    if _is_split(node):
        assert isinstance(node.func, ast.Attribute)
        return _string_launches(path, strings, node.func.value, split=True)
    qualified = qualified_name(node.func, names)
    if qualified in _RAY_CONFIGS:
        found = _ray_config(path, source, node, mappings)
        return [] if found is None else [found]
    wrapper = engine_wrappers().get(qualified) if qualified is not None else None
    if wrapper is not None:
        found = _wrapped_engine(path, source, node, wrapper, mappings)
        return [] if found is None else [found]
    if qualified in _SHELL_FUNCTIONS or (qualified in _SUBPROCESS and _shell_true(node)):
        return _string_launches(path, strings, node.args[0], split=False) if node.args else []
    if qualified in _SUBPROCESS:
        return []  # without ``shell=True`` a string is the program's name, not a command line
    return _command_launches(path, strings, node)


# Other libraries' calls that run a command line: a sandbox's or a remote host's shell (Daytona
# ``sandbox.process.exec`` and ``SessionExecuteRequest(command=...)``, Fabric and Invoke
# ``Connection.run``, paramiko ``SSHClient.exec_command``, pexpect ``spawn``, ``os.popen``-like
# helpers).  What they run cannot be known from the name alone, so a string given to them is a
# launch only when it starts as one (``_LAUNCH_START``): ``run("make test")`` is not read.
_RUNNERS = frozenset(
    {
        "exec",
        "execute",
        "execute_command",
        "exec_command",
        "run",
        "run_command",
        "system",
        "spawn",
        "popen",
        "check_output",
        "check_call",
        "call",
        "Popen",
        "create_subprocess_shell",
    }
)
_COMMAND_KEYWORDS = frozenset({"command", "cmd"})
_LAUNCH_START = re.compile(r"\s*(?:vllm\s+serve\s|python3?\s+-m\s+vllm\.entrypoints\.)")
_HEAD = 64  # the leading literal characters ``_LAUNCH_START`` is tried on


def _command_launches(path: str, strings: _Strings, node: ast.Call) -> list[Invocation]:
    """The launches in a command string given as the first argument of a runner
    (``_RUNNERS``) or as any call's ``command=``/``cmd=``, read as shell; only a string that
    starts with ``vllm serve`` or ``python -m vllm.entrypoints.`` counts."""
    candidates = [keyword.value for keyword in node.keywords if keyword.arg in _COMMAND_KEYWORDS]
    if node.args and _called_name(node.func) in _RUNNERS:
        candidates.insert(0, node.args[0])
    found: list[Invocation] = []
    for candidate in candidates:
        if _LAUNCH_START.match(strings.head(candidate)):
            found.extend(_string_launches(path, strings, candidate, split=False))
    return found


def _called_name(node: ast.expr) -> str | None:
    """The last name of a call target: ``run`` for ``conn.run`` and for ``run``."""
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def _is_split(node: ast.Call) -> bool:
    """``text.split()``, and ``text.split(" ")``: white space splits (a command line written
    with single spaces splits the same at ``" "``; another separator is not read)."""
    return (
        isinstance(node.func, ast.Attribute)
        and node.func.attr == "split"
        and not node.keywords
        and (
            not node.args
            or (len(node.args) == 1 and isinstance(node.args[0], ast.Constant)
                and node.args[0].value in (None, " "))
        )
    )


def _shell_true(node: ast.Call) -> bool:
    return any(
        keyword.arg == "shell"
        and isinstance(keyword.value, ast.Constant)
        and bool(keyword.value.value)
        for keyword in node.keywords
    )


def _keywords_invocation(
    path: str, source: Source, node: ast.Call, callee: str, mappings: _Mappings,
    passed: _Passed | None = None,
) -> Invocation:
    """The keyword launch ``node``; with ``passed``, its ``**parameter`` holds the keywords a
    caller of its function gives (``_forwarded``), each at its place in that call."""
    keywords: list[Keyword] = []
    unpacked = False
    if node.args and not isinstance(node.args[0], ast.Starred):
        keywords.append(_positional_model(source, node.args[0]))
    for keyword in node.keywords:
        if keyword.arg is not None:
            keywords.append(_keyword(source, _keyword_name(source, keyword), keyword.value))
            continue
        if passed is not None and isinstance(keyword.value, ast.Name) \
                and keyword.value.id == passed.parameter:
            keywords.extend(passed.keywords)
            unpacked = unpacked or passed.incomplete
            continue
        expanded, rest = _unpacked(source, keyword.value, mappings)
        keywords.extend(expanded)
        unpacked = unpacked or rest
    return _keyword_launch(path, source, node, callee, keywords, unpacked)


def _keyword_launch(
    path: str, source: Source, node: ast.Call, callee: str, keywords: Sequence[Keyword],
    unpacked: bool, deployment: Deployment | None = None,
) -> Invocation:
    """A keyword launch of ``callee`` at the call ``node``."""
    return Invocation(
        path=path,
        origin=(KIND,),
        style="python",
        anchor=source.span(node.func),
        callee=callee,
        keywords=tuple(keywords),
        has_unpacked_kwargs=unpacked,
        deployment=deployment or Deployment(),
    )


def _unpacked(source: Source, value: ast.expr, mappings: _Mappings) -> tuple[list[Keyword], bool]:
    """The keywords a mapping given to ``**`` holds (a dict literal or ``dict(...)``, written
    there or assigned to a name before), and whether it may hold others."""
    mapping, incomplete = mappings.resolve(value)
    if isinstance(mapping, ast.Dict):
        expanded, rest = _dict_keywords(source, mapping)
        return expanded, rest or incomplete
    if _is_dict_call(mapping):
        entries, rest = _mapping_entries(source, mapping)
        return [_keyword(source, name, entry) for name, entry in entries], rest or incomplete
    return [], True


# -- keywords a caller passes through ``**kwargs`` -------------------------------------------
#
# ``def __init__(self, **kwargs): self.engine = AsyncLLMEngine.from_engine_args(
# AsyncEngineArgs(**kwargs))`` launches nothing by itself: the keywords come from whoever
# builds the object.  In Ray Serve that is ``Deployment.bind(*args, **kwargs)`` (also after
# ``.options(...)``), whose arguments Serve passes to the deployment class's constructor when
# it starts each replica (https://docs.ray.io/en/latest/serve/api/doc/ray.serve.Deployment.html,
# ``bind``; ray-project/ray ``python/ray/serve/deployment.py``); elsewhere a plain call of the
# class or of a module-level function.  The keywords a caller writes that no named parameter
# takes are the launch's, each at its place in the call; a caller's ``**mapping`` is read as a
# launch's is.  Only a ``**parameter`` that reaches the vLLM call unchanged counts: any other
# use of it in the function (``kwargs.pop("name")``, ``kwargs["dtype"] = ...``) may change
# what the call receives, and the launch is then read as written, its keywords unknown.

# No module binds one deployment hundreds of times; past this, further callers are not read.
# Each launch is read once per caller, with every keyword the caller writes: once a module's
# forwarded keywords (launches times callers' keywords) pass MAX_FORWARDED, its further
# forwarders are read as written, so that the work stays linear in the module.
MAX_CALLERS = 64
MAX_FORWARDED = 4_096


@dataclass(frozen=True)
class _Forwarder:
    """A function whose ``**parameter`` a vLLM call unpacks unchanged: ``named`` are the
    parameters a caller's keyword fills instead, ``callers`` the calls of it in the module."""

    parameter: str
    named: frozenset[str]
    callers: tuple[ast.Call, ...]


@dataclass(frozen=True)
class _Passed:
    """What one caller passes into a forwarder's ``**parameter``."""

    parameter: str
    call: ast.Call
    keywords: tuple[Keyword, ...]
    incomplete: bool


_Function = Union[ast.FunctionDef, ast.AsyncFunctionDef]


def _forwarders(tree: ast.Module, names: dict[str, str]) -> dict[int, _Forwarder]:
    """The vLLM calls (by ``id``) that unpack a ``**parameter`` of a module-level function or
    of a module-level class's ``__init__``, which the module calls; each with its function."""
    owners: dict[str, _Function] = {}
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            owners[statement.name] = statement
        elif isinstance(statement, ast.ClassDef):
            for item in statement.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                        and item.name == "__init__":
                    owners[statement.name] = item
    launches: dict[str, list[ast.Call]] = {}
    for owner, function in owners.items():
        found = _unpacking_launches(function, names)
        if found:
            launches[owner] = found
    if not launches:
        return {}
    callers: dict[str, list[ast.Call]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            called = _called_owner(node.func)
            if called in launches and len(callers.setdefault(called, [])) < MAX_CALLERS:
                callers[called].append(node)
    forwarders: dict[int, _Forwarder] = {}
    budget = MAX_FORWARDED
    for owner, calls in launches.items():
        if not callers.get(owner):
            continue
        budget -= len(calls) * sum(len(call.keywords) + 1 for call in callers[owner])
        if budget < 0:
            break
        function = owners[owner]
        arguments = function.args
        assert arguments.kwarg is not None
        named = frozenset(a.arg for a in (*arguments.args, *arguments.kwonlyargs))
        forwarder = _Forwarder(arguments.kwarg.arg, named, tuple(callers[owner]))
        for call in calls:
            forwarders[id(call)] = forwarder
    return forwarders


def _unpacking_launches(function: _Function, names: dict[str, str]) -> list[ast.Call]:
    """The vLLM calls in ``function`` that unpack its ``**parameter``, when they are the only
    uses of it; else none."""
    if function.args.kwarg is None:
        return []
    parameter = function.args.kwarg.arg
    unpacked: set[int] = set()
    calls: list[ast.Call] = []
    uses = 0
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id == parameter:
            uses += 1
        elif isinstance(node, ast.Call) and _vllm_callee(node.func, names) is not None:
            for keyword in node.keywords:
                if keyword.arg is None and isinstance(keyword.value, ast.Name) \
                        and keyword.value.id == parameter:
                    unpacked.add(id(keyword.value))
                    calls.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) \
                and node is not function:
            return []  # a nested scope may take the name over: not followed
    return calls if uses == len(unpacked) else []


def _called_owner(func: ast.expr) -> str | None:
    """The name a call builds or calls: ``C(...)``, ``C.bind(...)``,
    ``C.options(...).bind(...)``."""
    if isinstance(func, ast.Name):
        return func.id
    if not isinstance(func, ast.Attribute) or func.attr != "bind":
        return None
    target = func.value
    if isinstance(target, ast.Call) and isinstance(target.func, ast.Attribute) \
            and target.func.attr == "options":
        target = target.func.value
    return target.id if isinstance(target, ast.Name) else None


def _forwarded(
    path: str, source: Source, names: dict[str, str], node: ast.Call, forwarder: _Forwarder,
    mappings: _Mappings,
) -> list[Invocation]:
    """The launch ``node`` once for each caller of its function, with what that caller
    passes into the ``**parameter``."""
    callee = _vllm_callee(node.func, names)
    assert callee is not None
    found: list[Invocation] = []
    for call in forwarder.callers:
        keywords, incomplete = _passed_keywords(source, call, forwarder.named, mappings)
        passed = _Passed(forwarder.parameter, call, tuple(keywords), incomplete)
        found.append(_keywords_invocation(path, source, node, callee, mappings, passed))
    return found


def _passed_keywords(
    source: Source, call: ast.Call, named: frozenset[str], mappings: _Mappings
) -> tuple[list[Keyword], bool]:
    """The keywords ``call`` passes that no parameter in ``named`` takes; True when some
    cannot be read (a ``**mapping`` vlint cannot expand)."""
    keywords: list[Keyword] = []
    incomplete = False
    for keyword in call.keywords:
        if keyword.arg is not None:
            if keyword.arg not in named:
                keywords.append(_keyword(source, _keyword_name(source, keyword), keyword.value))
            continue
        mapping, added = mappings.resolve(keyword.value)
        if isinstance(mapping, ast.Dict):
            expanded, rest = _dict_keywords(source, mapping)
        elif _is_dict_call(mapping):
            entries, rest = _mapping_entries(source, mapping)
            expanded = [_keyword(source, name, value) for name, value in entries]
        else:
            expanded, rest = [], True
        keywords.extend(k for k in expanded if k.name.text not in named)
        incomplete = incomplete or rest or added
    return keywords, incomplete


def _positional_model(source: Source, value: ast.expr) -> Keyword:
    """The first positional argument is the model; its name token sits on the value."""
    start, end = source.start(value), source.end(value)
    name = Token("model", (start,) * 5 + (end,), unwritten=5)
    return _keyword(source, name, value)


def _keyword(source: Source, name: Token, value: ast.expr) -> Keyword:
    try:
        literal_value = ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return Keyword(name=name, value_span=source.span(value), value=None, literal=False)
    return Keyword(name=name, value_span=source.span(value), value=literal_value, literal=True)


def _dict_keywords(source: Source, node: ast.Dict) -> tuple[list[Keyword], bool]:
    """Keywords from ``**{"name": value}``; True when some entry cannot be expanded."""
    keywords: list[Keyword] = []
    rest = False
    for key, value in zip(node.keys, node.values):
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            keywords.append(_keyword(source, string_token(source, key), value))
        else:
            rest = True
    return keywords, rest


def string_token(source: Source, node: ast.Constant) -> Token:
    """A string constant as a token whose positions are those of its content in the file."""
    value = str(node.value)
    positions = _string_positions(source, node, value)
    if positions is None:
        start, end = source.start(node), source.end(node)
        positions = (start,) * len(value) + (end,)
    return Token(value, positions)


def _string_positions(source: Source, node: ast.Constant, value: str) -> tuple[Pos, ...] | None:
    runs = _string_runs(source, node, value)
    if runs is None:
        return None
    positions = [at for _, placed, _ in runs for at in placed]
    return (*positions, runs[-1][2])


def _string_runs(
    source: Source, node: ast.Constant, value: str
) -> list[tuple[str, list[Pos], Pos]] | None:
    """The characters of a string constant, literal by literal of an implicit concatenation:
    each one's characters, their positions and the position of its closing quote."""
    start, end = source.start(node), source.end(node)
    written = source.segment(start, end)
    pieces = _pieces(written)
    if pieces is None or any("f" in piece.flags for piece in pieces):
        return None  # an unusual form
    offsets = _text_positions(start, written)
    runs: list[tuple[str, list[Pos], Pos]] = []
    for piece in pieces:
        decoded = _decode(written[piece.start : piece.end], raw="r" in piece.flags)
        if decoded is None:
            return None
        chars = "".join(char for char, _ in decoded)
        runs.append((chars, [offsets[piece.start + at] for _, at in decoded], offsets[piece.end]))
    if "".join(chars for chars, _, _ in runs) != value:
        return None
    return runs


@dataclass(frozen=True)
class _Piece:
    """One string literal as written, of the several an implicit concatenation may join
    (``"a" f"{b}"``): its prefix letters, lowercased, and the offsets of its body."""

    flags: str
    start: int
    end: int


def _pieces(written: str) -> list[_Piece] | None:
    """The string literals ``written`` (a string expression's source) is made of, with the
    white space, line continuations and comments between them; None when it is not so."""
    pieces: list[_Piece] = []
    index, size = 0, len(written)
    while index < size:
        char = written[index]
        if char.isspace():
            index += 1
        elif char == "\\":
            index += 2  # a line continuation
        elif char == "#":
            stop = written.find("\n", index)
            index = size if stop == -1 else stop
        else:
            prefix = index
            while index < size and written[index].isalpha():
                index += 1
            flags = written[prefix:index].lower()
            if index >= size or written[index] not in "'\"" or len(flags) > 2:
                return None
            if set(flags) - {"r", "f", "u"}:
                return None  # bytes, or not a string
            quote = written[index]
            if written.startswith(quote * 3, index):
                quote *= 3
            body = index + len(quote)
            close = _closing_quote(written, body, quote, "f" in flags)
            if close is None:
                return None
            pieces.append(_Piece(flags, body, close))
            index = close + len(quote)
    return pieces or None


def _closing_quote(written: str, index: int, quote: str, fstring: bool) -> int | None:
    """The offset of the ``quote`` that closes the literal whose body starts at ``index``."""
    size = len(written)
    while index < size:
        if written.startswith(quote, index):
            return index
        char = written[index]
        if char == "\\":
            index += 2  # (in a raw string too, a backslash keeps the quote after it)
        elif fstring and char == "{" and not written.startswith("{{", index):
            close = _field_end(written, index, size)
            if close is None:
                return None
            index = close
        else:
            index += 2 if fstring and written.startswith("{{", index) else 1
    return None


def _decode(body: str, raw: bool) -> list[tuple[str, int]] | None:
    """The characters of a string literal's body, each with the offset it was written at."""
    out: list[tuple[str, int]] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char != "\\" or raw:
            out.append((char, index))
            index += 1
            continue
        code = body[index + 1 : index + 2]
        if code in _SIMPLE_ESCAPES:
            out.append((_SIMPLE_ESCAPES[code], index))
            index += 2
        elif code == "\n":
            index += 2
        elif code in _HEX_ESCAPES:
            width = _HEX_ESCAPES[code]
            try:
                out.append((chr(int(body[index + 2 : index + 2 + width], 16)), index))
            except ValueError:
                return None
            index += 2 + width
        else:
            return None
    return out


def _argv_list(
    path: str, source: Source, node: ast.List | ast.Tuple, programs: Mapping[str, str]
) -> list[Invocation]:
    return _argv_elements(path, source, [(element, None) for element in node.elts], programs)


def _argv_elements(
    path: str, source: Source, elements: Sequence[tuple[ast.expr, str | None]],
    programs: Mapping[str, str],
) -> list[Invocation]:
    """The launch of an argv list whose elements are given each with the condition it is added
    under (``vlint.extract.python_argv``: a list built in steps); its first element a string,
    ``sys.executable``, or a name the module binds to a program (``programs``: ``exe =
    shutil.which("vllm") or "vllm"``)."""
    if len(elements) < 2 or any(isinstance(element, ast.Starred) for element, _ in elements):
        return []
    first = elements[0][0]
    is_string = isinstance(first, ast.Constant) and isinstance(first.value, str)
    program = programs.get(first.id) if isinstance(first, ast.Name) else None
    if not is_string and not _is_executable(first) and program is None:
        return []
    tokens = [token if condition is None else token.with_condition(condition)
              for token, (_, condition) in zip(
                  _argv_tokens(source, [element for element, _ in elements]), elements,
                  strict=True)]
    if program is not None:
        # The program the name holds, at the name: not literal (the path may differ).
        start, end = source.start(first), source.end(first)
        tokens[0] = Token(program, (start,) * len(program) + (end,), literal=False)
    return recognise_all(tokens, path=path, kind=KIND)


def _is_executable(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "executable"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    )


def _argv_tokens(source: Source, elements: Sequence[ast.expr]) -> Iterator[Token]:
    for element in elements:
        if isinstance(element, ast.Constant) and isinstance(element.value, str):
            yield string_token(source, element)
        elif _is_executable(element):
            # ``[sys.executable, "-m", ...]`` runs the current Python interpreter.
            start, end = source.start(element), source.end(element)
            yield Token("python", (start,) * 6 + (end,), literal=False)
        else:
            start, end = source.start(element), source.end(element)
            text = source.segment(start, end)
            yield Token(text, _segment_positions(source, start, text), literal=False)


def _segment_positions(source: Source, start: Pos, text: str) -> tuple[Pos, ...]:
    positions = [start]
    for char in text:
        previous = positions[-1]
        if char == "\n":
            positions.append(Pos(previous.line + 1, 1))
        else:
            positions.append(Pos(previous.line, previous.column + 1))
    return tuple(positions)


# -- commands built in strings ---------------------------------------------------------------
#
# ``cmd = f"vllm serve {model} --tensor-parallel-size 2"; cmd += " --max-model-len 4096"``, then
# ``cmd.split()``, ``shlex.split(cmd)``, ``subprocess.run(cmd, shell=True)``, ``os.system(cmd)``
# ... : the string is rebuilt from its literal parts (plain strings, f-strings, ``+``,
# ``"sep".join([...])``), every character at its place in the file.  A part that is not a
# literal (``{model}``, a name bound to something else) stays as written, one unresolved unit
# inside its word.  Only a name assigned a string in straight-line code of the same scope, before
# the use, is followed; one assigned inside an ``if``/loop/``try``/``with``/``match`` body is
# unknown after it (and inside it).

_MAX_PARTS = 1_000  # the parts of one string, after following names
_PLACEHOLDER = "$(:)"  # an unresolved part, as the shell parser sees it: one non-literal unit


@dataclass
class _Text:
    """A string rebuilt from an expression: each character with its file position, the number of
    the unresolved unit it belongs to (0: literal) and of the literal it was written in."""

    chars: list[str] = field(default_factory=list)
    positions: list[Pos] = field(default_factory=list)
    units: list[int] = field(default_factory=list)
    parts: list[int] = field(default_factory=list)
    end: Pos | None = None
    exact: bool = True  # False: an f-string's parts could not be placed, they sit at its start

    def add(self, other: _Text) -> None:
        self.chars += other.chars
        self.positions += other.positions
        self.units += other.units
        self.parts += other.parts
        self.end = other.end or self.end
        self.exact = self.exact and other.exact

    @property
    def known(self) -> bool:
        return any(unit == 0 and not char.isspace() for char, unit in zip(self.chars, self.units))


class _Strings:
    """Rebuilds the strings of one file's expressions (``bindings``: the string parts each name
    use stands for, from ``_string_bindings``)."""

    def __init__(self, source: Source, bindings: dict[int, tuple[ast.expr, ...]]) -> None:
        self.source = source
        self.bindings = bindings
        self.counter = 0

    def number(self) -> int:
        self.counter += 1
        return self.counter

    def text(self, node: ast.expr) -> _Text | None:
        """The string ``node`` evaluates to, or None when nothing of it is literal."""
        parts = self.parts(node)
        if parts is None:
            return None
        text = _Text()
        for part in parts:
            text.add(self.part(part))
        return text if text.known else None

    def head(self, node: ast.expr) -> str:
        """The literal characters the string ``node`` builds starts with: up to the first part
        that is not literal, at most ``_HEAD`` (names followed; only the leading parts are
        looked at, one step each)."""
        head = ""
        stack: list[Iterator[ast.expr]] = [iter((node,))]
        steps = 0
        while stack and len(head) < _HEAD and steps <= _MAX_PARTS:
            current = next(stack[-1], None)
            if current is None:
                stack.pop()
                continue
            steps += 1
            if isinstance(current, ast.BinOp) and isinstance(current.op, ast.Add):
                stack.append(iter((current.left, current.right)))
            elif isinstance(current, ast.Name) and id(current) in self.bindings:
                stack.append(iter(self.bindings[id(current)]))
            elif isinstance(current, ast.Constant) and isinstance(current.value, str):
                head += current.value[:_HEAD]
            elif isinstance(current, ast.JoinedStr) and current.values:
                first = current.values[0]
                if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                    break
                head += first.value[:_HEAD]
                if len(current.values) > 1:
                    break  # a field follows the f-string's first literal
            else:
                break
        return head

    def parts(self, node: ast.expr) -> list[ast.expr] | None:
        """``node`` as the concatenation of its parts, names followed."""
        found: list[ast.expr] = []
        stack = [node]
        while stack:
            current = stack.pop()
            if len(found) > _MAX_PARTS:
                return None
            if isinstance(current, ast.BinOp) and isinstance(current.op, ast.Add):
                stack.extend((current.right, current.left))
            elif isinstance(current, ast.Name) and id(current) in self.bindings:
                found.extend(self.bindings[id(current)])
            else:
                found.append(current)
        return found

    def part(self, node: ast.expr) -> _Text:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            runs = _string_runs(self.source, node, node.value)
            if runs is None:
                token = string_token(self.source, node)
                return self.literal(token.text, list(token.positions))
            text = _Text()
            for chars, positions, closing in runs:  # each literal written has its own number
                text.add(self.literal(chars, [*positions, closing]))
            return text
        if isinstance(node, ast.JoinedStr):
            return self.fstring(node)
        joined = self.join(node)
        if joined is not None:
            return joined
        return self.unit(self.source.start(node), self.source.end(node))

    def literal(self, chars: str, positions: list[Pos], part: int = 0) -> _Text:
        """Literal characters (``part``: the number of the literal they are written in)."""
        number = part or self.number()
        return _Text(
            list(chars), positions[:-1], [0] * len(chars), [number] * len(chars), positions[-1]
        )

    def unit(self, start: Pos, end: Pos, part: int = 0) -> _Text:
        """An unresolved part, as written between ``start`` and ``end``."""
        written = self.source.segment(start, end)
        positions = list(_segment_positions(self.source, start, written))
        number = self.number()
        return _Text(
            list(written),
            positions[:-1],
            [number] * len(written),
            [part or number] * len(written),
            end,
        )

    def join(self, node: ast.expr) -> _Text | None:
        """``"sep".join([a, b, ...])`` of a literal list or tuple."""
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "join"
            and isinstance(node.func.value, ast.Constant)
            and isinstance(node.func.value.value, str)
            and len(node.args) == 1
            and not node.keywords
            and isinstance(node.args[0], (ast.List, ast.Tuple))
            and len(node.args[0].elts) <= _MAX_PARTS
        ):
            return None
        separator = string_token(self.source, node.func.value)
        text = _Text()
        for index, element in enumerate(node.args[0].elts):
            if index:
                text.add(self.literal(separator.text, list(separator.positions)))
            parts = self.parts(element) if not isinstance(element, ast.Starred) else None
            if parts is None:
                text.add(self.unit(self.source.start(element), self.source.end(element)))
                continue
            for part in parts:
                text.add(self.part(part))
        return text

    def fstring(self, node: ast.JoinedStr) -> _Text:
        """An f-string: its literal characters where they are written, each ``{...}`` field an
        unresolved unit, through implicit concatenation.  Where the written text cannot be matched
        with ast's parts (an unusual form), every character sits at the f-string's start and the
        words made of it get the whole f-string's span (``exact`` is false): a span is never
        invented."""
        start, end = self.source.start(node), self.source.end(node)
        placed = _fstring_layout(self.source.segment(start, end), node)
        text = _Text(end=end)
        if placed is None:
            for value in node.values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    text.add(self.literal(value.value, [start] * (len(value.value) + 1)))
                else:
                    text.add(self._blind_unit(start, value))
            text.end = end
            text.exact = False
            return text
        groups, closing = placed
        positions = _text_positions(start, self.source.segment(start, end))
        literals: dict[int, int] = {}  # piece → its number: a field is written inside its piece
        for group in groups:
            for layout, piece in group:
                if piece not in literals:
                    literals[piece] = self.number()
                part = literals[piece]
                if isinstance(layout, tuple):  # a field, from written offset to written offset
                    text.add(self.unit(positions[layout[0]], positions[layout[1]], part))
                    continue
                chars = "".join(char for char, _ in layout)
                at = [positions[offset] for _, offset in layout]
                following = positions[layout[-1][1] + 1] if layout else start
                text.add(self.literal(chars, at + [following], part))
        text.end = positions[closing]  # (as a string's: at its closing quote)
        return text

    def _blind_unit(self, start: Pos, value: ast.expr) -> _Text:
        """A field of an f-string that could not be placed: ``{expression}``, at ``start``."""
        written = "{" + _unparsed(value.value if isinstance(value, ast.FormattedValue) else value) + "}"
        number = self.number()
        size = len(written)
        return _Text(list(written), [start] * size, [number] * size, [number] * size, start)


def _text_positions(start: Pos, written: str) -> list[Pos]:
    """The file position of each character of ``written`` (and of its end)."""
    line, column = start.line, start.column
    positions: list[Pos] = []
    for char in written:
        positions.append(Pos(line, column))
        if char == "\n":
            line, column = line + 1, 1
        else:
            column += 1
    positions.append(Pos(line, column))
    return positions


# One part of an f-string as written: its decoded characters with their offsets in the written
# text, or a ``{...}`` field as (start, end) offsets.
_Layout = Union[list[tuple[str, int]], tuple[int, int]]


# Each of an f-string's values as written: one or more (layout, piece) pairs, the piece being
# the number of the literal of an implicit concatenation it is written in.
_Placed = list[list[tuple[_Layout, int]]]


def _fstring_layout(written: str, node: ast.JoinedStr) -> tuple[_Placed, int] | None:
    """Where each of ``node.values`` is written in ``written`` (the f-string's source, maybe
    several literals implicitly concatenated), and the offset of its closing quote; None when
    the text does not match them."""
    pieces = _pieces(written)
    if pieces is None or not any("f" in piece.flags for piece in pieces):
        return None
    runs: list[tuple[_Layout, int]] = []
    for number, piece in enumerate(pieces):
        placed = _piece_layout(written, piece)
        if placed is None:
            return None
        runs.extend((layout, number) for layout in placed)
    groups: _Placed = []
    at = 0
    for value in node.values:
        if isinstance(value, ast.FormattedValue):
            if at >= len(runs) or not isinstance(runs[at][0], tuple):
                return None
            groups.append([runs[at]])
            at += 1
            continue
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
            return None
        group: list[tuple[_Layout, int]] = []
        while at < len(runs) and isinstance(runs[at][0], list):
            group.append(runs[at])
            at += 1
        if _literal_chars(group) != value.value:
            return None  # (ast joins the literal characters of neighbouring pieces in one value)
        groups.append(group)
    if at != len(runs):
        return None
    return groups, pieces[-1].end


def _literal_chars(group: list[tuple[_Layout, int]]) -> str:
    return "".join(
        char for layout, _ in group if isinstance(layout, list) for char, _ in layout
    )


def _piece_layout(written: str, piece: _Piece) -> list[_Layout] | None:
    """The literal runs and ``{...}`` fields of one literal, at their offsets in ``written``."""
    body_start, body_end = piece.start, piece.end
    raw = "r" in piece.flags
    if "f" not in piece.flags:
        decoded = _decode(written[body_start:body_end], raw)
        if decoded is None:
            return None
        return [[(char, body_start + at) for char, at in decoded]] if decoded else []
    layout: list[_Layout] = []
    literal: list[tuple[str, int]] = []
    index = body_start
    segment_start = index
    while index < body_end:
        char = written[index]
        if char in "{}" and written[index + 1 : index + 2] == char:
            decoded = _decode(written[segment_start:index], raw)
            if decoded is None:
                return None
            literal += [(c, segment_start + at) for c, at in decoded] + [(char, index)]
            index += 2
            segment_start = index
            continue
        if char == "}":
            return None
        if char == "{":
            decoded = _decode(written[segment_start:index], raw)
            if decoded is None:
                return None
            literal += [(c, segment_start + at) for c, at in decoded]
            if literal:
                layout.append(literal)
                literal = []
            close = _field_end(written, index, body_end)
            if close is None:
                return None
            layout.append((index, close))
            index = segment_start = close
            continue
        if char == "\\" and not raw:
            index += 2
            continue
        index += 1
    decoded = _decode(written[segment_start:body_end], raw)
    if decoded is None:
        return None
    literal += [(c, segment_start + at) for c, at in decoded]
    if literal:
        layout.append(literal)
    return layout


def _field_end(written: str, start: int, end: int) -> int | None:
    """The offset after the ``}`` that closes the field opened at ``start``."""
    depth = 0
    index = start
    while index < end:
        char = written[index]
        if char in "'\"":
            close = written.find(char, index + 1, end)
            if close == -1:
                return None
            index = close + 1
            continue
        if char in "{[(":
            depth += 1
        elif char in "}])":
            depth -= 1
            if depth == 0:
                return index + 1 if char == "}" else None
        index += 1
    return None


def _string_bindings(tree: ast.Module) -> dict[int, tuple[ast.expr, ...]]:
    """For each use of a name that stands for a string built in straight-line code of the same
    scope (``cmd = f"..."``, ``cmd += "..."``), the parts of that string (by ``id`` of the
    ``ast.Name``)."""
    found: dict[int, tuple[ast.expr, ...]] = {}
    scopes: list[list[ast.stmt]] = [tree.body]
    while scopes:
        body = scopes.pop()
        known: dict[str, tuple[ast.expr, ...]] = {}
        for statement in body:
            nested = _nested_statement(statement)
            assigned = _assigned_names(statement) if nested else set()
            visible = known
            if assigned & known.keys():
                visible = {name: parts for name, parts in known.items() if name not in assigned}
            for node in _walk_scope(statement, scopes):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    parts = visible.get(node.id)
                    if parts is not None:
                        found[id(node)] = parts
            if nested:
                for name in assigned:
                    known.pop(name, None)
                continue
            _bind(statement, known)
    return found


_NESTED = (
    ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith, ast.Match,
)


def _nested_statement(statement: ast.stmt) -> bool:
    return isinstance(statement, _NESTED) or type(statement).__name__ == "TryStar"


def _assigned_names(statement: ast.stmt) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
    return names


def _walk_scope(statement: ast.stmt, scopes: list[list[ast.stmt]]) -> Iterator[ast.AST]:
    """The nodes of a statement, not entering function and class bodies (their own scopes,
    queued on ``scopes``)."""
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            scopes.append(node.body)
            stack.extend(node.decorator_list)
            if not isinstance(node, ast.ClassDef):
                stack.extend(node.args.defaults)
            continue
        if isinstance(node, ast.Lambda):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _bind(statement: ast.stmt, known: dict[str, tuple[ast.expr, ...]]) -> None:
    """What a straight-line statement does to the names that stand for strings."""
    if isinstance(statement, ast.Assign):
        targets = statement.targets
        value = statement.value
        if len(targets) == 1 and isinstance(targets[0], ast.Name) and _stringish(value):
            _set(known, targets[0].id, _expanded(value, known))
            return
    elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        if statement.value is not None and _stringish(statement.value):
            _set(known, statement.target.id, _expanded(statement.value, known))
            return
    elif (
        isinstance(statement, ast.AugAssign)
        and isinstance(statement.op, ast.Add)
        and isinstance(statement.target, ast.Name)
        and statement.target.id in known
    ):
        parts = known[statement.target.id] + _expanded(statement.value, known)
        if len(parts) <= _MAX_PARTS:
            known[statement.target.id] = parts
            return
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            known.pop(node.id, None)


def _set(known: dict[str, tuple[ast.expr, ...]], name: str, parts: tuple[ast.expr, ...]) -> None:
    if len(parts) > _MAX_PARTS:
        known.pop(name, None)  # too long to follow: unknown
    else:
        known[name] = parts


def _stringish(node: ast.expr) -> bool:
    """Whether ``node`` is written as a string (a literal, an f-string, a ``+`` of them, a
    ``"sep".join``)."""
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        if _stringish(node.right):
            return True
        node = node.left
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "join"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
    )


def _expanded(node: ast.expr, known: dict[str, tuple[ast.expr, ...]]) -> tuple[ast.expr, ...]:
    """``node``'s parts with the names known so far replaced by their parts (the value they had
    when the assignment ran)."""
    parts: list[ast.expr] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.BinOp) and isinstance(current.op, ast.Add):
            stack.extend((current.right, current.left))
        elif isinstance(current, ast.Name) and current.id in known:
            parts.extend(known[current.id])
        else:
            parts.append(current)
        if len(parts) > _MAX_PARTS:
            break
    return tuple(parts[: _MAX_PARTS + 1])


def _string_launches(
    path: str, strings: _Strings, node: ast.expr, split: bool
) -> list[Invocation]:
    """The launches in the string ``node`` builds: split on white space (``str.split()``), or
    read as shell (``shlex.split``, ``shell=True``, ``os.system`` ...)."""
    text = strings.text(node)
    if text is None:
        return []
    if split:
        return recognise_all(_split_words(text), path=path, kind=KIND)
    shell_text, origin = _shell_source(text)
    positions = [*text.positions, text.end or (text.positions[-1] if text.positions else Pos(1, 1))]
    last = len(origin) - 1

    def locate(offset: int) -> Pos:
        return positions[origin[max(0, min(offset, last))]]

    restore = _Restorer(text, shell_text, origin, positions, locate)
    found = shell.extract(path, shell_text, locate)
    return [
        deployment.enclosed(
            replace(
                invocation,
                args=tuple(restore(token) for token in invocation.args),
                repeated_entry=tuple(restore(token) for token in invocation.repeated_entry),
            ),
            KIND,
        )
        for invocation in found
    ]


def _split_words(text: _Text) -> list[Token]:
    """``str.split()``: words separated by literal white space, quotes kept as written."""
    words: list[Token] = []
    current: list[int] = []
    for index, char in enumerate([*text.chars, " "]):
        if index < len(text.chars) and not (char.isspace() and text.units[index] == 0):
            current.append(index)
            continue
        if current:
            words.append(_word_token(text, current))
            current = []
    return words


def _word_token(text: _Text, indexes: Sequence[int]) -> Token:
    chars = "".join(text.chars[index] for index in indexes)
    literal = not any(text.units[index] for index in indexes)
    gathered = len({text.parts[index] for index in indexes}) > 1
    if not text.exact:
        assert text.end is not None
        positions = (text.positions[indexes[0]],) * len(chars) + (text.end,)
        return Token(chars, positions, literal, gathered=gathered)
    last = text.positions[indexes[-1]]
    ending = Pos(last.line, last.column + 1)
    at = tuple(text.positions[index] for index in indexes)
    return Token(chars, (*at, ending), literal, gathered=gathered)


def _shell_source(text: _Text) -> tuple[str, list[int]]:
    """The text the shell parser reads, each unresolved unit replaced by ``_PLACEHOLDER``, and
    for each of its characters (and its end) the index of the character of ``text`` it stands
    for."""
    chars: list[str] = []
    origin: list[int] = []
    index = 0
    units = text.units
    while index < len(units):
        unit = units[index]
        if unit == 0:
            chars.append(text.chars[index])
            origin.append(index)
            index += 1
            continue
        chars.extend(_PLACEHOLDER)
        origin.extend([index] * len(_PLACEHOLDER))
        while index < len(units) and units[index] == unit:
            index += 1
    origin.append(len(units))
    return "".join(chars), origin


class _Restorer:
    """Gives the shell's words back their unresolved parts as written (``{model}`` rather
    than the placeholder), non-literal; marks words made of several literals as gathered; and
    gives every word of an f-string that could not be placed the f-string's whole span."""

    def __init__(
        self,
        text: _Text,
        shell_text: str,
        origin: list[int],
        positions: list[Pos],
        locate: Locator,
    ) -> None:
        self.text = text
        self.shell_text = shell_text
        self.origin = origin
        self.positions = positions
        self.locate = locate

    def __call__(self, token: Token) -> Token:
        if token.locator is not self.locate:
            return token  # read through a nested shell: left as that shell made it
        text, origin, positions = self.text, self.origin, self.positions
        chars: list[str] = []
        at: list[Pos] = []
        parts: set[int] = set()
        unresolved = False
        previous_unit = 0
        for char, offset in zip(token.text, token.offsets):
            index = origin[min(offset, len(origin) - 1)]
            unit = text.units[index] if index < len(text.units) else 0
            if index < len(text.parts):
                parts.add(text.parts[index])
            if unit and unit == previous_unit:
                continue
            previous_unit = unit
            if not unit:
                chars.append(char)
                at.append(positions[index])
                continue
            unresolved = True
            stop = index
            while stop < len(text.units) and text.units[stop] == unit:
                chars.append(text.chars[stop])
                at.append(positions[stop])
                stop += 1
        gathered = len(parts) > 1
        end = self.end(token)
        if not unresolved and not gathered and text.exact and end == token.pos(-1):
            return token
        written = "".join(chars)
        literal = token.literal and not unresolved
        if not text.exact:
            assert text.end is not None
            start = at[0] if at else end
            return Token(written, (start,) * len(written) + (text.end,), literal, gathered=gathered)
        return Token(written, (*at, end), literal, token.condition, gathered)

    def end(self, token: Token) -> Pos:
        """Where ``token`` ends: where the shell put its end when that is in the literal of its
        last character, else just after that character (the next one is written elsewhere)."""
        origin, parts = self.origin, self.text.parts
        stop = token.offsets[-1]
        if stop == 0 or not token.text:
            return self.locate(stop)
        last = origin[min(stop - 1, len(origin) - 1)]
        following = origin[min(stop, len(origin) - 1)]
        units = self.text.units
        if last < len(units) and units[last]:  # an unresolved unit ends with its last character
            while last + 1 < len(units) and units[last + 1] == units[last]:
                last += 1
            following = last + 1
        if following >= len(parts) or last >= len(parts) or parts[following] == parts[last]:
            return self.locate(stop)
        before = self.positions[last]
        return Pos(before.line, before.column + 1)


def _unparsed(node: ast.expr) -> str:
    try:
        return ast.unparse(node)
    except (ValueError, RecursionError):  # (ast.unparse only prints; it never runs code)
        return "..."


# -- keywords in a mapping assigned to a name --------------------------------------------------
#
# ``config = {"model": m, "max_model_len": 4096}`` then ``LLM(**config)``, or Ray's
# ``engine_kwargs = dict(...)`` then ``LLMConfig(engine_kwargs=engine_kwargs)``: a name assigned a
# dict display or a ``dict(...)`` call in straight-line code of the same scope, before the use,
# stands for it, as a string name does (``_string_bindings``).  A key added later
# (``config["k"] = v``, ``config.update(...)``, ``setdefault``), in a branch or not, makes the
# mapping incomplete (the launch has keywords vlint did not read); any other change of the name
# (assigned again, ``pop``, ``del config[k]``, ``clear``, ``|=``) makes it unknown from there on.

_ADDING_METHODS = frozenset({"update", "setdefault"})
_MappingBinding = tuple[ast.expr, bool]  # (the mapping, whether keys may have been added)


class _Mappings:
    """The mappings names stand for at their uses (by ``id`` of the ``ast.Name``)."""

    def __init__(self, bindings: dict[int, _MappingBinding]) -> None:
        self.bindings = bindings

    def resolve(self, node: ast.expr) -> _MappingBinding:
        """The mapping ``node`` stands for (``node`` itself when it is not a bound name)."""
        if isinstance(node, ast.Name):
            return self.bindings.get(id(node), (node, False))
        return node, False


def _is_dict_call(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "dict"
        and not node.args
    )


def _mapping_bindings(tree: ast.Module) -> _Mappings:
    found: dict[int, _MappingBinding] = {}
    scopes: list[list[ast.stmt]] = [tree.body]
    while scopes:
        body = scopes.pop()
        known: dict[str, _MappingBinding] = {}
        for statement in body:
            assigned = _assigned_mapping(statement)
            changes = _mapping_changes(statement) if assigned is None else {}
            changed = {name: _after(known[name], changes[name]) for name in changes
                       if name in known}
            # A use inside a branch or loop may follow a change in it; one in a plain
            # statement comes before its own change (``config = f(**config)``).
            overlay = changed if _nested_statement(statement) else {}
            for node in _walk_scope(statement, scopes):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    binding = overlay[node.id] if node.id in overlay else known.get(node.id)
                    if binding is not None:
                        found[id(node)] = binding
            if assigned is not None:
                known[assigned[0]] = (assigned[1], False)
            for name, binding in changed.items():
                if binding is None:
                    del known[name]
                else:
                    known[name] = binding
    return _Mappings(found)


def _after(binding: _MappingBinding, adds_only: bool) -> _MappingBinding | None:
    """A mapping after a change: incomplete when keys were only added, else unknown."""
    return (binding[0], True) if adds_only else None


def _assigned_mapping(statement: ast.stmt) -> tuple[str, ast.expr] | None:
    """``name = {...}`` or ``name = dict(...)``: the name and the mapping."""
    if isinstance(statement, ast.Assign):
        if len(statement.targets) != 1:
            return None
        target, value = statement.targets[0], statement.value
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        target, value = statement.target, statement.value
    else:
        return None
    if isinstance(target, ast.Name) and (isinstance(value, ast.Dict) or _is_dict_call(value)):
        return target.id, value
    return None


def _mapping_changes(statement: ast.stmt) -> dict[str, bool]:
    """The names a statement changes: True where it only adds keys, False otherwise."""
    changes: dict[str, bool] = {}
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            changes[node.id] = False
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            if isinstance(node.ctx, ast.Store):
                changes.setdefault(node.value.id, True)
            elif isinstance(node.ctx, ast.Del):
                changes[node.value.id] = False
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.attr in _MUTATING_METHODS
        ):
            name = node.func.value.id
            if node.func.attr in _ADDING_METHODS:
                changes.setdefault(name, True)
            else:
                changes[name] = False
    return changes


_MUTATING_METHODS = _ADDING_METHODS | {"pop", "popitem", "clear", "__setitem__", "__delitem__"}


# -- a dict of command-line options handed to vLLM's parser ------------------------------------


def _cli_dict(path: str, source: Source, node: ast.Call, mappings: _Mappings) -> list[Invocation]:
    """``build_app({"model": m, "tensor-parallel-size": 2})`` of a function that makes vLLM's
    command line of its dict (``vlint.extract.python_cli_dict``): the API server's parser given
    ``--KEY VALUE`` for each entry that is one of vLLM's options in some release (the builder
    may take others out first), the key's ``--`` unwritten."""
    mapping, incomplete = mappings.resolve(node.args[0])
    if not isinstance(mapping, ast.Dict):
        return []
    args: list[Token] = []
    known = option_lifetimes("serve")
    for key, value in python_cli_dict.entries(mapping):
        if "--" + str(key.value).replace("_", "-") not in known:
            # (``accelerator``: the builder takes such keys out before parsing, as KubeRay's
            # sample does with ``cli_args.pop("accelerator")``.)
            continue
        name = string_token(source, key)
        start = name.pos(0)
        args.append(Token("--" + name.text, (start, start, *name.positions), literal=name.literal,
                          unwritten=2))
        args.extend(_argv_tokens(source, [value]))
    if not args:
        return []
    return [Invocation(path, (KIND,), "cli", source.span(node.func), entry="api_server",
                       args=tuple(args), args_complete=not incomplete and all(
                           key is not None for key in mapping.keys))]


# -- other libraries' classes that start vLLM's engine -----------------------------------------


def _wrapped_engine(
    path: str, source: Source, node: ast.Call, wrapper: EngineWrapper, mappings: _Mappings
) -> Invocation | None:
    """A class that builds ``vllm.LLM(...)`` (LangChain's ``VLLM``, LlamaIndex's ``Vllm``;
    ``knowledge.curated.engine_wrappers``) as that call: the keywords it passes on, each at its
    place, and the entries of the mapping it unpacks; its sampling keywords are not the
    engine's.  None when the class is given a server to talk to instead (``api_url=...``)."""
    keywords: list[Keyword] = []
    unpacked = False
    if node.args and not isinstance(node.args[0], ast.Starred):
        keywords.append(_positional_model(source, node.args[0]))
    for keyword in node.keywords:
        if keyword.arg is None:
            unpacked = True  # ``**settings``: which of them reach the engine is not known
        elif keyword.arg == wrapper.client_when and not (
                isinstance(keyword.value, ast.Constant) and keyword.value.value in ("", None)):
            return None
        elif keyword.arg in wrapper.passed:
            keywords.append(_keyword(source, _keyword_name(source, keyword), keyword.value))
        elif keyword.arg in wrapper.renamed:
            keywords.append(_keyword(source, _renamed(_keyword_name(source, keyword),
                                                      wrapper.renamed[keyword.arg]),
                                     keyword.value))
        elif keyword.arg == wrapper.unpacked:
            expanded, rest = _unpacked(source, keyword.value, mappings)
            keywords.extend(expanded)
            unpacked = unpacked or rest
    return _keyword_launch(path, source, node, wrapper.callee, keywords, unpacked)


def _renamed(name: Token, engine_name: str) -> Token:
    """The engine's keyword ``engine_name`` placed on the wrapper's name for it
    (``model_source=`` read as ``model=``): none of its characters written, so no fix edits
    it."""
    start, end = name.pos(0), name.pos(len(name.text))
    return Token(engine_name, (start,) * len(engine_name) + (end,), unwritten=len(engine_name))


# -- Ray Serve LLM ---------------------------------------------------------------------------
#
# ``LLMConfig`` is ``ray.serve.llm.LLMConfig`` (Ray 2.43+; defined in ray-project/ray
# ``python/ray/llm/_internal/serve/configs/server_models.py`` and re-exported by
# ``python/ray/serve/llm/__init__.py`` and ``ray.serve.llm.configs``).  Ray builds the vLLM
# engine from it as ``vlint.extract.ray_serve`` describes for the YAML form: the model is
# ``model_loading_config.model_source``, else ``model_id``, and ``engine_kwargs`` are
# ``AsyncEngineArgs`` keywords (frontend options and ``disable_log_requests`` excepted); the
# ``runtime_env`` ``env_vars`` are the engine's environment.

_RAY_CONFIGS = frozenset(
    {
        "ray.serve.llm.LLMConfig",
        "ray.serve.llm.configs.LLMConfig",
        "ray.llm._internal.serve.configs.server_models.LLMConfig",
    }
)


def _ray_config(
    path: str, source: Source, node: ast.Call, mappings: _Mappings
) -> Invocation | None:
    """``LLMConfig(model_loading_config=..., engine_kwargs=...)`` as
    ``AsyncEngineArgs(model=..., **engine_kwargs)`` of the vLLM Ray runs (each mapping written
    in the call or assigned to a name before it)."""
    from vlint.extract import ray_serve  # lazy: only a Ray Serve LLMConfig call needs it

    given = {keyword.arg: keyword.value for keyword in node.keywords if keyword.arg is not None}
    loading, engine = given.get("model_loading_config"), given.get("engine_kwargs")
    if loading is None and engine is None:
        return None
    keywords: list[Keyword] = []
    unpacked = any(keyword.arg is None for keyword in node.keywords)
    if loading is not None:
        entries, _ = _mapping_entries(source, mappings.resolve(loading)[0])
        model = _ray_model(source, entries)
        if model is not None:
            keywords.append(model)
    if engine is not None:
        engine, incomplete = mappings.resolve(engine)
        entries, rest = _mapping_entries(source, engine)
        unpacked = unpacked or rest or incomplete
        frontend = ray_serve.frontend_keys()  # what Ray gives its web frontend, as in YAML
        for name, value in entries:
            if name.text in frontend or name.text in ray_serve.RAY_REWRITES:
                continue
            keywords.append(_keyword(source, name, value))
    return _keyword_launch(path, source, node, ray_serve.CALLEE, keywords, unpacked,
                           Deployment(env=_ray_env(source, given.get("runtime_env"))))


def _ray_model(source: Source, entries: list[tuple[Token, ast.expr]]) -> Keyword | None:
    """``model``, from ``model_source`` or else ``model_id``: its name token on that key."""
    for key in ("model_source", "model_id"):
        for name, value in entries:
            if name.text == key and isinstance(value, ast.Constant) and isinstance(
                value.value, str
            ):
                return _keyword(source, _renamed(name, "model"), value)
    return None


def _ray_env(source: Source, runtime_env: ast.expr | None) -> dict[str, EnvVar]:
    if runtime_env is None:
        return {}
    entries, _ = _mapping_entries(source, runtime_env)
    for name, value in entries:
        if name.text != "env_vars":
            continue
        variables, _ = _mapping_entries(source, value)
        return deployment.environment(
            deployment.named(key, string_token(source, item))
            for key, item in variables
            if isinstance(item, ast.Constant) and isinstance(item.value, str)
        )
    return {}


def _mapping_entries(
    source: Source, node: ast.expr
) -> tuple[list[tuple[Token, ast.expr]], bool]:
    """The entries of ``dict(k=v, ...)``, ``{"k": v, ...}`` or ``SomeConfig(k=v, ...)``, each
    key as a token at its place; True when some entries cannot be read (``**rest``, a key that
    is not a literal string, anything else than such a mapping)."""
    if isinstance(node, ast.Dict):
        entries: list[tuple[Token, ast.expr]] = []
        rest = False
        for key, value in zip(node.keys, node.values):
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                entries.append((string_token(source, key), value))
            else:
                rest = True
        return entries, rest
    if isinstance(node, ast.Call) and not node.args:
        named = [keyword for keyword in node.keywords if keyword.arg is not None]
        rest = len(named) != len(node.keywords)
        return [(_keyword_name(source, keyword), keyword.value) for keyword in named], rest
    return [], True


def _keyword_name(source: Source, keyword: ast.keyword) -> Token:
    assert keyword.arg is not None
    start = source.start(keyword)
    columns = range(start.column, start.column + len(keyword.arg) + 1)
    return Token(keyword.arg, tuple(Pos(start.line, column) for column in columns))
