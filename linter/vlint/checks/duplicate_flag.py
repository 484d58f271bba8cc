"""What it does
    Reports a setting given twice on one command line: the same option twice, or two spellings
    that set the same destination (an abbreviation, ``--max_num_seqs`` for ``--max-num-seqs``,
    ``--enforce-eager`` and ``--no-enforce-eager``).  Options that collect every occurrence
    (argparse ``append``, ``extend``, ``count``) are not duplicates, nor two occurrences
    passed under different conditions (``${VAR:+...}``, words two branches of a shell ``if``
    append to a command string): one may be passed without the other.

Why is this bad?
    argparse keeps the last value and drops the earlier one without an error, so the command
    does not do what its first occurrence says.  Long launch scripts that build a command from
    defaults plus overrides often end up with both; whoever reads the first one is misled.

Example
    ``vllm serve my-model --max-num-seqs 8 --gpu-memory-utilization 0.9 --max-num-seqs 16``

Use instead
    ``vllm serve my-model --gpu-memory-utilization 0.9 --max-num-seqs 16``

Fix safety
    No automatic fix: which of the two the author meant is not known.

vLLM releases
    All: argparse's last-wins behaviour is probed per release (catalog feature
    ``duplicate_last_wins``).  Where the probe found vLLM's own ``Found duplicate keys`` warning
    (feature ``duplicate_warning``), the message says vLLM warns too; vLLM compares option names
    after turning underscores into dashes, so it does not warn about an abbreviation or about
    ``--X`` against ``--no-X``.

References
    https://docs.python.org/3/library/argparse.html#action
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.knowledge.catalog import ParserSpec
from vlint.checks.base import Context, Rule
from vlint.checks.quoting import holds_secret, masked, value_redactions
from vlint.model import Finding, Span
from vlint.normalise.resolution import OptionUse

RULE = Rule(code="VL109", name="duplicate-flag", severity="warning", since="0.2.0",
            confirm="parse")

# Actions that keep every occurrence instead of replacing the value.
_COLLECTING = frozenset({"append", "append_const", "extend", "count", "help", "version"})


def check(context: Context) -> Iterator[Finding]:
    parser = context.resolution.parser
    if parser is None:
        return
    last: dict[str, OptionUse] = {}
    for use in context.resolution.uses:
        option = use.option
        if option is None or use.arity_error is not None or _collects(option.action):
            continue
        earlier = last.get(option.dest)
        last[option.dest] = use
        if earlier is None or earlier.token.condition != use.token.condition:
            continue  # (one may be passed without the other: two branches of an ``if``)
        warned = _vllm_warns(parser, earlier, use)
        message = (
            f"{_shown(earlier)} at {_where(earlier.token.span)} is overridden by {_shown(use)} "
            f"at {_where(use.token.span)}: both set {option.dest}; the last one wins"
        )
        if warned:
            message += f" (vLLM {context.releases} warns about it too)"
        yield context.finding(
            RULE,
            _span(earlier),
            message,
            "remove the earlier one, or the later one if it is the mistake",
            redact=_redact(earlier, use),
        )


def _collects(action: str) -> bool:
    lowered = action.lower()
    return action in _COLLECTING or "append" in lowered or "extend" in lowered


def _vllm_warns(parser: ParserSpec, earlier: OptionUse, later: OptionUse) -> bool:
    """vLLM warns when the same option name (underscores made dashes) appears twice."""
    if not parser.feature("duplicate_warning"):
        return False

    def name(use: OptionUse) -> str:
        written = use.written
        if written.startswith("--") and parser.feature("underscore_to_dash"):
            written = written.replace("_", "-")
        return written

    return name(earlier) == name(later)


def _shown(use: OptionUse) -> str:
    whole = holds_secret(use)
    if use.explicit is not None:
        given = use.explicit
        return f"'{use.token.text[: given.start]}{masked(given.text, whole)}'"
    words = [use.written, *(masked(value.text, whole) for value in use.values)]
    return "'" + " ".join(words) + "'"


def _redact(*uses: OptionUse) -> tuple[Span, ...]:
    return tuple(
        span
        for use in uses
        for value in (*use.values, *([use.explicit] if use.explicit is not None else []))
        for span in value_redactions(value, holds_secret(use))
    )


def _span(use: OptionUse) -> Span:
    end = use.values[-1].span.end if use.values else use.name_span.end
    start = use.token.span.start
    return Span(start, end if end > start else use.name_span.end)


def _where(span: Span) -> str:
    return f"{span.start.line}:{span.start.column}"
