"""Hand-curated facts in ``vlint_rules/curated/*.toml``, each with its release range and source.

TOML, not YAML: the standard library reads it in about a millisecond, on every run.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import vlint_rules

CURATED = Path(vlint_rules.__file__).parent / "curated"


@cache
def document(name: str) -> Mapping[str, Any]:
    with (CURATED / f"{name}.toml").open("rb") as handle:
        return tomllib.load(handle)
