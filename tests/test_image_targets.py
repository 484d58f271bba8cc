"""The release an image reference names (the curated table of image repositories), and the
target and note a launch gets from it."""

from __future__ import annotations

import pathlib

import pytest

from vlint import target
from vlint.knowledge import catalog, curated
from vlint.knowledge.images import LATEST, release_from_image, unversioned_note
from vlint.model import Deployment, Invocation, Located, Pos, Span
from vlint.checks.unpinned_image import floating_tag


@pytest.mark.parametrize(("image", "release"), [
    ("vllm/vllm-openai:v0.9.1", "0.9.1"),
    ("docker.io/vllm/vllm-openai:v0.10.1-cu130", "0.10.1"),
    ("vllm/vllm-openai:latest", LATEST),
    ("vllm/vllm-openai", LATEST),
    ("vllm/vllm-openai:latest-cu130", LATEST),
    ("vllm/vllm-openai@sha256:" + "a" * 64, None),
    ("vllm/vllm-openai:v0.9.1@sha256:" + "a" * 64, "0.9.1"),
    ("vllm/vllm-openai:nightly", None),
    ("vllm/vllm-openai:gemma4-cu130", None),
    ("vllm/vllm-openai-rocm:v0.11.0-rocm", "0.11.0"),
    ("mirror.example.com/vllm/vllm-openai:v0.9.2", "0.9.2"),
    ("vllm/vllm-openai:${TAG}", None),
    ("rocm/vllm:rocm7.0.0_vllm_0.11.1_20251024", "0.11.1"),
    ("rocm/vllm:rocm6.3.1_instinct_vllm0.8.3_20250415", "0.8.3"),
    ("rocm/vllm:rocm6.3.1_vllm_0.8.5_20250521", None),
    ("rocm/vllm:latest", None),
    ("nvcr.io/nvidia/vllm:26.01-py3", "0.11.1"),
    ("nvcr.io/nvidia/vllm:25.08-py3", None),
    ("quay.io/ascend/vllm-ascend:v0.9.1rc2", "0.9.1"),
    ("quay.io/ascend/vllm-ascend:v0.8.4rc1", None),
    ("registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.0.0", "0.8.4"),
    ("public.ecr.aws/q9t5s3a7/vllm-release-repo:0123abc-x86_64", None),
    ("ghcr.io/llm-d/llm-d-cuda:v0.9.0", None),
    ("myorg/vllm:v0.9.1", None),
    ("python:3.11.7", None),
])
def test_release_from_image(image: str, release: str | None) -> None:
    assert release_from_image(image) == release


def test_every_curated_repository_has_a_source_and_known_mode() -> None:
    for entry in curated.image_repositories().values():
        assert entry.source, entry.repository
        assert entry.tags in ("release", "pattern", "map", "own"), entry.repository
        assert entry.repository == entry.repository.lower()
        for release in entry.releases.values():
            catalog.target(release)  # a release vLLM made, that vlint can check


@pytest.mark.parametrize(("image", "note"), [
    ("vllm/vllm-openai:gemma4-cu130", "image tag 'gemma4-cu130' of vllm/vllm-openai is not a "
     "vLLM version"),
    ("vllm/vllm-openai@sha256:" + "b" * 64, "image vllm/vllm-openai is pinned by digest only, "
     "which names no vLLM release"),
    ("nvcr.io/nvidia/vllm:25.08-py3", "image tag '25.08-py3' of nvcr.io/nvidia/vllm is not a "
     "vLLM version"),
    ("myorg/vllm:v0.9.1", "image myorg/vllm is not one vlint knows to tag vLLM releases"),
    ("vllm/vllm-openai:v0.9.1", None),
    ("python:3.12", None),
])
def test_unversioned_note(image: str, note: str | None) -> None:
    assert unversioned_note(image) == note


def _launch(path: pathlib.Path, image: str | None, release: str | None) -> Invocation:
    where = Span(Pos(3, 1), Pos(3, 5))
    facts = Deployment(image=None if image is None else Located(image, where))
    return Invocation(str(path), ("compose",), "cli", where, deployment=facts, target=release)


def test_unversioned_image_falls_back_to_the_project_pins_with_a_note(
    tmp_path: pathlib.Path,
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("vllm==0.10.1\n")
    path = tmp_path / "compose.yaml"
    chosen = target.releases_for(_launch(path, "vllm/vllm-openai:gemma4-cu130", None), None)
    assert [str(v) for v in chosen.releases] == ["0.10.1"]
    assert chosen.notes[0] == (f"{path}:3: image tag 'gemma4-cu130' of vllm/vllm-openai is not "
                               "a vLLM version; checked against the project's pins")


def test_unversioned_image_without_pins_takes_the_default(tmp_path: pathlib.Path) -> None:
    (tmp_path / ".git").mkdir()
    path = tmp_path / "compose.yaml"
    chosen = target.releases_for(_launch(path, "vllm/vllm-openai@sha256:" + "c" * 64, None), None)
    assert chosen.defaulted
    assert chosen.releases == (catalog.newest(),)
    assert chosen.notes[0].endswith("which names no vLLM release; checked against the default "
                                    "release")


def test_install_pin_target_is_noted_as_the_builds(tmp_path: pathlib.Path) -> None:
    (tmp_path / ".git").mkdir()
    path = tmp_path / "compose.yaml"
    chosen = target.releases_for(_launch(path, None, "==0.10.1"), None)
    assert [str(v) for v in chosen.releases] == ["0.10.1"]
    assert chosen.notes == ()
    assert target.is_install_pin("==0.10.1") and not target.is_install_pin("0.10.1")


def test_digest_is_not_a_floating_tag() -> None:
    assert floating_tag("vllm/vllm-openai@sha256:" + "d" * 64) is None
    assert floating_tag("vllm/vllm-openai:latest@sha256:" + "d" * 64) is None
    assert floating_tag("vllm/vllm-openai") == "latest"


def _skypilot(tmp_path: pathlib.Path, image_id: str) -> list[Invocation]:
    from vlint.extract import launcher

    text = (f"resources:\n  accelerators: A100:1\n  image_id: {image_id}\n"
            "run: |\n  vllm serve m --port 8000\n")
    path = tmp_path / "sky.yaml"
    path.write_text(text)
    return launcher.extract(str(path), text)


def test_skypilot_docker_image_id_gives_the_target_and_image(tmp_path: pathlib.Path) -> None:
    (launch,) = _skypilot(tmp_path, "docker:vllm/vllm-openai:v0.9.1")
    assert launch.target == "0.9.1"
    assert launch.image == "vllm/vllm-openai:v0.9.1"
    assert launch.image_span == Span(Pos(3, 20), Pos(3, 43))


@pytest.mark.parametrize("image_id", ["ami-0123456789abcdef0", "'docker:'", "docker:${IMAGE}"])
def test_skypilot_other_image_ids_give_no_target(tmp_path: pathlib.Path, image_id: str) -> None:
    (launch,) = _skypilot(tmp_path, image_id)
    assert launch.target is None
