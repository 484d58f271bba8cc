"""Container runs read as launches: docker/podman/nerdctl run, kubectl run, apptainer and
singularity exec|run, their options as the Deployment facet, with exact spans."""

from __future__ import annotations

import os
import pathlib

import pytest

from vlint.extract import markdown, shell
from vlint.extract.container import MAX_ENV_FILE_VARIABLES
from vlint.model import Invocation, Pos, Span, Token
from vlint.syntax import container_cli


def launches(text: str, tmp_path: pathlib.Path | None = None) -> list[Invocation]:
    path = str((tmp_path or pathlib.Path("/nonexistent")) / "run.sh")
    if tmp_path is not None:
        pathlib.Path(path).write_text(text)
    return shell.extract(path, text)


def one(text: str, tmp_path: pathlib.Path | None = None) -> Invocation:
    found = launches(text, tmp_path)
    assert len(found) == 1, found
    return found[0]


def where(text: str, needle: str, occurrence: int = 0) -> Span:
    """The span of the ``occurrence``-th ``needle`` in ``text`` (1-based lines and columns)."""
    index = -1
    for _ in range(occurrence + 1):
        index = text.index(needle, index + 1)
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return Span(Pos(line, column), Pos(line, column + len(needle)))


def texts(invocation: Invocation) -> list[str]:
    return [token.text for token in invocation.args]


VLLM_DOCS = (
    "docker run --runtime nvidia --gpus all \\\n"
    "    -v ~/.cache/huggingface:/root/.cache/huggingface \\\n"
    '    --env "HF_TOKEN=$HF_TOKEN" \\\n'
    "    -p 8000:8000 \\\n"
    "    --ipc=host \\\n"
    "    vllm/vllm-openai:v0.32.0 \\\n"
    "    --model mistralai/Mistral-7B-v0.1\n"
)


def test_the_form_of_vllms_docker_guide() -> None:
    invocation = one(VLLM_DOCS)
    facts = invocation.deployment
    assert texts(invocation) == ["--model", "mistralai/Mistral-7B-v0.1"]
    assert invocation.args[0].span == where(VLLM_DOCS, "--model")
    assert invocation.kind == "shell" and invocation.origin == ("shell",)
    assert invocation.target == "0.32.0" and invocation.entry == "serve"
    assert invocation.image == "vllm/vllm-openai:v0.32.0"
    assert invocation.image_span == where(VLLM_DOCS, "vllm/vllm-openai:v0.32.0")
    assert facts.gpus is not None and facts.gpus.value == "all"
    assert facts.gpus.span == where(VLLM_DOCS, "all")
    assert facts.ipc is not None and facts.ipc.value == "host"
    assert facts.ipc.span == where(VLLM_DOCS, "host")
    token = facts.env["HF_TOKEN"]
    assert token.name_span == where(VLLM_DOCS, "HF_TOKEN")
    assert token.value.text == "$HF_TOKEN" and not token.value.literal
    assert token.value.sub_span(0) == where(VLLM_DOCS, "$HF_TOKEN")
    assert facts.env_complete
    (port,) = facts.ports
    assert port.container.value == 8000
    assert port.container.span == where(VLLM_DOCS, "8000", 1)
    assert port.published is not None and port.published.value == "8000"
    assert port.published.span == where(VLLM_DOCS, "8000", 0)
    (volume,) = facts.volumes
    assert volume.target.value == "/root/.cache/huggingface"
    assert volume.source is not None and volume.source.value == "~/.cache/huggingface"
    assert volume.source.span == where(VLLM_DOCS, "~/.cache/huggingface")
    assert facts.container is not None and facts.container.value == "docker"
    assert facts.container.span == where(VLLM_DOCS, "docker")


def test_an_old_release_image_runs_the_api_server() -> None:
    # The 0.9.x image's ENTRYPOINT is the OpenAI API server module (generated catalog).
    assert one("docker run vllm/vllm-openai:v0.9.1 --model m\n").entry == "api_server"


