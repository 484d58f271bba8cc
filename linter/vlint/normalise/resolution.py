"""Resolve an invocation's arguments exactly as one vLLM release's parser would.

For command lines this replays argparse (the Python 3.11 behaviour vLLM's parsers run on): vLLM's
own rewrites first (underscores in option names), then option matching (exact, ``--x=value``,
unique prefixes), value consumption by ``nargs``, type conversion and choices.  It never stops at
the first problem: every argument becomes an :class:`OptionUse` that rules inspect.
"""

from __future__ import annotations

import re
from collections import ChainMap
from collections.abc import Mapping, MutableMapping, Sequence
from functools import cache
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from packaging.version import Version

from vlint.knowledge.catalog import OptionSpec, ParserSpec, Release
from vlint.knowledge.images import image_entry
from vlint.model import Invocation, Keyword, Span, Token
from vlint.normalise.rewrites import RewriteError, rewrite
from vlint.normalise.values import ParsedValue, is_exact, parse_value

Match = Literal["exact", "underscore", "abbrev", "ambiguous", "unknown"]
_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")


@dataclass(frozen=True)
class ValueUse:
    """The value an option received: the token, the part of it that is the value, and its parse."""

    token: Token
    start: int
    parsed: ParsedValue | None

    @property
    def text(self) -> str:
        return self.token.text[self.start :]

    @property
    def span(self) -> Span:
        return self.token.sub_span(self.start)

    @property
    def literal(self) -> bool:
        return self.token.literal


@dataclass(frozen=True)
class OptionUse:
    """One option as written on the command line and what the release made of it."""

    token: Token
    written: str
    option: OptionSpec | None
    match: Match
    candidates: tuple[str, ...] = ()
    resolved_string: str | None = None
    explicit: ValueUse | None = None
    values: tuple[ValueUse, ...] = ()
    arity_error: str | None = None

    @property
    def name_span(self) -> Span:
        return self.token.sub_span(0, len(self.written))


@dataclass(frozen=True)
class Setting:
    """A resolved setting: its value, and where it came from (None for a release default)."""

    value: Any
    span: Span | None
    certain: bool = True


@dataclass
class Resolution:
    """What one release makes of one invocation."""

    release: Release
    invocation: Invocation
    parser: ParserSpec | None
    uses: list[OptionUse] = field(default_factory=list)
    keywords: list[tuple[Keyword, Mapping[str, Any] | None]] = field(default_factory=list)
    settings: MutableMapping[str, Setting] = field(default_factory=dict)
    positionals: list[Token] = field(default_factory=list)
    unmatched: list[Token] = field(default_factory=list)
    rewrite_errors: list[RewriteError] = field(default_factory=list)
    # The word right after an unknown option written without '=' (by the id of the option's
    # token), when no positional takes it: the value its writer meant for that option.
    stray_values: dict[int, Token] = field(default_factory=dict)

    def written(self, dest: str) -> Setting | None:
        setting = self.settings.get(dest)
        return setting if setting is not None and setting.span is not None else None

    def extra_positionals(self) -> list[Token]:
        """Words no positional takes (argparse rejects them as unrecognized arguments).

        An unresolved word (``$ARGS``) may expand to any number of words, so once one is seen
        nothing can be said about them.
        """
        if any(not t.literal for t in self.positionals):
            return []
        return self.unmatched

    def stray_positionals(self) -> list[Token]:
        """The extra positionals that are not an unknown option's value: argparse lists those
        with their option (``unrecognized arguments: --gpu-memory-utilisation 0.9``), one
        mistake, reported with the option."""
        values = {id(t) for t in self.stray_values.values()}
        return [t for t in self.extra_positionals() if id(t) not in values]

    def unknown_span(self, use: OptionUse) -> Span:
        """An unknown option's name, through the value meant for it when one follows."""
        value = self.stray_values.get(id(use.token))
        if value is None:
            return use.name_span
        return Span(use.name_span.start, value.sub_span(0).end)

    def parse_errors(self) -> list[str]:
        """Why the release's parser would reject these arguments; empty when it accepts them."""
        errors: list[str] = [error.message for error in self.rewrite_errors]
        unknown = [u.token.text for u in self.uses if u.match == "unknown"]
        unknown += [t.text for t in self.extra_positionals()]
        for use in self.uses:
            if use.match == "ambiguous":
                errors.append(f"ambiguous option: {use.written}")
            if use.arity_error:
                errors.append(use.arity_error)
            option = use.option
            for value in use.values:
                parsed = value.parsed
                if parsed is None:
                    continue
                if not parsed.ok:
                    errors.append(f"invalid value {value.text!r}: {parsed.error}")
                elif option is not None and option.choices is not None and (
                    parsed.value not in option.choices
                ):
                    errors.append(f"invalid choice: {value.text!r}")
        if unknown:
            errors.append("unrecognized arguments: " + " ".join(unknown))
        return errors


