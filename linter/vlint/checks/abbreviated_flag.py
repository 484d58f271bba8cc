"""What it does
    Reports an option written as a prefix of its real name (``--max-num-seq`` for
    ``--max-num-seqs``), and, as an error, a prefix that matches several options.

Why is this bad?
    argparse accepts a unique prefix, so the command works today.  When a later release adds an
    option with the same prefix, the same command fails with ``ambiguous option``.  A prefix that
    is already ambiguous in the targeted release makes the parser stop.

Example
    ``--max-num-batched 8192``

Use instead
    ``--max-num-batched-tokens 8192``

Fix safety
    Safe: the full option string is the one the release resolved the prefix to.

vLLM releases
    All releases whose parser allows abbreviations (recorded per release in the catalog).

References
    https://docs.python.org/3/library/argparse.html#allow-abbrev
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks import container_option_after_image
from vlint.checks.base import Context, Rule
from vlint.extract.config_refs import KIND
from vlint.model import Edit, Finding, Fix

RULE = Rule(code="VL105", name="abbreviated-flag", severity="warning", since="0.1.0", fix="safe",
            confirm="parse")


def check(context: Context) -> Iterator[Finding]:
    for use in context.resolution.uses:
        if container_option_after_image.explains(context, use):
            continue  # VL407 reports it
        if use.match == "abbrev" and use.resolved_string is not None:
            full = use.resolved_string
            written = _as_written(full, use.written, context.resolution.invocation.origin[-1])
            yield context.finding(
                RULE,
                use.name_span,
                f"'{use.written}' is an abbreviation of '{full}'",
                f"write '{written}'; a new flag with the same prefix would make it ambiguous",
                fix=Fix(f"expand to '{written}'", (Edit(use.name_span, written),), safe=True),
            )
        elif use.match == "ambiguous":
            shown = ", ".join(use.candidates[:4]) + (", ..." if len(use.candidates) > 4 else "")
            yield context.finding(
                RULE,
                use.name_span,
                f"'{use.written}' is ambiguous in vLLM {context.releases}: it could be {shown}",
                "write the full flag name",
                severity="error",
            )


def _as_written(full: str, written: str, kind: str) -> str:
    """The full option in the form the text of ``kind`` (the innermost) writes options: in a vLLM config file the key, with
    no leading dashes (vLLM adds them; ``--max-num-seqs:`` would become ``----max-num-seqs``)
    and the key's own underscores (``max_num_seq:`` becomes ``max_num_seqs:``)."""
    if kind != KIND:
        return full
    key = full.removeprefix("--")
    return key.replace("-", "_") if "_" in written else key
