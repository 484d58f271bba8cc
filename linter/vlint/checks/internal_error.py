"""What it does
    Reports a file vlint failed to lint: an error inside vlint while it read, resolved or
    checked the file (the finding names the error's type and the stage), or linting it took
    longer than the per-file time budget (10 seconds).  The other files are linted as usual.

Why is this bad?
    Nothing in the file was checked, so a real problem in it may be missing from the report;
    the run still fails, so that a bug in vlint (or a file crafted to trigger one) cannot
    quietly let a deployment through.

Example
    A file whose shape vlint's extractor does not expect, or one built to make a check take
    minutes.

Use instead
    Nothing to change in the file, as far as vlint knows: this is vlint's bug.  Report it with
    the finding's message (it never quotes the file) and, if you can, a file that reproduces it.

Fix safety
    No automatic fix.

vLLM releases
    All.

References
    vlint's issue tracker.
"""

from __future__ import annotations

from vlint.checks.base import Rule, rule_finding
from vlint.model import Finding, Pos, Span

# Reported by the engine (``vlint.engine.lint``) when linting a file raises or runs past its time
# budget.
RULE = Rule(code="VL003", name="internal-error", severity="error", since="0.1.0", scope="run")

_FILE_START = Span(Pos(1, 1), Pos(1, 1))
_HELP = "nothing else in this file was reported; this is a vlint bug, please report it"


def crashed(path: str, stage: str, error: BaseException, rule: str | None = None) -> Finding:
    """The finding for ``error`` raised in ``stage`` (by ``rule``); the error's text, which may
    quote the file, is left out."""
    where = f"the {stage} stage" + (f" (rule {rule})" if rule else "")
    return rule_finding(
        RULE, path, _FILE_START, f"vlint failed on this file: {type(error).__name__} in {where}",
        _HELP,
    )


def overran(path: str, budget: float) -> Finding:
    return rule_finding(
        RULE, path, _FILE_START,
        f"vlint gave up on this file: linting it took longer than its time budget ({budget:g} s)",
        _HELP,
    )