def run_by(invocation: Invocation, version: Version) -> Invocation:
    """The launch as ``version`` runs it: one whose server is its image's entry point starts
    that release's (``Invocation.entry_from_image``: the API server module up to 0.11.0,
    ``vllm serve`` after, from each release's Dockerfile in the catalog)."""
    if not invocation.entry_from_image:
        return invocation
    entry = image_entry(str(version))
    return invocation if entry == invocation.entry else replace(invocation, entry=entry)


def resolve(invocation: Invocation, release: Release) -> Resolution:
    invocation = run_by(invocation, release.version)
    if invocation.style == "python":
        return _resolve_keywords(invocation, release)
    parser = release.parser(invocation.entry)
    if parser is None and invocation.entry != "demo_server":
        parser = release.parser("serve")
    # (The demo server's own parser or none: a release without the module refuses the launch
    # whole, VL408, and reading it as `vllm serve` would report flags it never parses.)
    resolution = Resolution(release, invocation, parser)
    if parser is None:
        return resolution
    _parse_argv(resolution, parser, release)
    _apply_defaults(resolution, parser)
    return resolution


# -- command lines ----------------------------------------------------------------------------


def _rewrite_underscores(parser: ParserSpec, text: str) -> str:
    """vLLM's parsers accept ``--max_num_seqs`` for ``--max-num-seqs`` (the key, not the value)."""
    if not text.startswith("--") or not parser.feature("underscore_to_dash"):
        return text
    key, sep, value = text.partition("=")
    head, dot, rest = key.partition(".")
    return head.replace("_", "-") + dot + rest + sep + value


@dataclass(frozen=True)
class _Classified:
    """What argparse's ``_parse_optional`` makes of one word that is an option ('O')."""

    match: Match
    option: OptionSpec | None
    string: str | None
    explicit_at: int | None
    candidates: tuple[str, ...] = ()


def _option_tuples(parser: ParserSpec, text: str) -> list[tuple[str, int | None]]:
    """argparse's prefix search: (option string, where the attached value starts)."""
    if text.startswith("--"):
        if not parser.allow_abbrev:
            return []
        prefix, sep, _ = text.partition("=")
        at = len(prefix) + 1 if sep else None
        return [(s, at) for s in parser.by_string if s.startswith(prefix)]
    # Single-dash: the first two characters may be an option with its value attached (-O3,
    # -qfp8); otherwise the whole word may be a prefix of a longer single-dash option (-t: -tp).
    found: list[tuple[str, int | None]] = []
    for string in parser.by_string:
        if string == text[:2]:
            found.append((string, 2))
        elif string.startswith(text):
            found.append((string, None))
    return found


def _classify(parser: ParserSpec, text: str) -> _Classified | None:
    """Python 3.11's ``ArgumentParser._parse_optional``: None for an argument ('A')."""
    if not text or text[0] != "-":
        return None
    if text in parser.by_string:
        return _Classified("exact", parser.by_string[text], text, None)
    if len(text) == 1:
        return None
    if "=" in text:
        key = text.split("=", 1)[0]
        if key in parser.by_string:
            return _Classified("exact", parser.by_string[key], key, len(key) + 1)
    found = _option_tuples(parser, text)
    if len(found) > 1:
        return _Classified("ambiguous", None, None, None, tuple(s for s, _ in found))
    if len(found) == 1:
        string, at = found[0]
        match: Match = "exact" if at == 2 and not text.startswith("--") else "abbrev"
        return _Classified(match, parser.by_string[string], string, at)
    if _NEGATIVE_NUMBER.match(text) or " " in text:
        return None
    return _Classified("unknown", None, None, None)


