"""The rewrites vLLM's own parser applies to an argv before argparse sees it.

vLLM's ``FlexibleArgumentParser.parse_args`` (0.31.0-0.33.0, each step present where the catalog's
probes found it) moves ``vllm serve ... --model X`` to the positional model, turns ``-O3`` /
``-O=3`` / ``-O 3`` into ``--optimization-level``, and folds dotted keys
(``--compilation-config.mode 3``, ``--x.y+ a,b``) into one JSON argument appended at the end.
Rewritten tokens keep positions in the original file: a synthetic word points at the text it
came from.  (Underscores in option names are handled where options are matched, so findings can
quote the name as written.)
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from vlint.knowledge.catalog import ParserSpec
from vlint.model import Span, Token
from vlint.normalise.values import parse_human_int

_MODEL = re.compile(r"^--model(=.+|$)")
_UNDERSCORED_HEAD = re.compile(r"(?<=--)[^.]*")
_LEVELS = frozenset({"0", "1", "2", "3"})


@dataclass(frozen=True)
class RewriteError:
    """A failure inside vLLM's own rewriting, before argparse: ``kind`` names which."""

    kind: str
    message: str
    span: Span


@dataclass
class Rewritten:
    args: list[Token]
    errors: list[RewriteError] = field(default_factory=list)


def synthetic(text: str, span: Span, literal: bool = True) -> Token:
    """A word vLLM made up, located at the source text it stands for."""
    return Token(text, (span.start,) * len(text) + (span.end,), literal)


def _tail(token: Token, start: int) -> Token:
    return Token(token.text[start:], token.positions[start:], token.literal)


def rewrite(args: Sequence[Token], parser: ParserSpec, entry: str) -> Rewritten:
    result = Rewritten(list(args))
    if entry == "serve" and parser.feature("model_option"):
        result.args = _move_model(result.args)
    elif entry == "serve" and (refused := _model_option_refused(parser, result.args)):
        result.errors.append(refused)
    if entry == "serve" and _requires_model_first(parser, result.args):
        result.errors.append(
            RewriteError(
                "model-not-first",
                "vllm serve needs the model as its first argument when --served-model-name "
                "is given",
                result.args[0].span,
            )
        )
    # -O<n> is rewritten to --optimization-level before argparse; where -O is an option string
    # of the parser itself (--compilation-config's alias up to 0.10), argparse takes it as is.
    if parser.feature("dash_O") and "-O" not in parser.by_string:
        result.args = _optimization_level(result.args, "--optimization-level")
    elif parser.feature("dash_O") and (key := _dash_O_key(parser)) is not None:
        # 0.9-0.11: -O is --compilation-config's alias and vLLM rewrites -O3 to -O.<key>=3.
        result.args = _optimization_level(result.args, f"-O.{key}")
    if parser.feature("dotted_json"):
        _fold_dotted(result)
    return result


_CONFIG = re.compile(r"^--config(=.+|$)")
_SERVED_NAME = re.compile(r"^--served[-_]model[-_]name(=.+|$)")


def _requires_model_first(parser: ParserSpec, args: list[Token]) -> bool:
    """vLLM's serve refuses --served-model-name when the first argument is an option."""
    probe = parser.features.get("served_model_name_without_model")
    if not isinstance(probe, dict) or probe.get("ok") is not False:
        return False
    texts = [t.text for t in args]
    return bool(
        texts
        and texts[0].startswith("-")
        and not any(_CONFIG.match(t) for t in texts)
        and any(_SERVED_NAME.match(t) for t in texts)
    )


def _model_option_refused(parser: ParserSpec, args: Sequence[Token]) -> RewriteError | None:
    """Where the generator's probe found ``vllm serve --model m`` refused before parsing (the
    release checks for a word equal to ``--model``), the first such word."""
    probe = parser.features.get("model_option")
    if not isinstance(probe, dict) or probe.get("ok") is not False:
        return None
    for token in args:
        if token.literal and token.text == "--model":
            return RewriteError(
                "model-not-first",
                "vllm serve refuses the --model option here; it needs the model as its first "
                "argument",
                token.span,
            )
    return None


