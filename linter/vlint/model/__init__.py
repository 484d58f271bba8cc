"""The values every stage shares: positions, tokens with spans, invocations, findings.

The leaf of the package: it imports nothing else of vlint and nothing of vLLM.
"""

from vlint.model.finding import SEVERITY_RANK, Confirmation, ConfirmationState, Edit, Finding, Fix, Severity
from vlint.model.invocation import (
    BORROWED, Deployment, EnvVar, GpuCount, Invocation, LineBreak, ModelFacts, Mount, Port, Probe,
    ProbeKind, ServicePort,
)
from vlint.model.located import Located
from vlint.model.positions import LineIndex, Locator, Pos, Span, line_locator
from vlint.model.token import Entry, Keyword, Token

__all__ = [
    "BORROWED", "SEVERITY_RANK", "Confirmation", "ConfirmationState", "Deployment", "Edit",
    "Entry", "EnvVar",
    "Finding", "Fix", "GpuCount", "Located", "ModelFacts", "Mount", "Port", "Probe", "ProbeKind",
    "Invocation", "Keyword", "LineBreak", "LineIndex", "Locator", "Pos", "ServicePort", "Severity",
    "Span", "Token",
    "line_locator",
]
