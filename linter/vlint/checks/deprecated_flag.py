"""What it does
    Reports a flag the targeted release marks as deprecated, quoting vLLM's own notice.

Why is this bad?
    A deprecated flag is removed in a later release, and the upgrade then fails with
    ``unrecognized arguments``.  Some deprecated flags already do nothing: the setting they
    name no longer exists, so the command line says something the server does not do.

Example
    ``vllm serve m --disable-cascade-attn`` (no effect since cascade attention was removed)

Use instead
    ``vllm serve m``, or the replacement vLLM's notice names.

Fix safety
    Unsafe, and only for flags whose notice says they have no effect, in shell scripts:
    removing the flag (and its value) from the command line.  It is unsafe because a later
    reader may rely on the flag as documentation of intent.

vLLM releases
    The deprecation notices are read from each release's parser by the generator (help text,
    argparse's ``deprecated=`` and the warning the release prints when the flag is used).

References
    https://docs.vllm.ai/en/latest/cli/serve/
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.model import Edit, Finding, Fix, Span
from vlint.normalise.resolution import OptionUse

_PLAIN_SHELL = frozenset({"markdown", "shell"})

RULE = Rule(code="VL104", name="deprecated-flag", severity="warning", since="0.1.0", fix="unsafe",
            confirm="parse")


def _removal(context: Context, use: OptionUse) -> Fix | None:
    """Delete the flag and its values back to the end of the word before them (shell text
    written directly in the file, or in a Markdown fence, only)."""
    invocation = context.resolution.invocation
    if invocation.origin[-1] != "shell" or not set(invocation.origin) <= _PLAIN_SHELL:
        return None
    words = [use.token, *(value.token for value in use.values)]
    indexes = [next((i for i, t in enumerate(invocation.args) if t is w), -1) for w in words]
    if -1 in indexes or indexes != list(range(indexes[0], indexes[0] + len(words))):
        return None
    start = invocation.args[indexes[0] - 1].span.end if indexes[0] else invocation.anchor.end
    return Fix(f"remove '{use.written}'", (Edit(Span(start, words[-1].span.end), ""),), safe=False)


def check(context: Context) -> Iterator[Finding]:
    for use in context.resolution.uses:
        option = use.option
        if option is None or option.deprecated is None:
            continue
        notice = option.deprecated.rstrip(".")
        no_effect = "no effect" in notice.lower()
        yield context.finding(
            RULE,
            use.name_span,
            f"'{use.written}' is deprecated in vLLM {context.releases}{_rest(notice)}",
            _advice(option.deprecated_warning) or ("remove it" if no_effect else
                                                   "remove it before upgrading"),
            fix=_removal(context, use) if no_effect else None,
        )


def _rest(notice: str) -> str:
    """vLLM's notice after its own "--flag is deprecated", e.g. " and has no effect"."""
    head, found, tail = notice.partition(" is deprecated")
    return tail if found and head.startswith("-") else f": {notice}"


def _advice(warning: str | None) -> str | None:
    """The sentence of vLLM's runtime warning that names what to use instead."""
    sentences = (warning or "").split(". ")
    found = [s.strip().rstrip(".") for s in sentences if "instead" in s or s.startswith("Use ")]
    return found[-1] if found else None
