"""A value read from a file together with where it is written."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from vlint.model.positions import Span

T = TypeVar("T", covariant=True)


@dataclass(frozen=True)
class Located(Generic[T]):
    """``value`` as written at ``span``.

    A fact the file does not state is not a ``Located`` at all (the field holding it is None);
    a fact it states in a form that cannot be known statically (``${SHM}``, a Helm template,
    ``valueFrom``) is a ``Located`` whose ``value`` is None, so that a rule can tell "not
    written" from "written, but unknown" and stay silent on the second.
    """

    value: T
    span: Span
