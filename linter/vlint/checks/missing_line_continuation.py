"""What it does
    Reports a shell line that ends a vLLM command although the next non-blank line holds its
    flags: the line has no ``\\`` at its end, or has ``\\`` followed by blanks.

Why is this bad?
    A backslash continues a line only when it is the line's last character.  Without it, or
    with blanks after it (an escaped blank, then a newline that ends the command), the server
    starts without the flags below, and the shell then runs ``--max-num-seqs 8`` as a command of
    its own, which fails after the server has already started with defaults.

Example
    ``vllm serve m`` then, on the next line, ``--max-num-seqs 8``

Use instead
    ``vllm serve m \\`` then ``--max-num-seqs 8``

Fix safety
    No automatic fix: which lines belong to the command is a guess.

vLLM releases
    All; this is shell syntax.  Only text a shell runs is checked (scripts, ``sh -c``); a compose
    ``command:`` string is split into words without a shell, so its line breaks end nothing.

References
    https://www.gnu.org/software/bash/manual/bash.html#Escape-Character
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.model import Finding

RULE = Rule(code="VL406", name="missing-line-continuation", severity="error", since="0.1.0")


def check(context: Context) -> Iterator[Finding]:
    for broken in context.resolution.invocation.line_breaks:
        how = (
            "'\\' followed by blanks does not continue the line"
            if broken.trailing_blanks
            else "the line ends without '\\'"
        )
        yield context.finding(
            RULE,
            broken.span,
            f"the command ends here, so '{broken.orphan}' on the next line is not passed to "
            f"vLLM {context.releases}: {how}",
            "remove the blanks after '\\'" if broken.trailing_blanks else "end the line with '\\'",
        )