def _move_model(args: list[Token]) -> list[Token]:
    """``vllm serve -tp 2 --model M ...`` is parsed as ``vllm serve M -tp 2 ...``."""
    for index, token in enumerate(args):
        if not _MODEL.match(token.text):
            continue
        # ``--model=$M``: the option is written, only its value is unknown.
        if not token.literal and not token.text.startswith("--model="):
            continue
        if token.text == "--model":
            if index + 1 >= len(args):
                return args  # vLLM itself fails here (IndexError); argparse reports it as well
            return [args[index + 1], *args[:index], *args[index + 2 :]]
        return [_tail(token, len("--model=")), *args[:index], *args[index + 1 :]]
    return args


def _dash_O_key(parser: ParserSpec) -> str | None:
    """Where ``-O`` is an option string and vLLM rewrites ``-O3`` into a dotted key of the
    compilation config: that key, read from the generator's ``-O3`` probe (the field it set to
    3).  None where no dotted rewrite happens (the type itself takes the bare level)."""
    if "-O" not in parser.by_string or not parser.feature("dotted_json"):
        return None
    probe = parser.features.get("dash_O")
    value = probe.get("value") if isinstance(probe, dict) else None
    if not isinstance(value, dict):
        return None
    return next((key for key in ("mode", "level") if value.get(key) == 3), None)


def _optimization_level(args: list[Token], option: str) -> list[Token]:
    """``-O3``, ``-O=3`` and ``-O 3`` as ``option`` followed by the level."""
    out: list[Token] = []
    for index, token in enumerate(args):
        text = token.text
        if (not token.literal or text.startswith("--") or not text.startswith("-O")
                or text.startswith("-O.")):
            out.append(token)
        elif text != "-O":
            start = 3 if len(text) > 2 and text[2] == "=" else 2
            out.append(synthetic(option, token.sub_span(0, 2)))
            out.append(_tail(token, start))
        elif index + 1 < len(args) and args[index + 1].text in _LEVELS:
            out.append(synthetic(option, token.span))
        else:
            out.append(token)
    return out


def _fold_dotted(result: Rewritten) -> None:
    """Dotted keys become one JSON value per flag, appended after every other argument."""
    args = result.args
    skip: set[int] = set()
    merged: dict[str, tuple[dict[str, Any], Span, bool]] = {}
    kept: list[Token] = []
    for index, token in enumerate(args):
        if index in skip:
            continue
        text = token.text
        if not token.literal or not text.startswith("-") or "." not in text:
            kept.append(token)
            continue
        if text.startswith("--"):
            text = _UNDERSCORED_HEAD.sub(lambda m: m.group(0).replace("_", "-"), text, count=1)
        if "=" in text:
            name, value_text = text.split("=", 1)
            if "." not in name:
                kept.append(token)
                continue
            literal = True
        else:
            if index + 1 >= len(args):
                result.errors.append(
                    RewriteError(
                        "dotted-key-without-value",
                        f"vLLM reads '{token.text}' as a dotted key and fails: no value "
                        "follows it",
                        token.span,
                    )
                )
                kept.append(token)
                continue
            name, value_text = text, args[index + 1].text
            literal = args[index + 1].literal
            skip.add(index + 1)
        if name.endswith("+"):
            name = name[:-1]
            value_text = json.dumps(value_text.split(","))
        key, *path = name.split(".")
        entry = merged.setdefault(key, ({}, token.sub_span(0, len(key)), True))
        _merge(entry[0], path, _dotted_value(value_text))
        merged[key] = (entry[0], entry[1], entry[2] and literal)
    for key, (value, span, literal) in merged.items():
        kept.append(synthetic(key, span))
        kept.append(synthetic(json.dumps(value), span, literal))
    result.args = kept


def _dotted_value(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        parsed = parse_human_int(text)
        return parsed.value if parsed.ok else text


def _merge(target: dict[str, Any], path: list[str], value: Any) -> None:
    for step in path[:-1]:
        nested = target.get(step)
        if not isinstance(nested, dict):
            nested = target[step] = {}
        target = nested
    last = path[-1] if path else ""
    if isinstance(value, list) and isinstance(target.get(last), list):
        target[last] = target[last] + value
    else:
        target[last] = value

