"""vLLM's ``StoreBoolean`` action (``--enable-chunked-prefill[=true|false]`` in 0.5.5-0.8.0) as the
normaliser resolves it, which VL301 and VL307 read.  Until the catalog holds those releases the
action is simulated on a known release's ``--enable-chunked-prefill``."""

from __future__ import annotations

from typing import Any

import pytest

from vlint.knowledge import catalog
from vlint.knowledge.catalog import Release
from vlint.extract import extractor
from vlint.normalise.resolution import resolve


def _release() -> Release:
    real = catalog.load(catalog.newest())
    serve = dict(real.raw["serve"])
    options = []
    for option in serve["options"]:
        if option["dest"] == "enable_chunked_prefill":
            option = {**option, "strings": ["--enable-chunked-prefill"], "action": "StoreBoolean",
                      "nargs": "?", "const": "True", "negative_strings": None}
        options.append(option)
    return Release(real.version, {**real.raw, "serve": {**serve, "options": options}})


@pytest.mark.parametrize(
    ("argv", "value", "certain"),
    [
        ("--enable-chunked-prefill=False", False, True),
        ("--enable-chunked-prefill false", False, True),
        ("--enable-chunked-prefill TRUE", True, True),
        ("--enable-chunked-prefill", True, True),
        ("--enable-chunked-prefill maybe", "maybe", False),
        ('--enable-chunked-prefill "$CHUNKED"', None, False),
    ],
)
def test_store_boolean(argv: str, value: Any, certain: bool) -> None:
    (invocation,) = extractor("shell").extract("run.sh", f"vllm serve m {argv}\n")
    setting = resolve(invocation, _release()).written("enable_chunked_prefill")
    assert setting is not None and setting.certain is certain
    if value is not None:
        assert setting.value == value
