"""The pydantic model of the configuration table: validation at the edge, and messages that
name the remedy.  Imported only when a configuration file is read (pydantic is slow to import)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from vlint.model import Severity
from vlint.settings import LIVENESS_BUDGET

SEVERITIES = ("error", "warning", "info")
PRESETS = ("recommended", "strict", "security")
# vlint's codes and prefixes, its built-in policies (VLP) and policy ids or prefixes (ORG001).
_CODE = re.compile(r"^(ALL|VL\d{0,3}|VLP\d{0,3}|(?!VL)[A-Z]{2}[A-Z_]*\d*)$")


def _check_codes(codes: Sequence[str]) -> list[str]:
    upper = [code.strip().upper() for code in codes]
    for code in upper:
        if not _CODE.match(code):
            raise ValueError(
                f"{code!r} is not a vlint code or prefix (VL202, VL2 or ALL) or a policy id (ORG001)"
            )
    return upper


class Options(BaseModel):
    model_config = ConfigDict(
        extra="forbid", alias_generator=lambda name: name.replace("_", "-"), frozen=True
    )

    target_version: str | None = None
    select: list[str] | None = None
    extend_select: list[str] = Field(default_factory=list)
    ignore: list[str] | None = None
    per_file_ignores: dict[str, list[str]] = Field(default_factory=dict)
    exclude: list[str] = Field(default_factory=list)
    severity: dict[str, Literal["error", "warning", "info"]] = Field(default_factory=dict)
    fail_on: Literal["error", "warning", "info"] = "warning"
    policies: list[str] = Field(default_factory=list)
    # Installed policy packs to load, by entry point name: none is loaded unless named.
    policy_packs: list[str] = Field(default_factory=list)
    extends: list[Literal["recommended", "strict", "security"]] = Field(default_factory=list)
    # Seconds a liveness probe with no startup probe must leave vLLM to start (VL612).
    liveness_budget: int = Field(default=LIVENESS_BUDGET, ge=0, le=86400)

    @field_validator("select", "extend_select", "ignore")
    @classmethod
    def _codes(cls, codes: list[str] | None) -> list[str] | None:
        return None if codes is None else _check_codes(codes)

    @field_validator("per_file_ignores")
    @classmethod
    def _per_file(cls, table: dict[str, list[str]]) -> dict[str, list[str]]:
        return {glob: _check_codes(codes) for glob, codes in table.items()}

    @field_validator("severity")
    @classmethod
    def _severity_codes(cls, table: dict[str, Severity]) -> dict[str, Severity]:
        return dict(zip(_check_codes(list(table)), table.values(), strict=True))


ALLOWED_KEYS = sorted(field.alias or name for name, field in Options.model_fields.items())


def validate(path: Path, raw: Mapping[str, Any]) -> Options | list[str]:
    """The options, or the problems (without the ``invalid config: <file>:`` prefix)."""
    try:
        return Options.model_validate(raw)
    except ValidationError as error:
        return [_problem(path, item) for item in error.errors()]


def _problem(path: Path, item: Any) -> str:
    key = ".".join(str(part) for part in item["loc"])
    if item["type"] == "extra_forbidden":
        where = "[tool.vlint]" if path.name == "pyproject.toml" else "the file"
        return f"unknown key {key!r} in {where}; allowed keys: {', '.join(ALLOWED_KEYS)}"
    if item["type"] == "literal_error":
        allowed = PRESETS if key.startswith("extends") else SEVERITIES
        return f"{key}: {item['input']!r} is not one of {', '.join(allowed)}"
    if item["type"] == "value_error":
        return f"{key}: {str(item['msg']).removeprefix('Value error, ')}"
    return f"{key}: {item['msg'].lower()} (got {item['input']!r})"
