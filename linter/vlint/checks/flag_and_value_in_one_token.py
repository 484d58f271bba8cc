"""What it does
    Reports one argument that holds an option and its value separated by a space, such as the
    list item ``"--dtype auto"`` in a compose, Kubernetes, exec-form or Python argv list.

Why is this bad?
    Nothing splits a list item into words: the server receives ``--dtype auto`` as one argument.
    argparse reads a word with a space in it as a positional, so the option is not set: the
    server stops with ``unrecognized arguments`` (an error), or, where no model was given
    before it, takes the word as the model (a warning: the parser accepts it, the option is
    still not set, and the API server module ignores its positional altogether).

Example
    ``command: ["--model", "m", "--dtype auto"]``

Use instead
    ``command: ["--model", "m", "--dtype", "auto"]``

Fix safety
    No automatic fix: splitting the item is a different edit in a YAML flow list, a YAML block
    list, JSON exec form, a Python list and a quoted shell word.

vLLM releases
    All; an option is recognised when its first word is an option string of the targeted
    release's parser (generated catalog).  VL107 leaves such a word to this rule.

References
    https://docs.docker.com/reference/compose-file/services/#command
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.knowledge.catalog import OptionSpec
from vlint.checks.base import Context, Rule
from vlint.model import Finding, Token

RULE = Rule(code="VL402", name="flag-and-value-in-one-token", severity="error", since="0.1.0",
            confirm="parse")


def joined_tokens(context: Context) -> list[tuple[Token, str, OptionSpec]]:
    """Positional words that are an option of the release, a blank and its value."""
    parser = context.resolution.parser
    if parser is None:
        return []
    found = []
    for token in context.resolution.positionals:
        text = token.text.strip()
        if not token.literal or not text.startswith("-") or not any(c.isspace() for c in text):
            continue
        first = text.split(None, 1)[0]
        name = first.split("=", 1)[0] if first.startswith("--") else first
        option = parser.by_string.get(name) or parser.by_string.get(name.replace("_", "-"))
        if option is not None:
            found.append((token, name, option))
    return found


def check(context: Context) -> Iterator[Finding]:
    rejected = {id(token) for token in context.resolution.extra_positionals()}
    for token, name, option in joined_tokens(context):
        text = token.text.strip()
        value = text.split(None, 1)[1] if len(text.split(None, 1)) > 1 else ""
        parts = f"'{name}' and '{value}'" if option.takes_value else f"'{name}'"
        taken = id(token) not in rejected
        yield context.finding(
            RULE,
            token.sub_span(0),
            f"'{token.text}' is one argument: vLLM {context.releases} reads it as "
            + ("the positional model" if taken else "a positional")
            + f", not as '{name}'",
            f"write {parts} as separate items",
            severity="warning" if taken else None,
        )
