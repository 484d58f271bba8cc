"""What it does
    Reports a ``# vlint: ignore[...]`` (or ``<!-- vlint: ignore[...] -->``, ``ignore-file``,
    or the ``vlint.dev/ignore`` annotation) that suppresses nothing.

    It also reports every code in one that no rule or policy of the run has (``unknown code
    'VL999' in a suppression``, with a did-you-mean): a misspelt code suppresses nothing.
    Rule names (``unknown-flag``) are accepted as their codes.

    An unknown code on the command line or in a configuration file is a usage error (exit 2),
    but one in a comment is this finding: the comment may sit in a stranger's pull request,
    and a usage error would stop the run and print none of the file's other findings, while a
    finding points at the line, can be fixed (removed) and keeps every other result.

Why is this bad?
    A suppression outlives the problem it hid: after the flag is fixed or the release changes,
    the comment stays and would silently hide the next, different problem on that line.

Example
    ``vllm serve m --max-num-batched-tokens 16384  # vlint: ignore[VL202]``

Use instead
    ``vllm serve m --max-num-batched-tokens 16384``

Fix safety
    Safe: the fix removes the unused code from the comment, or the whole comment when nothing
    in it is used (its line too when it is alone on it).  A comment does not change what vLLM
    does.  The ``vlint.dev/ignore`` annotation is not fixed: removing a YAML key could leave
    an empty mapping behind.

vLLM releases
    All.  A suppression for a code that is not selected for the file is not reported.

References
    The Suppressions section of vlint's README.
"""

from __future__ import annotations

from vlint.checks.base import Rule

# Reported by the filter stage (``vlint.filter.suppress``): whether a suppression was used is only
# known once every finding of the file exists.
RULE = Rule(code="VL001", name="unused-suppression", severity="warning", since="0.1.0",
            fix="safe", scope="filter")