def test_podman_with_a_cdi_device_and_combined_flags() -> None:
    text = ("podman run -it --rm --device nvidia.com/gpu=all -e VLLM_LOGGING_LEVEL=DEBUG "
            "--shm-size 10g docker.io/vllm/vllm-openai:latest --model m\n")
    invocation = one(text)
    facts = invocation.deployment
    assert texts(invocation) == ["--model", "m"]
    assert facts.gpus is not None and facts.gpus.value == "all"
    assert facts.gpus.span == where(text, "nvidia.com/gpu=all")
    assert facts.shm_size is not None and facts.shm_size.value == 10 * 2**30
    assert facts.shm_size.span == where(text, "10g")
    variable = facts.env["VLLM_LOGGING_LEVEL"]
    assert variable.value.text == "DEBUG" and variable.value.sub_span(0) == where(text, "DEBUG")
    assert invocation.target == "latest"
    assert facts.container is not None and facts.container.value == "podman"


@pytest.mark.parametrize("options", [
    "-itd", "-dit", "-d -i -t", "-dp 8000:8000", "-p8000:8000", "-p=8000:8000",
    "--publish=8000:8000", "--name=vllm", "--name vllm", "--rm=false", "-e=A=1", "-eA=1",
    "--", "--gpus=all --", "-it --",
])
def test_options_before_the_image_as_pflag_reads_them(options: str) -> None:
    invocation = one(f"docker run {options} vllm/vllm-openai:v0.32.0 --model m\n")
    assert texts(invocation) == ["--model", "m"]


def test_a_value_attached_to_a_short_option_keeps_its_place() -> None:
    text = "docker run -dp8000:8000 -eA=1 vllm/vllm-openai:v0.32.0\n"
    facts = one(text).deployment
    assert facts.ports[0].container.span == where(text, "8000", 1)
    assert facts.env["A"].name_span == where(text, "A")
    assert facts.env["A"].value.sub_span(0) == where(text, "1", 0)


@pytest.mark.parametrize("command", [
    "docker --context remote run",
    "docker -H tcp://gpu-host:2375 --tls run",
    "docker container run",
    "docker --debug container run",
    "podman --remote run",
    "podman --connection gpu -r run",
    "nerdctl --namespace k8s.io run",
    "nerdctl -n default run --cosign-key k.pub",
    "/usr/bin/docker run",
])
def test_global_options_and_subcommand_spellings(command: str) -> None:
    invocation = one(f"{command} --gpus all vllm/vllm-openai:v0.32.0 --model m\n")
    assert texts(invocation) == ["--model", "m"]
    assert invocation.deployment.gpus is not None


@pytest.mark.parametrize("text", [
    "docker run --no-such-option x vllm/vllm-openai:v0.32.0 --model m\n",
    "docker --no-such-global run vllm/vllm-openai:v0.32.0 --model m\n",
    "docker ps vllm/vllm-openai:v0.32.0\n",
    "docker pull vllm/vllm-openai:v0.32.0\n",
    "docker run --rm\n",
    "docker run --name\n",
    "docker run ubuntu:22.04 echo vllm serve\n",
    "docker\n",
])
def test_no_launch_where_the_image_cannot_be_found_or_nothing_runs_vllm(text: str) -> None:
    assert launches(text) == []


def test_a_server_image_alone_is_a_launch_with_the_images_defaults() -> None:
    text = "docker run --gpus all vllm/vllm-openai:v0.32.0\n"
    invocation = one(text)
    assert invocation.args == ()
    assert invocation.anchor == where(text, "vllm/vllm-openai:v0.32.0")


def test_entrypoint_replaces_the_images() -> None:
    text = "docker run --entrypoint vllm vllm/vllm-openai:v0.32.0 serve m --port 8000\n"
    invocation = one(text)
    assert texts(invocation) == ["m", "--port", "8000"]
    assert invocation.entry == "serve" and invocation.target == "0.32.0"
    assert invocation.repeated_entry == ()
    assert invocation.deployment.image is not None
    # An entry point that starts something else is not a launch.
    assert launches("docker run --entrypoint bash vllm/vllm-openai:v0.32.0 -c ls\n") == []


