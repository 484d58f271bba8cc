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
from vlint.knowledge.catalog import option_lifetimes
from vlint.knowledge.images import DEMO_SERVER_MODULE
from vlint.settings import Settings
from vlint.syntax.container_cli import DOCKER_RUN

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


@pytest.mark.parametrize("version", RELEASES)
def test_demo_server_module_is_shipped_as_the_catalog_says(
    real_chosen: Any, version: str, tmp_path: Path
) -> None:
    """VL408: the catalog says whether a release ships the demo server's module, and vlint
    reports its launch exactly where the real package lacks it."""
    real_chosen.require(version)
    shipped = real_chosen.has_module(version, DEMO_SERVER_MODULE)
    assert catalog_release(version).ships_module(DEMO_SERVER_MODULE) is shipped
    script = tmp_path / "run.sh"
    script.write_text(f"python -m {DEMO_SERVER_MODULE} --model {MODEL} --port 8000\n", "utf-8")
    codes = {f.code for f in lint([str(script)], Settings(target=version)).findings}
    assert ("VL408" in codes) is not shipped


def _docker_only_options() -> list[str]:
    """The long options of ``docker run`` that no vLLM release has (VL407's own criterion)."""
    known = option_lifetimes("serve")
    return sorted(o for o in (*DOCKER_RUN.valued, *DOCKER_RUN.flags)
                  if o.startswith("--") and o not in known)


@pytest.mark.parametrize("version", RELEASES)
def test_docker_options_after_the_image_reach_vllm_as_vlint_says(
    real_chosen: Any, version: str, tmp_path: Path
) -> None:
    """VL407: a ``docker run`` option written after the image is an argument of vLLM's, which
    the real parser refuses, or reads as an abbreviation of one of its own options (vlint's
    resolution says which); vlint reports every one of them."""
    real_chosen.require(version)
    options = _docker_only_options()
    replies = real_chosen.parse_many(version, [[MODEL, option] for option in options])
    tag = f"v{version}"
    script = tmp_path / "run.sh"
    script.write_text("".join(
        f"docker run --gpus all vllm/vllm-openai:{tag} {MODEL} {option}\n" for option in options),
        "utf-8")
    reported = {f.span.start.line for f in lint([str(script)], Settings(target=version)).findings
                if f.code == "VL407"}
    parser = catalog_release(version).parser("serve")
    assert parser is not None
    for line, (option, reply) in enumerate(zip(options, replies, strict=True), start=1):
        assert line in reported, option
        if reply["ok"]:
            # argparse took it as the one option it is a prefix of.
            expanded = [s for s in parser.long_strings if s.startswith(option)]
            assert len(expanded) == 1, (option, reply)
