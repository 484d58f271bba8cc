"""The server image's entrypoint: read from a release's Dockerfile by the generator, and used by
argv recognition for the arguments given to that image."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest
from packaging.version import Version

from generator import dockerfile
from vlint.extract.argv import image_entry
from vlint.knowledge import catalog

OLD = """\
FROM nvidia/cuda:12.4 AS base
ENTRYPOINT ["/bin/bash"]
FROM base AS vllm-openai-base
RUN pip install vllm
FROM vllm-openai-base AS vllm-openai
ENTRYPOINT ["python3", "-m", \\
            "vllm.entrypoints.openai.api_server"]
FROM vllm-openai AS vllm-sagemaker
ENTRYPOINT ["./sagemaker-entrypoint.sh"]
"""


def test_stage_entrypoint_exec_form_with_continuation() -> None:
    assert dockerfile.stage_entrypoint(OLD) == [
        "python3", "-m", "vllm.entrypoints.openai.api_server"
    ]


def test_stage_entrypoint_inherited_and_shell_form() -> None:
    text = (
        "FROM x AS vllm-openai-base\nENTRYPOINT vllm serve\n"
        "FROM vllm-openai-base AS vllm-openai\n"
    )
    assert dockerfile.stage_entrypoint(text) == ["/bin/sh", "-c", "vllm serve"]


def test_no_stage_means_unknown() -> None:
    assert dockerfile.stage_entrypoint("FROM x AS other\nENTRYPOINT [\"a\"]\n") is None


def test_from_sdist_reads_docker_dockerfile(tmp_path: Path) -> None:
    archive = tmp_path / "vllm-9.9.9.tar.gz"
    data = OLD.encode()
    with tarfile.open(archive, "w:gz") as tar:
        info = tarfile.TarInfo("vllm-9.9.9/docker/Dockerfile")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    assert dockerfile.from_sdist(archive) == {
        "entrypoint": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
        "dockerfile": "docker/Dockerfile",
        "stage": "vllm-openai",
    }


@pytest.mark.parametrize("version", [str(v) for v in catalog.known_releases()])
def test_catalog_records_each_release_image(version: str) -> None:
    release = catalog.load(version)
    image = release.raw.get("image")
    if image is None:
        # Only where the generator had no Dockerfile: a wheel, or an sdist that shipped none.
        source = release.raw["_generated"]["source"]
        assert source["kind"] != "sdist" or Version(version) < Version("0.6.2"), source
        assert image_entry(version) in ("serve", "api_server")
        return
    assert image["entrypoint"]
    expected = "api_server" if image["entrypoint"][-1].endswith("api_server") else "serve"
    assert image_entry(version) == expected


def test_a_release_without_a_dockerfile_takes_the_nearest_releases_image() -> None:
    # 0.4.x-0.6.1 sdists ship no Dockerfile; their images ran the api_server module, as 0.6.2's
    # does (and 0.4.x has no `vllm serve` at all).
    old = [v for v in catalog.known_releases() if v < Version("0.6.2")]
    if not old:
        pytest.skip("the catalog has no release before 0.6.2")
    assert all(catalog.load(v).raw.get("image") is None for v in old)
    assert {image_entry(str(v)) for v in old} == {"api_server"}


def test_unknown_release_image_runs_vllm_serve() -> None:
    assert image_entry("0.1.0") == "serve"
    assert image_entry(None) == "serve"