def test_an_empty_entrypoint_runs_the_words_after_the_image() -> None:
    invocation = one('docker run --entrypoint "" vllm/vllm-openai:v0.32.0 vllm serve m\n')
    assert texts(invocation) == ["m"]


def test_vllm_serve_repeated_after_a_server_image_is_kept_apart() -> None:
    invocation = one("docker run vllm/vllm-openai:v0.32.0 vllm serve m\n")
    assert [t.text for t in invocation.repeated_entry] == ["vllm", "serve"]
    assert texts(invocation) == ["m"]


def test_another_image_runs_its_command() -> None:
    text = "docker run --gpus 2 python:3.11 vllm serve m --port 8000\n"
    invocation = one(text)
    assert texts(invocation) == ["m", "--port", "8000"]
    assert invocation.image == "python:3.11" and invocation.target is None
    assert invocation.deployment.gpus is not None and invocation.deployment.gpus.value == 2
    assert invocation.deployment.container is not None


def test_a_shell_script_inside_the_container_keeps_its_spans_and_the_images_facts() -> None:
    text = 'docker run --ipc=host my/image:1 bash -c "vllm serve m --port 8000"\n'
    invocation = one(text)
    assert texts(invocation) == ["m", "--port", "8000"]
    assert invocation.args[1].span == where(text, "--port")
    assert invocation.image == "my/image:1"
    assert invocation.deployment.ipc is not None
    # Its words are the script's, not the container tool's: no container option goes there.
    assert invocation.deployment.container is None


def test_the_host_environment_of_the_docker_command_is_not_the_containers() -> None:
    invocation = one("HF_TOKEN=x CUDA_VISIBLE_DEVICES=0 docker run -e A=1 "
                     "vllm/vllm-openai:v0.32.0\n")
    assert set(invocation.deployment.env) == {"A"}


def test_wrappers_before_the_container_tool() -> None:
    for prefix in ("sudo", "sudo -E", "time", "nohup"):
        assert texts(one(f"{prefix} docker run vllm/vllm-openai:v0.32.0 --model m\n")) == [
            "--model", "m"]


def test_a_host_variable_copied_by_name_makes_the_environment_incomplete() -> None:
    invocation = one("docker run -e HF_TOKEN vllm/vllm-openai:v0.32.0\n")
    assert invocation.deployment.env == {}
    assert not invocation.deployment.env_complete


@pytest.mark.parametrize(("written", "count"), [
    ("all", "all"), ("2", 2), ("count=4", 4), ("'\"device=0,1\"'", 2), ("device=3", 1),
    ("$GPUS", None), ("'\"device=0,1,2\",capabilities=compute'", 3),
    ("'\"capabilities=compute,utility\",count=2'", 2), ("count=all", "all"),
])
def test_gpu_requests(written: str, count: object) -> None:
    gpus = one(f"docker run --gpus {written} vllm/vllm-openai:v0.32.0\n").deployment.gpus
    assert gpus is not None and gpus.value == count


def test_a_cdi_device_for_one_gpu_and_a_device_that_is_no_gpu() -> None:
    one_gpu = one("podman run --device nvidia.com/gpu=0 vllm/vllm-openai:v0.32.0\n")
    assert one_gpu.deployment.gpus is not None and one_gpu.deployment.gpus.value == 1
    other = one("docker run --device /dev/fuse vllm/vllm-openai:v0.32.0\n")
    assert other.deployment.gpus is None


def test_mount_option() -> None:
    text = ("docker run --mount type=bind,source=/models,target=/root/models "
            "--mount type=tmpfs,dst=/dev/shm vllm/vllm-openai:v0.32.0\n")
    bind, memory = one(text).deployment.volumes
    assert bind.target.value == "/root/models" and bind.target.span == where(text, "/root/models")
    assert bind.source is not None and bind.source.value == "/models"
    assert memory.memory and memory.target.value == "/dev/shm"


def test_options_in_an_expansion_before_a_server_image() -> None:
    invocation = one("docker run $DOCKER_OPTS vllm/vllm-openai:v0.32.0 --model m\n")
    assert texts(invocation) == ["--model", "m"]
    assert invocation.target == "0.32.0"
    assert not invocation.deployment.env_complete


