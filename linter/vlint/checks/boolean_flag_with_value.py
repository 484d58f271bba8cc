"""What it does
    Reports a boolean flag given a value (``--enable-chunked-prefill=false``) where the
    targeted release's flag takes none.

Why is this bad?
    argparse stops with ``ignored explicit argument 'false'``.  Worse, YAML and compose files
    often write ``--flag=true`` believing it harmless; in releases where the flag takes no
    value the server does not start.

Example
    ``--enable-chunked-prefill=false``

Use instead
    ``--no-enable-chunked-prefill`` (or the release's ``--disable-...`` form), or
    ``--enable-chunked-prefill`` for ``true``.

Fix safety
    Safe when the release has the matching ``--X`` / ``--no-X`` form: the fix writes it.

vLLM releases
    All; whether a flag takes a value is read from each release's parser (generated catalog).

References
    https://docs.python.org/3/library/argparse.html#action
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.model import Edit, Finding, Fix
from vlint.normalise.resolution import OptionUse

RULE = Rule(code="VL206", name="boolean-flag-with-value", severity="error", since="0.1.0",
            fix="safe", confirm="parse")

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def _replacement(context: Context, use: OptionUse, wanted: bool) -> str | None:
    """The release's own option string that sets the same destination to ``wanted``."""
    parser = context.resolution.parser
    assert parser is not None and use.option is not None
    dest = use.option.dest
    found = [
        (string in option.hidden, string)
        for option in parser.options
        if option.dest == dest
        for string in option.strings
        if string.startswith("--") and option.stores(string) is wanted
    ]
    written = (use.resolved_string or use.written).lstrip("-")
    found.sort(key=lambda item: (item[0], written not in item[1], len(item[1])))
    return found[0][1] if found else None


def check(context: Context) -> Iterator[Finding]:
    for use in context.resolution.uses:
        if use.option is None or use.explicit is None or use.arity_error is None:
            continue
        if "ignored explicit argument" not in use.arity_error:
            continue
        given = use.explicit.text
        word = given.lower()
        wanted = True if word in _TRUE else False if word in _FALSE else None
        replacement = _replacement(context, use, wanted) if wanted is not None else None
        fix = (
            Fix(f"write '{replacement}'", (Edit(use.token.sub_span(0), replacement),), safe=True)
            if replacement
            else None
        )
        yield context.finding(
            RULE,
            use.token.sub_span(0),
            f"'{use.written}' takes no value in vLLM {context.releases}: '={given}' is rejected",
            f"write '{replacement}'" if replacement else f"write '{use.written}' without a value",
            fix=fix,
        )
