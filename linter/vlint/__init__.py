"""vlint: a static linter and policy checker for vLLM deployments."""

from __future__ import annotations

__version__ = "0.1.0"