@pytest.mark.parametrize("image", ["$IMAGE", "${IMAGE}", '"$IMAGE"'])
def test_an_image_in_a_variable_runs_its_command(image: str) -> None:
    invocation = one(f"docker run --rm {image} vllm serve m\n")
    assert texts(invocation) == ["m"] and invocation.target is None
    assert invocation.image == image.strip('"') and invocation.repeated_entry == ()
    # Its arguments alone cannot be known to be vLLM's.
    assert launches(f"docker run --rm {image} --model m\n") == []


# -- --env-file ---------------------------------------------------------------------------------


def test_env_file_read_beside_the_script(tmp_path: pathlib.Path) -> None:
    (tmp_path / "vllm.env").write_text("# tokens\n  HF_TOKEN=hf_x 'quoted'\nVLLM_PORT=8000\r\n")
    text = "docker run --env-file vllm.env vllm/vllm-openai:v0.32.0\n"
    facts = one(text, tmp_path).deployment
    assert facts.env["HF_TOKEN"].value.text == "hf_x 'quoted'"  # verbatim, as docker reads it
    assert facts.env["VLLM_PORT"].value.text == "8000"
    assert facts.env["HF_TOKEN"].value.span.start == where(text, "vllm.env").start
    assert facts.env_complete


@pytest.mark.parametrize("options", ["--env-file a.env -e A=flag", "-e A=flag --env-file a.env"])
def test_env_given_with_e_wins_over_an_env_file(tmp_path: pathlib.Path, options: str) -> None:
    (tmp_path / "a.env").write_text("A=file\nB=file\n")
    facts = one(f"docker run {options} vllm/vllm-openai:v0.32.0\n", tmp_path).deployment
    assert facts.env["A"].value.text == "flag" and facts.env["B"].value.text == "file"


@pytest.mark.parametrize("content", [
    "HOST_VALUE\n",          # copies the host's value
    "BAD NAME=1\n",          # docker refuses the file
    b"A=\xff\n",             # not UTF-8
])
def test_env_file_that_cannot_be_known_makes_the_environment_incomplete(
    tmp_path: pathlib.Path, content: str | bytes
) -> None:
    target = tmp_path / "x.env"
    if isinstance(content, bytes):
        target.write_bytes(content)
    else:
        target.write_text(content)
    facts = one("docker run --env-file x.env vllm/vllm-openai:v0.32.0\n", tmp_path).deployment
    assert not facts.env_complete


def test_env_file_missing_or_outside_the_linted_root(tmp_path: pathlib.Path) -> None:
    inside = tmp_path / "repo"
    inside.mkdir()
    (inside / ".git").mkdir()
    (tmp_path / "secret.env").write_text("TOKEN=outside\n")
    os.symlink(tmp_path / "secret.env", inside / "link.env")
    for name in ("missing.env", "link.env", "../secret.env", "$ENV_FILE"):
        facts = one(f"docker run --env-file {name} vllm/vllm-openai:v0.32.0\n",
                    inside).deployment
        assert "TOKEN" not in facts.env and not facts.env_complete, name


def test_env_file_is_bounded_and_a_fifo_is_not_read(tmp_path: pathlib.Path) -> None:
    lines = "".join(f"V{i}=x\n" for i in range(MAX_ENV_FILE_VARIABLES + 10))
    (tmp_path / "many.env").write_text(lines)
    facts = one("docker run --env-file many.env vllm/vllm-openai:v0.32.0\n", tmp_path).deployment
    assert len(facts.env) == MAX_ENV_FILE_VARIABLES and not facts.env_complete
    os.mkfifo(tmp_path / "pipe.env")
    facts = one("docker run --env-file pipe.env vllm/vllm-openai:v0.32.0\n", tmp_path).deployment
    assert facts.env == {} and not facts.env_complete


# -- kubectl run ----------------------------------------------------------------------------------


