"""What the model-facts rules share: the facts of the model folder a launch serves, when the
folder is in the repository (``Invocation.local_models``)."""

from __future__ import annotations

from dataclasses import dataclass

from vlint.checks.base import Context
from vlint.model import ModelFacts, Span


@dataclass(frozen=True)
class Served:
    """The served model's folder facts, and where the model is written."""

    facts: ModelFacts
    span: Span


def served(context: Context) -> Served | None:
    resolution = context.resolution
    models = resolution.invocation.local_models
    if not models:
        return None
    setting = resolution.settings.get("model")
    if setting is None or setting.span is None or not setting.certain:
        return None
    facts = models.get(str(setting.value))
    return None if facts is None else Served(facts, setting.span)
