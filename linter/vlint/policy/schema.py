"""The pydantic model of a policy file (validation at the edge; see :mod:`vlint.policy.policies`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Operator = Literal[
    "exists", "absent", "eq", "ne", "in", "not_in", "lt", "le", "gt", "ge", "matches",
    "requires", "conflicts",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ScopeModel(_Strict):
    paths: list[str] = Field(default_factory=list)
    kinds: list[str] = Field(default_factory=list)
    images: list[str] = Field(default_factory=list)
    vllm: str | None = None


class RowModel(_Strict):
    setting: str = Field(min_length=1)
    op: Operator
    value: Any = None


class PolicyModel(_Strict):
    id: str
    name: str | None = None
    severity: Literal["error", "warning", "info"]
    message: str = Field(min_length=1)
    help: str = ""
    scope: ScopeModel | None = None
    rule: RowModel | None = None
    rules: list[RowModel] | None = None
    expr: str | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> PolicyModel:
        given = [k for k in ("rule", "rules", "expr") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(
                "a policy needs exactly one of 'rule', 'rules' or 'expr'"
                + (f" (it has {', '.join(given)})" if given else "")
            )
        if self.rules is not None and not self.rules:
            raise ValueError("'rules' must not be empty")
        return self


class PolicyFile(_Strict):
    policies: list[PolicyModel]