def _parse_argv(resolution: Resolution, parser: ParserSpec, release: Release) -> None:
    rewritten_args = rewrite(resolution.invocation.args, parser, resolution.invocation.entry)
    resolution.rewrite_errors = rewritten_args.errors
    args = rewritten_args.args
    slots = _PositionalSlots(parser)
    run: list[Token] = []
    index = 0
    separator: Token | None = None
    after_unknown: list[tuple[Token, Token]] = []
    while index < len(args):
        token = args[index]
        index += 1
        if separator is not None or (not token.literal and not token.text.startswith("-")):
            run.append(token)
            continue
        if token.text == "--":
            separator = token
            run.append(token)
            continue
        rewritten = _rewrite_underscores(parser, token.text)
        classified = _classify(parser, rewritten)
        if classified is None:
            run.append(token)
            continue
        slots.consume(run, separator, resolution)
        run = []
        match = classified.match
        if match == "exact" and rewritten != token.text:
            match = "underscore"
        at = classified.explicit_at
        explicit = ValueUse(token, at, None) if at is not None else None
        written = token.text[: at - 1 if at is not None and token.text[at - 1] == "=" else at]
        if match == "unknown":
            written = token.text.split("=", 1)[0]
        option = classified.option
        use = OptionUse(
            token, written, option, match, classified.candidates, classified.string, explicit
        )
        if option is not None:
            use, index = _consume_values(use, option, parser, release, args, index)
        elif match in ("unknown", "ambiguous") and "=" not in token.text and index < len(args):
            after_unknown.append((token, args[index]))
        resolution.uses.append(use)
        if option is not None and use.arity_error is None:
            _store(resolution, use, option)
    slots.consume(run, separator, resolution)
    unmatched = {id(t) for t in resolution.unmatched}
    _model_from_positional(resolution, parser, unmatched, separator)
    for option_token, word in after_unknown:
        if id(word) in unmatched and word.literal and not word.text.startswith("-"):
            resolution.stray_values[id(option_token)] = word


def _model_from_positional(
    resolution: Resolution, parser: ParserSpec, unmatched: set[int], separator: Token | None
) -> None:
    """``vllm serve``'s positional model is the model: the serve command sets ``args.model``
    from ``model_tag`` before building the engine (vllm/entrypoints/cli/serve.py, and
    vllm/scripts.py before it), and vLLM's own rewrite moves ``--model X`` there.  The API
    server module ignores its positional (VL403)."""
    if resolution.invocation.entry != "serve" or not parser.positionals:
        return
    if parser.positionals[0].get("dest") != "model_tag":
        return
    taken = [t for t in resolution.positionals if id(t) not in unmatched and t is not separator]
    if taken:
        word = taken[0]
        resolution.settings["model"] = Setting(word.text, word.sub_span(0), word.literal)


class _PositionalSlots:
    """argparse fills positionals from each run of arguments between options, in order; words
    that no positional takes are 'unrecognized'.  A '--' inside a run that a positional takes is
    dropped; anywhere else it is one more unrecognized word."""

    def __init__(self, parser: ParserSpec) -> None:
        self.left = [p.get("nargs") for p in parser.positionals]

    def consume(self, run: list[Token], separator: Token | None, resolution: Resolution) -> None:
        if not run:
            return
        words = [t for t in run if t is not separator]
        resolution.positionals.extend(words)
        if not self.left:
            resolution.unmatched.extend(run)
            return
        taken = 0
        while self.left:
            nargs = self.left.pop(0)
            if nargs in ("*", "+"):
                taken = len(words)
                break
            taken += 1
            if taken >= len(words):
                break
        resolution.unmatched.extend(words[taken:])


def _consume_values(
    use: OptionUse,
    option: OptionSpec,
    parser: ParserSpec,
    release: Release,
    args: Sequence[Token],
    index: int,
) -> tuple[OptionUse, int]:
    nargs = option.nargs
    typespec = release.type_of(option)
    label = "/".join(option.strings)
    if not option.takes_value:
        if use.explicit is not None:
            error = f"argument {label}: ignored explicit argument {use.explicit.text!r}"
            return _replace(use, arity_error=error), index
        return use, index
    raw: list[ValueUse] = []
    if use.explicit is not None:
        raw.append(use.explicit)
    else:
        limit = 1 if nargs in (None, "?") else (nargs if isinstance(nargs, int) else len(args))
        while index < len(args) and len(raw) < limit:
            candidate = args[index]
            if candidate.literal and _classify(
                parser, _rewrite_underscores(parser, candidate.text)
            ) is not None:
                break
            if candidate.text == "--":
                break
            raw.append(ValueUse(candidate, 0, None))
            index += 1
    if not raw and nargs in (None, "+") or (isinstance(nargs, int) and len(raw) < nargs):
        expected = "expected one argument" if nargs is None else "expected at least one argument"
        return _replace(use, arity_error=f"argument {label}: {expected}"), index
    parsed = tuple(_parse(value, typespec) for value in raw)
    return _replace(use, values=parsed), index


