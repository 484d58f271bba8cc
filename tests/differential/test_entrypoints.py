"""The entrypoint facts behind the VL4xx rules, judged by each release's real parser.

VL403: the API server module's parser takes a positional model and leaves ``--model`` at its
default, so the module serves the default model; vlint's finding names that same default.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.differential.releases import RELEASES, catalog_release
from vlint.engine.lint import lint
from vlint.settings import Settings

MODEL = "facebook/opt-125m"


@pytest.mark.parametrize("version", RELEASES)
def test_api_server_ignores_positional_model(
    real_chosen: Any, version: str, tmp_path: Path
) -> None:
    release = catalog_release(version)
    real_chosen.require(version)
    reply = real_chosen.parse(version, [MODEL], entry="api_server")
    parser = release.parser("api_server")
    if parser is None:
        pytest.skip(f"the catalog has no api_server parser for {version}")
    model = parser.by_dest["model"]
    if not parser.positionals:
        assert not reply["ok"], reply  # rejected: VL107's case, not VL403's
        return
    assert reply["ok"], reply
    namespace = reply["namespace"]
    assert namespace["model"] == model.default != MODEL
    assert MODEL in namespace.values()

    script = tmp_path / "run.sh"
    script.write_text(f"python -m vllm.entrypoints.openai.api_server {MODEL}\n", "utf-8")
    found = [f for f in lint([str(script)], Settings(target=version)).findings
             if f.code == "VL403"]
    assert len(found) == 1 and f"'{model.default}'" in found[0].message

    given = real_chosen.parse(version, [MODEL, "--model", "m"], entry="api_server")
    assert given["ok"] and given["namespace"]["model"] == "m", given
