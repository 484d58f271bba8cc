"""Compose services built from a Dockerfile, and the vLLM a Dockerfile installs."""

from __future__ import annotations

import os
import pathlib

import pytest

from vlint.extract import compose, dockerfile
from vlint.model import Invocation


def lint_compose(tmp_path: pathlib.Path, text: str, files: dict[str, str]) -> list[Invocation]:
    for name, content in files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    path = tmp_path / "compose.yaml"
    path.write_text(text)
    return compose.extract(str(path), text)


def args(invocation: Invocation) -> list[str]:
    return [token.text for token in invocation.args]


def test_build_dot_from_server_image_makes_command_the_server_arguments(
    tmp_path: pathlib.Path,
) -> None:
    text = "services:\n  api:\n    build: .\n    command: --model m --port 8000\n"
    found = lint_compose(tmp_path, text, {"Dockerfile": (
        "FROM vllm/vllm-openai:v0.10.1 AS base\nRUN pip install lmcache\nFROM base\n")})
    (launch,) = found
    assert args(launch) == ["--model", "m", "--port", "8000"]
    assert launch.target == "0.10.1"
    # It runs as its base image does; the reference is shown at build: (the FROM is elsewhere).
    assert launch.image == "vllm/vllm-openai:v0.10.1"
    assert launch.image_span is not None and launch.image_span.start.line == 3
    model = launch.args[1]
    assert (model.span.start.line, model.span.start.column) == (4, 22)


def test_context_dockerfile_and_build_args_give_the_install_pin(tmp_path: pathlib.Path) -> None:
    text = (
        "services:\n"
        "  api:\n"
        "    image: myorg/server:v1\n"
        "    build:\n"
        "      context: .\n"
        "      dockerfile: docker/Dockerfile.pip\n"
        "      args:\n"
        "        VLLM_VERSION: 0.10.1\n"
        "    command: [\"--model\", \"m\"]\n"
    )
    found = lint_compose(tmp_path, text, {"docker/Dockerfile.pip": (
        "ARG VLLM_VERSION=0.9.2\nFROM python:3.12-slim\nARG VLLM_VERSION\n"
        "RUN pip install \"vllm==${VLLM_VERSION}\"\nENTRYPOINT [\"vllm\", \"serve\"]\n")})
    (launch,) = found
    assert launch.target == "==0.10.1"
    assert launch.entry == "serve"
    assert args(launch) == ["--model", "m"]
    assert launch.anchor.start.line == 9  # at the command, not in the Dockerfile


@pytest.mark.parametrize(("named", "repeated"), [
    ("    image: myorg/server:v1\n", ["vllm", "serve"]),
    # Without a name, a repetition is only extra arguments: no image to report it against.
    ("", []),
])
def test_command_repeating_the_dockerfile_entrypoint(
    tmp_path: pathlib.Path, named: str, repeated: list[str]
) -> None:
    text = f"services:\n  api:\n{named}    build: .\n    command: vllm serve m\n"
    (launch,) = lint_compose(tmp_path, text, {"Dockerfile": (
        "FROM python:3.12\nRUN pip install vllm==0.10.1\nENTRYPOINT [\"vllm\", \"serve\"]\n")})
    assert [word.text for word in launch.repeated_entry] == repeated
    assert args(launch)[-1] == "m"


def test_entrypoint_with_its_own_arguments_leaves_the_launch_to_the_dockerfile(
    tmp_path: pathlib.Path,
) -> None:
    text = "services:\n  api:\n    build: .\n    command: --max-model-len 4096\n"
    found = lint_compose(tmp_path, text, {"Dockerfile": (
        "FROM python:3.12\nENTRYPOINT [\"vllm\", \"serve\", \"m\", \"--port\", \"8000\"]\n")})
    assert found == []  # its arguments are in the Dockerfile, whose launch vlint reads there


def test_dockerfile_inline_bare_server(tmp_path: pathlib.Path) -> None:
    text = (
        "services:\n  api:\n    build:\n      context: .\n      dockerfile_inline: |\n"
        "        FROM vllm/vllm-openai:v0.9.2\n"
    )
    (launch,) = lint_compose(tmp_path, text, {})
    assert launch.target == "0.9.2"
    assert launch.args == ()
    assert (launch.anchor.start.line, launch.anchor.start.column) == (3, 5)  # at build:


