"""A compose service with neither ``command:`` nor ``entrypoint:`` runs the CMD/ENTRYPOINT of the
image it builds: the service is a launch, anchored at its ``build:``, whose words stay the
Dockerfile's (checked there, once)."""

from __future__ import annotations

import pathlib

from tests._support.files import write_tree
from vlint.engine.lint import lint
from vlint.extract import compose
from vlint.model import Invocation
from vlint.settings import Settings

# The shape of a service built from a sibling folder's Dockerfile (the build context is the
# parent of the folder holding the compose file), its CMD a shell-form ``vllm serve`` that
# takes its settings from variables the service's ``environment:`` sets.
SERVICE = (
    "services:\n"
    "  engine:\n"
    "    build:\n"
    "      context: ..\n"
    "      dockerfile: docker/Dockerfile.engine\n"
    "    image: engine-local:dev\n"
    "    environment:\n"
    "      - SERVED_MODEL=Qwen/Qwen2.5-1.5B-Instruct\n"
    "      - MAX_NUM_SEQS=64\n"
    "      - VLLM_LOGGING_LEVL=DEBUG\n"
    "    ports:\n"
    "      - \"8080:8080\"\n"
    "    shm_size: 8gb\n"
)
DOCKERFILE = (
    "FROM python:3.12-slim\n"
    "RUN pip install vllm==0.10.1\n"
    "ENV MAX_NUM_SEQS=32\n"
    "CMD vllm serve ${SERVED_MODEL} \\\n"
    "    --port 8080 \\\n"
    "    --max-num-seqs ${MAX_NUM_SEQS} \\\n"
    "    --swap-space 4\n"
)


def repository(tmp_path: pathlib.Path, service: str, dockerfile: str) -> pathlib.Path:
    write_tree(tmp_path, {
        "deploy/compose.yaml": service,
        "docker/Dockerfile.engine": dockerfile,
    })
    (tmp_path / ".git").mkdir()
    return tmp_path / "deploy" / "compose.yaml"


def extract(path: pathlib.Path) -> list[Invocation]:
    return compose.extract(str(path), path.read_text())


def test_the_service_runs_its_built_images_shell_form_cmd(tmp_path: pathlib.Path) -> None:
    (launch,) = extract(repository(tmp_path, SERVICE, DOCKERFILE))
    assert launch.origin == ("compose", "dockerfile", "shell")
    assert launch.entry == "serve" and launch.target == "==0.10.1"
    # Anchored at the ``build:`` key: the words it runs are written in the Dockerfile.
    assert (launch.anchor.start.line, launch.anchor.start.column) == (3, 5)
    assert launch.args == () and not launch.args_complete
    facts = launch.deployment
    assert facts.shm_size is not None and facts.shm_size.value == 8 * 1024 ** 3
    assert [port.container.value for port in facts.ports] == [8080]
    # The variables the CMD expands are its inputs; the image's ENV may set more.
    assert set(launch.env) == {"VLLM_LOGGING_LEVL"} and launch.env_unknown


def test_an_exec_form_entrypoint_with_arguments_is_the_services_launch(
    tmp_path: pathlib.Path,
) -> None:
    dockerfile = ('FROM python:3.12-slim\nRUN pip install vllm\n'
                  'ENTRYPOINT ["vllm", "serve", "m", "--port", "8080"]\n')
    (launch,) = extract(repository(tmp_path, SERVICE, dockerfile))
    assert launch.origin == ("compose", "dockerfile") and not launch.args_complete
    assert set(launch.env) == {"SERVED_MODEL", "MAX_NUM_SEQS", "VLLM_LOGGING_LEVL"}


def test_a_server_image_with_a_cmd_of_arguments_is_the_services_launch(
    tmp_path: pathlib.Path,
) -> None:
    dockerfile = 'FROM vllm/vllm-openai:v0.10.1\nCMD ["--model", "m"]\n'
    (launch,) = extract(repository(tmp_path, SERVICE, dockerfile))
    assert launch.target == "0.10.1" and not launch.args_complete


def test_a_bare_server_image_stays_a_launch_with_nothing_unseen(tmp_path: pathlib.Path) -> None:
    (launch,) = extract(repository(tmp_path, SERVICE, "FROM vllm/vllm-openai:v0.10.1\n"))
    assert launch.origin == ("compose",) and launch.args_complete


def test_an_image_whose_command_is_not_vllm_is_no_launch(tmp_path: pathlib.Path) -> None:
    dockerfile = 'FROM python:3.12-slim\nRUN pip install vllm\nCMD ["python", "app.py"]\n'
    assert extract(repository(tmp_path, SERVICE, dockerfile)) == []


def test_an_unreadable_dockerfile_leaves_the_service_silent(tmp_path: pathlib.Path) -> None:
    path = repository(tmp_path, SERVICE, DOCKERFILE)
    (tmp_path / "docker" / "Dockerfile.engine").unlink()
    assert extract(path) == []


def test_each_finding_is_reported_once_where_it_is_written(tmp_path: pathlib.Path) -> None:
    repository(tmp_path, SERVICE, DOCKERFILE)
    report = lint([str(tmp_path)], Settings(target="0.33.0"))
    where = sorted((pathlib.Path(f.path).name, f.code, f.span.start.line)
                   for f in report.findings)
    # The CMD's words are checked once, in the Dockerfile (``--swap-space`` removed, no
    # ``--host``); the service's own variables at the compose file, where MAX_NUM_SEQS, which
    # the CMD expands, is in use and not reported.
    assert where == [
        ("Dockerfile.engine", "VL103", 7),
        ("Dockerfile.engine", "VL501", 4),
        ("compose.yaml", "VL404", 10),
    ]
    assert report.invocations == 2
