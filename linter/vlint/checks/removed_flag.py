"""What it does
    Reports a flag that older vLLM releases had and the targeted release no longer accepts, and
    names what replaced it.

Why is this bad?
    The server refuses to start with ``unrecognized arguments``.  Flags are removed after a
    deprecation period; scripts written for an older release keep them for years.

Example
    ``--guided-decoding-backend xgrammar`` on vLLM 0.12.0 or later.

Use instead
    ``--structured-outputs-config.backend xgrammar``: the replacement the message names, or
    nothing where the feature itself was removed (``--swap-space``).

Fix safety
    Safe where the curated replacement is one option string with the same meaning
    (``--max-context-len-to-capture`` -> ``--max-seq-len-to-capture``) and the targeted release
    has it; otherwise no automatic fix.

vLLM releases
    Computed from the generated catalog: the last known release whose parser had the flag.  The
    replacements, with the release each appeared in, are curated in
    ``vlint_rules/curated/renames.toml`` from the releases' own deprecation notes, and
    ``tests/rules/test_renames.py`` checks them against the catalog.

References
    https://docs.vllm.ai/en/latest/cli/serve/
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.checks.support import lifetime, release_version, unknown_uses
from vlint.knowledge.catalog import ParserSpec
from vlint.knowledge.curated import Rename, renames
from vlint.model import Edit, Finding, Fix

RULE = Rule(code="VL103", name="removed-flag", severity="error", since="0.1.0", fix="safe",
            confirm="parse")


def check(context: Context) -> Iterator[Finding]:
    target = release_version(context)
    parser = context.resolution.parser
    for use in unknown_uses(context):
        known = lifetime(context, use)
        if known is None:
            continue
        string, life = known
        # The last release before the target that had it (a string can come back later:
        # 0.33.0's hidden --disable-X of --enable-X pairs).
        removed_after = max((high for _, high in life.ranges or ((life.first, life.last),)
                             if high < target), default=None)
        if removed_after is None or life.present_in(target):
            continue
        message = f"'{string}' was removed after {removed_after}"
        help_text = f"remove '{string}'; vLLM {context.releases} does not accept it"
        fix = None
        rename = _available(renames().get(string), parser)
        if rename is not None and rename.replacement:
            message += f"; use '{rename.replacement}' (present since {rename.since})"
            help_text = rename.help or f"write '{rename.replacement}' instead"
            if rename.fix:
                fix = Fix(f"replace with '{rename.fix}'", (Edit(use.name_span, rename.fix),),
                          safe=True)
        elif rename is not None and rename.help:
            help_text = rename.help
        yield context.finding(RULE, context.resolution.unknown_span(use), message, help_text,
                              fix=fix)


def _available(rename: Rename | None, parser: ParserSpec | None) -> Rename | None:
    """The curated entry, following renames until the replacement exists in this release; an
    entry whose replacement is gone too keeps only its advice."""
    seen: set[str] = set()
    while rename is not None and rename.replacement and parser is not None:
        if _accepts(parser, rename.replacement):
            return rename
        seen.add(rename.old)
        onward = renames().get(rename.replacement)
        if onward is None or onward.old in seen:
            return Rename(rename.old, rename.last, "", "", "", "", rename.source)
        rename = onward
    return rename


def _accepts(parser: ParserSpec, string: str) -> bool:
    head, dot, _ = string.partition(".")
    if dot:
        return head in parser.by_string and parser.feature("dotted_json")
    return string in parser.by_string