def test_image_cmd_with_arguments_is_the_dockerfiles_launch(tmp_path: pathlib.Path) -> None:
    text = "services:\n  api:\n    build: .\n"
    found = lint_compose(tmp_path, text, {"Dockerfile": (
        "FROM vllm/vllm-openai:v0.9.2\nCMD [\"--model\", \"m\"]\n")})
    # The service runs that CMD: its launch holds none of the Dockerfile's words (checked
    # there), only the service's facts (tests/extract/test_r4_image_command.py).
    (launch,) = found
    assert launch.args == () and not launch.args_complete


def test_unreadable_dockerfile_gives_no_target_and_no_guess(tmp_path: pathlib.Path) -> None:
    text = (
        "services:\n"
        "  missing:\n    build: ./nowhere\n    command: --model m\n"
        "  outside:\n    build: ../elsewhere\n    command: --model m\n"
        "  named:\n    image: vllm-cpu-env:latest\n    build: ./nowhere\n"
        "    command: vllm serve m\n"
    )
    found = lint_compose(tmp_path, text, {})
    (launch,) = found  # only the command that starts vLLM itself
    assert args(launch) == ["m"]
    assert launch.target is None  # the image: is the built image's name, not a vLLM tag


def test_symlinked_dockerfile_out_of_the_repository_is_not_read(tmp_path: pathlib.Path) -> None:
    repository = tmp_path / "repo"
    (repository / ".git").mkdir(parents=True)
    outside = tmp_path / "Dockerfile.outside"
    outside.write_text("FROM vllm/vllm-openai:v0.9.2\n")
    os.symlink(outside, repository / "Dockerfile")
    text = "services:\n  api:\n    build: .\n    command: --model m\n"
    path = repository / "compose.yaml"
    path.write_text(text)
    assert compose.extract(str(path), text) == []


def test_fifo_or_oversized_dockerfile_is_not_read(tmp_path: pathlib.Path) -> None:
    os.mkfifo(tmp_path / "Dockerfile")  # a read would block the run
    (tmp_path / "big").mkdir()
    (tmp_path / "big" / "Dockerfile").write_text(
        "FROM vllm/vllm-openai:v0.9.2\n" + "#" * compose.MAX_DOCKERFILE_SIZE + "\n")
    text = (
        "services:\n  a:\n    build: .\n    command: --model m\n"
        "  b:\n    build: ./big\n    command: --model m\n"
    )
    assert lint_compose(tmp_path, text, {}) == []


def test_pull_policy_always_runs_the_pulled_image(tmp_path: pathlib.Path) -> None:
    text = (
        "services:\n  api:\n    image: vllm/vllm-openai:v0.10.1\n    pull_policy: always\n"
        "    build: .\n    command: --model m\n"
    )
    (launch,) = lint_compose(tmp_path, text, {"Dockerfile": "FROM python:3.12\n"})
    assert launch.target == "0.10.1"
    assert launch.image == "vllm/vllm-openai:v0.10.1"


def test_shell_form_entrypoint_ignores_the_command(tmp_path: pathlib.Path) -> None:
    text = "services:\n  api:\n    build: .\n    command: --model m\n"
    found = lint_compose(tmp_path, text, {"Dockerfile": (
        "FROM vllm/vllm-openai:v0.9.2\nENTRYPOINT /start.sh\n")})
    assert found == []


def test_many_builds_are_capped(tmp_path: pathlib.Path) -> None:
    services = "".join(
        f"  s{n}:\n    build:\n      context: .\n      args: {{N: '{n}'}}\n"
        f"    command: --model m\n" for n in range(compose.MAX_DOCKERFILES + 4))
    found = lint_compose(tmp_path, "services:\n" + services,
                         {"Dockerfile": "FROM vllm/vllm-openai:v0.9.2\n"})
    assert len(found) == compose.MAX_DOCKERFILES


@pytest.mark.parametrize(("run", "release"), [
    ("RUN pip install vllm==0.9.2", "==0.9.2"),
    ("RUN pip3 install --no-cache-dir \"vllm==0.9.2\"", "==0.9.2"),
    ("RUN uv pip install --system vllm==0.10.1 lmcache", "==0.10.1"),
    ("RUN python3 -m pip install 'vllm[audio]==0.9.2'", "==0.9.2"),
    # As vLLM's Docker guide adds optional dependencies to its image.
    ("RUN uv pip install --system vllm[audio,video]==0.8.2", "==0.8.2"),
    ("RUN pip install -r requirements.txt && pip install 'vllm>=0.9'", ">=0.9"),
    # Unquoted, ``>`` is a redirection: the shell installs vllm unpinned into a file "=0.9".
    ("RUN pip install vllm>=0.9", None),
    ("ARG VLLM_VERSION=0.9.2\nRUN pip install vllm==${VLLM_VERSION}", "==0.9.2"),
    ("ENV V=0.8.5\nRUN pip install vllm==$V", "==0.8.5"),
    ("RUN pip install https://example.com/vllm-0.6.3+cu118-cp38-abi3-manylinux1_x86_64.whl",
     "==0.6.3"),
    ("RUN [\"pip\", \"install\", \"vllm==0.9.2\"]", "==0.9.2"),
    ("RUN <<EOF\nset -e\npip install vllm==0.9.1\nEOF", "==0.9.1"),
    ("RUN pip install vllm", None),
    ("RUN pip install vllm==${UNSET}", None),
    ("RUN pip install vllm-ascend==0.9.1", None),
])
def test_install_pins_on_a_python_base(run: str, release: str | None) -> None:
    built = dockerfile.built_image(f"FROM python:3.12\n{run}\n")
    assert built is not None
    assert built.release == release