def test_kubectl_run_arguments_after_the_dash_dash() -> None:
    text = ("kubectl -n serving run vllm --image=vllm/vllm-openai:v0.32.0 --port=8000 "
            '--env="HF_TOKEN=abc" --restart=Never -- --model m --max-num-seqs 8\n')
    invocation = one(text)
    facts = invocation.deployment
    assert texts(invocation) == ["--model", "m", "--max-num-seqs", "8"]
    assert invocation.image_span == where(text, "vllm/vllm-openai:v0.32.0")
    assert invocation.target == "0.32.0"
    assert facts.ports[0].container.value == 8000
    assert facts.env["HF_TOKEN"].value.text == "abc"
    assert facts.env["HF_TOKEN"].name_span == where(text, "HF_TOKEN")
    assert facts.container is not None and facts.container.value == "kubectl"


def test_kubectl_overrides_may_set_the_environment() -> None:
    invocation = one("kubectl run vllm --image=vllm/vllm-openai:v0.32.0 "
                     """--overrides='{"spec": {}}' -- --model m\n""")
    assert not invocation.deployment.env_complete


def test_kubectl_run_command() -> None:
    invocation = one("kubectl run vllm --image python:3.11 --command -- vllm serve m\n")
    assert texts(invocation) == ["m"] and invocation.image == "python:3.11"


@pytest.mark.parametrize("text", [
    "kubectl run --image=vllm/vllm-openai:v0.32.0\n",              # no name
    "kubectl run vllm -- --model m\n",                             # no image
    "kubectl run vllm --image=vllm/vllm-openai:v0.32.0 --model m\n",  # not kubectl's option
    "kubectl get pods\n",
])
def test_kubectl_forms_that_are_no_launch(text: str) -> None:
    assert launches(text) == []


# -- apptainer, singularity ---------------------------------------------------------------------


def test_apptainer_exec_runs_the_command_in_a_docker_image() -> None:
    text = ("apptainer exec --nv --bind /data:/data --env VLLM_PORT=8000 "
            "docker://vllm/vllm-openai:v0.32.0 vllm serve m\n")
    invocation = one(text)
    facts = invocation.deployment
    assert texts(invocation) == ["m"]
    assert invocation.target == "0.32.0"
    assert invocation.image_span == where(text, "vllm/vllm-openai:v0.32.0")
    assert facts.gpus is not None and facts.gpus.value == "all"
    assert facts.gpus.span == where(text, "--nv")
    assert facts.volumes[0].target.value == "/data"
    assert facts.env["VLLM_PORT"].value.text == "8000"
    assert not facts.env_complete  # the host's environment passes in


def test_apptainer_env_is_a_comma_separated_map() -> None:
    text = "apptainer exec --env A=1,B=two docker://vllm/vllm-openai:v0.32.0 vllm serve m\n"
    env = one(text).deployment.env
    assert env["A"].value.text == "1" and env["B"].value.text == "two"
    assert env["B"].name_span == where(text, "B")
    assert env["B"].value.sub_span(0) == where(text, "two")
    docker = one("docker run -e A=1,B=2 vllm/vllm-openai:v0.32.0\n").deployment.env
    assert docker["A"].value.text == "1,B=2"


def test_singularity_run_gives_a_server_images_arguments() -> None:
    invocation = one("singularity run --nvccli docker://vllm/vllm-openai:v0.32.0 --model m\n")
    assert texts(invocation) == ["--model", "m"]
    assert invocation.deployment.container is not None
    assert invocation.deployment.container.value == "singularity"


def test_a_sif_file_gives_no_target() -> None:
    invocation = one("apptainer exec --nv vllm.sif vllm serve m\n")
    assert invocation.target is None and invocation.image is None
    # What a local .sif file's runscript starts cannot be known from the file: the words after
    # it are a launch only when its name says vLLM and every option is vLLM's.
    assert launches("apptainer run --nv tools.sif --model m\n") == []
    (named,) = launches("apptainer run --nv vllm.sif --model m\n")
    assert named.target is None and texts(named) == ["--model", "m"]