def _parse(value: ValueUse, typespec: Mapping[str, Any] | None) -> ValueUse:
    if not value.literal:
        return value
    spec: Mapping[str, Any] = typespec or {"kind": "str"}
    return ValueUse(value.token, value.start, parse_value(spec, value.text))


def _replace(use: OptionUse, **changes: Any) -> OptionUse:
    return replace(use, **changes)


def _store(resolution: Resolution, use: OptionUse, option: OptionSpec) -> None:
    span = use.token.span
    if option.action == "StoreBoolean":
        _store_boolean(resolution, use, option)
        return
    if not option.takes_value:
        value: Any
        if option.action == "count":
            previous = resolution.settings.get(option.dest)
            value = (previous.value if previous and isinstance(previous.value, int) else 0) + 1
        elif option.action == "store_const":
            value = option.const
        else:
            value = option.stores(use.resolved_string or "")
        resolution.settings[option.dest] = Setting(value, span)
        return
    if not use.values:
        if option.nargs == "?":
            resolution.settings[option.dest] = Setting(option.const, span)
        return
    span = use.values[0].span
    typespec = resolution.release.type_of(option)
    # A custom action class (vLLM's LoRA parser, say) transforms values in its own way.
    standard = option.action in ("store", "append", "extend")
    certain = standard and (typespec is None or is_exact(typespec)) and all(
        v.literal and v.parsed is not None and v.parsed.ok for v in use.values
    )
    values = [v.parsed.value if v.parsed is not None else v.text for v in use.values]
    if option.choices is not None and certain and any(v not in option.choices for v in values):
        certain = False
    value = values[0] if option.nargs in (None, "?") else values
    if option.action == "append":
        previous = resolution.settings.get(option.dest)
        before = previous.value if previous and isinstance(previous.value, list) else []
        value = [*before, value]
    resolution.settings[option.dest] = Setting(value, span, certain)


def _store_boolean(resolution: Resolution, use: OptionUse, option: OptionSpec) -> None:
    """vLLM's ``StoreBoolean`` (``--enable-chunked-prefill[=true|false]``, 0.5.5-0.8.0): the
    value in any case, or the option's const when given bare."""
    given = use.values[0] if use.values else None
    text = given.text if given is not None else str(option.const)
    certain = (given is None or given.literal) and text.lower() in ("true", "false")
    span = given.span if given is not None else use.token.span
    value: Any = text.lower() == "true" if certain else text
    resolution.settings[option.dest] = Setting(value, span, certain)


def _apply_defaults(resolution: Resolution, parser: ParserSpec) -> None:
    # Written settings shadow the release's certain defaults, which are built once per parser.
    resolution.settings = ChainMap(dict(resolution.settings), _parser_defaults(parser))


@cache
def _parser_defaults(parser: ParserSpec) -> dict[str, Setting]:
    defaults: dict[str, Setting] = {}
    for option in parser.options:
        if option.default_known:
            defaults.setdefault(option.dest, Setting(option.default, None))
    return defaults


# -- Python keyword arguments -----------------------------------------------------------------


def _resolve_keywords(invocation: Invocation, release: Release) -> Resolution:
    # The serve parser types the settings; before `vllm serve` existed the API server's did.
    parser = release.parser("serve") or release.parser("api_server")
    resolution = Resolution(release, invocation, parser)
    callee = invocation.callee or "LLM"
    fields = release.engine_fields(callee)
    for keyword in invocation.keywords:
        name = keyword.name.text
        known = fields.get(name)
        resolution.keywords.append((keyword, known))
        if known is not None:
            resolution.settings[name] = Setting(keyword.value, keyword.value_span, keyword.literal)
    resolution.settings = ChainMap(dict(resolution.settings), _engine_defaults(release, callee))
    return resolution


@cache
def _engine_defaults(release: Release, callee: str) -> dict[str, Setting]:
    return {
        name: Setting(field.get("default"), None)
        for name, field in release.engine_fields(callee).items()
        if field.get("default_known")
    }


def number(setting: Setting | None) -> int | None:
    """A setting's value as an int when it is certain and numeric, else None."""
    if setting is None or not setting.certain:
        return None
    value = setting.value
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value