def test_unpinned_install_keeps_the_base_release_unless_it_upgrades() -> None:
    base = "FROM vllm/vllm-openai:v0.9.2\n"
    kept = dockerfile.built_image(base + "RUN pip install vllm lmcache\n")
    upgraded = dockerfile.built_image(base + "RUN pip install -U vllm\n")
    assert kept is not None and kept.release == "0.9.2"
    assert upgraded is not None and upgraded.release is None


def test_dockerfile_cmd_launch_takes_the_install_pin() -> None:
    text = (
        "FROM python:3.12\nRUN pip install vllm==0.9.2\n"
        "CMD [\"vllm\", \"serve\", \"m\"]\n"
    )
    (launch,) = dockerfile.extract("Dockerfile", text)
    assert launch.target == "==0.9.2"


def test_later_install_replaces_the_base_image_release() -> None:
    text = "FROM vllm/vllm-openai:v0.9.1\nRUN pip install vllm==0.10.1\nCMD [\"--model\", \"m\"]\n"
    (launch,) = dockerfile.extract("Dockerfile", text)
    assert launch.target == "==0.10.1"


def test_build_target_selects_a_stage() -> None:
    text = (
        "FROM vllm/vllm-openai:v0.9.1 AS old\n"
        "FROM vllm/vllm-openai:v0.10.1 AS new\n"
    )
    old = dockerfile.built_image(text, target="old")
    new = dockerfile.built_image(text)
    assert old is not None and old.release == "0.9.1"
    assert new is not None and new.release == "0.10.1"
    assert dockerfile.built_image(text, target="absent") is None


def test_compose_in_a_markdown_fence_reads_no_dockerfile(tmp_path: pathlib.Path) -> None:
    from vlint.extract import markdown

    (tmp_path / "Dockerfile").write_text("FROM vllm/vllm-openai:v0.9.2\n")
    text = ("```yaml\nservices:\n  vllm:\n    build: .\n    command: --model m\n```\n")
    path = tmp_path / "README.md"
    path.write_text(text)
    assert markdown.extract(str(path), text) == []


def test_services_naming_a_built_image_run_what_its_dockerfile_builds(
    tmp_path: pathlib.Path,
) -> None:
    text = (
        "services:\n"
        "  first:\n"
        "    image: ${IMAGE:-team-vllm:local}\n"
        "    build:\n"
        "      context: ./vllm\n"
        "    command: [\"--model\", \"a\"]\n"
        "  second:\n"
        "    image: ${IMAGE:-team-vllm:local}\n"
        "    command: [\"--model\", \"b\"]\n"
        "  other:\n"
        "    image: team-other:local\n"
        "    command: [\"--model\", \"c\"]\n"
    )
    found = lint_compose(tmp_path, text, {"vllm/Dockerfile": "FROM vllm/vllm-openai:v0.10.1\n"})
    assert [args(launch) for launch in found] == [["--model", "a"], ["--model", "b"]]
    assert [launch.target for launch in found] == ["0.10.1", "0.10.1"]
    second = found[1]
    assert second.image_span is not None and second.image_span.start.line == 8
    assert second.anchor.start.line == 9


def test_a_service_that_pulls_a_built_name_is_not_the_built_image(tmp_path: pathlib.Path) -> None:
    text = (
        "services:\n"
        "  first:\n"
        "    image: team-server:local\n"
        "    build: ./vllm\n"
        "    command: [\"--model\", \"a\"]\n"
        "  second:\n"
        "    image: team-server:local\n"
        "    pull_policy: always\n"
        "    command: [\"--model\", \"b\"]\n"
    )
    found = lint_compose(tmp_path, text, {"vllm/Dockerfile": "FROM vllm/vllm-openai:v0.10.1\n"})
    assert [args(launch) for launch in found] == [["--model", "a"]]