def test_a_command_written_after_a_local_image_that_run_starts_is_a_launch() -> None:
    text = "srun singularity run \\\n    $SIF \\\n    vllm serve $MODEL \\\n    --max-model-len 4096\n"
    invocation = one(text)
    assert texts(invocation) == ["$MODEL", "--max-model-len", "4096"]
    assert invocation.target is None and invocation.image is None
    assert invocation.args[1].span == where(text, "--max-model-len")


# -- nesting -------------------------------------------------------------------------------------


def test_a_docker_run_in_a_markdown_fence() -> None:
    text = (
        "# Serve\n"
        "\n"
        "```bash\n"
        "docker run --gpus all -p 8000:8000 \\\n"
        "  vllm/vllm-openai:v0.32.0 --model m --privileged\n"
        "```\n"
    )
    (invocation,) = markdown.extract("README.md", text)
    assert invocation.kind == "markdown"
    assert texts(invocation) == ["--model", "m", "--privileged"]
    assert invocation.args[2].span == where(text, "--privileged")
    assert invocation.image_span == where(text, "vllm/vllm-openai:v0.32.0")
    assert invocation.deployment.ports[0].container.span == where(text, "8000", 1)


# -- the option tables -----------------------------------------------------------------------


def _tokens(*texts: str) -> list[Token]:
    return [Token(t, [Pos(1, i + 1) for i in range(len(t) + 1)]) for t in texts]


def test_parse_stops_at_the_first_word_that_is_no_option() -> None:
    parsed = container_cli.parse(_tokens("-it", "--rm", "img", "--gpus"), 0,
                                 container_cli.DOCKER_RUN)
    assert parsed is not None and parsed.stop == 2
    assert [o.name for o in parsed.options] == ["--interactive", "--tty", "--rm"]


def test_kubectl_reads_options_anywhere_before_the_dash_dash() -> None:
    parsed = container_cli.parse(_tokens("name", "--image=x", "--", "--model"), 0,
                                 container_cli.KUBECTL_RUN, interspersed=True)
    assert parsed is not None and parsed.positionals == (0,) and parsed.dash == 3


def test_optional_values_take_only_an_attached_value() -> None:
    parsed = container_cli.parse(_tokens("--dry-run", "name"), 0, container_cli.KUBECTL_RUN,
                                 interspersed=True)
    assert parsed is not None and parsed.positionals == (1,)


@pytest.mark.parametrize(("written", "known"), [
    ("--privileged", True), ("-p", True), ("-it", True), ("-dp", True), ("--port", False),
    ("-x", False), ("-iz", False), ("--model", False),
])
def test_is_option(written: str, known: bool) -> None:
    assert container_cli.is_option(container_cli.DOCKER_RUN, written) is known


def test_an_image_variable_named_for_vllm_with_unresolved_arguments_is_a_launch() -> None:
    line = "docker run -d --net=host $VLLM_IMAGE $VLLM_ARGS"
    [launch] = launches(line + "\n")
    assert [(t.text, t.literal) for t in launch.args] == [("$VLLM_ARGS", False)]
    assert launch.target is None
    # An image variable that does not say vLLM, or a written option no vLLM release has,
    # is not read as vLLM's server.
    assert launches("docker run $IMAGE $ARGS\n") == []
    assert launches("docker run $VLLM_IMAGE --concurrency 8 $ARGS\n") == []


@pytest.mark.parametrize("image", ["intel/vllm:latest", "rocm/vllm:latest",
                                   "nvcr.io/nvidia/vllm:25.08-py3"])
def test_a_vendors_vllm_image_runs_the_command_it_is_given(image: str) -> None:
    # Built on its own entry point (a shell, nvidia_entrypoint.sh), not vLLM's Dockerfile's:
    # `vllm serve m` there is a command, not a repeated entry point (no VL401).
    [launch] = launches(f"docker run --rm {image} vllm serve org/m --port 1\n")
    assert launch.repeated_entry == ()
    assert [t.text for t in launch.args] == ["org/m", "--port", "1"]
    # Given only vLLM's options, such an image still runs the server with them.
    [server] = launches(f"docker run --rm {image} --model org/m --port 1\n")
    assert [t.text for t in server.args] == ["--model", "org/m", "--port", "1"]
