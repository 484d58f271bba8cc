"""Findings, their fixes and what a real vLLM said about them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from vlint.model.positions import Span

Severity = Literal["error", "warning", "info"]
SEVERITY_RANK: Mapping[str, int] = {"info": 0, "warning": 1, "error": 2}


@dataclass(frozen=True)
class Edit:
    span: Span
    replacement: str


@dataclass(frozen=True)
class Fix:
    description: str
    edits: tuple[Edit, ...]
    safe: bool


ConfirmationState = Literal["confirmed", "refuted", "unverified"]


@dataclass(frozen=True)
class Confirmation:
    """What a real vLLM said about a finding (``vlint confirm``): ``state`` is ``confirmed`` (vLLM
    rejects or warns as predicted), ``refuted`` (vLLM accepts: a false positive) or
    ``unverified`` (``message`` says why); ``level`` is parse, config or start."""

    state: ConfirmationState
    level: str
    vllm_release: str | None
    message: str


@dataclass(frozen=True)
class Related:
    """Another place in the finding's file that the problem is about (the other side of a
    mismatch), with what it is there: ``max_num_seqs is set here``."""

    span: Span
    message: str


@dataclass(frozen=True)
class Finding:
    """A problem at ``span`` (its primary location), and the ``related`` places it concerns.

    ``fix`` is the preferred fix (the one the output shows); ``alternative`` is an unsafe fix
    that ``--unsafe-fixes`` applies instead (``16k`` -> ``16384`` where ``fix`` writes 16000).
    ``invocation``: which of its file's invocations the finding is about (0 for the first, in
    the order the extractor found them); None for a finding about the file or the run.
    """

    code: str
    name: str
    severity: Severity
    message: str
    help: str
    path: str
    span: Span
    vllm_versions: tuple[str, ...] = ()
    fix: Fix | None = None
    alternative: Fix | None = None
    # Source ranges no output may print (a secret's value): renderers that show source text
    # mask these characters.
    redact: tuple[Span, ...] = ()
    # Set by ``vlint confirm``; None when no vLLM was asked.
    confirmation: Confirmation | None = None
    related: tuple[Related, ...] = ()
    invocation: int | None = None
