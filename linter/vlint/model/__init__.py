"""The values every stage shares: positions, tokens with spans, invocations, findings.

The leaf of the package: it imports nothing else of vlint and nothing of vLLM.
"""

from vlint.model.finding import SEVERITY_RANK, Confirmation, ConfirmationState, Edit, Finding, Fix, Severity
from vlint.model.invocation import Invocation, LineBreak
from vlint.model.positions import Locator, Pos, Span, line_locator
from vlint.model.token import Entry, Keyword, Token

__all__ = [
    "SEVERITY_RANK", "Confirmation", "ConfirmationState", "Edit", "Entry", "Finding", "Fix",
    "Invocation", "Keyword", "LineBreak", "Locator", "Pos", "Severity", "Span", "Token",
    "line_locator",
]
