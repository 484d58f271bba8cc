"""Wrappers in front of a launch (``vlint.extract.wrappers``): the launch is found, its anchor and
arguments sit exactly where they are written, and the environment and GPUs the wrappers give it
are kept."""

from __future__ import annotations

import pytest

from vlint.extract.dockerfile import extract as dockerfile
from vlint.extract.shell import extract
from vlint.model import Invocation, Pos, Span
from tests._support.invocations import columns, only

TAIL = " m --port 1"


WRAPPED = [
    # uv (crates/uv-cli RunArgs / ToolRunArgs)
    "uv run vllm serve",
    "uv run --with vllm --python 3.12 --frozen vllm serve",
    "uv run -w vllm -p3.12 --no-sync vllm serve",
    "uv --directory /srv/app run --extra gpu --env-file .env -- vllm serve",
    "uv run --with=vllm==0.9.2 --index-url https://pypi.example/simple vllm serve",
    "uv tool run --from vllm vllm serve",
    "uvx --from vllm --python 3.12 vllm serve",
    "uvx --with flashinfer-python vllm serve",
    # conda, mamba, micromamba (conda/cli/main_run.py, micromamba/src/run.cpp)
    "conda run -n vllm-env --no-capture-output vllm serve",
    "conda run -p /opt/envs/vllm --live-stream vllm serve",
    "conda run --name=vllm -s --cwd /work -- vllm serve",
    "mamba run -n vllm vllm serve",
    "micromamba run -r /opt/mamba -n vllm -a stdout --label api vllm serve",
    # pixi, poetry, pipenv, hatch
    "pixi run -e cuda vllm serve",
    "pixi run --manifest-path ./pixi.toml --environment=cuda --frozen vllm serve",
    "poetry run vllm serve",
    "poetry -C /srv/app run vllm serve",
    "pipenv run --python 3.11 vllm serve",
    "hatch run vllm serve",
    "hatch run serve:vllm serve",
    "hatch -e gpu run +py=3.11 vllm serve",
    # coreutils and util-linux
    "timeout 3600 vllm serve",
    "timeout -s KILL --foreground 1h vllm serve",
    "timeout --kill-after=30s 2h vllm serve",
    "nice vllm serve",
    "nice -n 10 vllm serve",
    "nice -n10 vllm serve",
    "nice --adjustment=5 vllm serve",
    "nice -5 vllm serve",
    "taskset -c 0-15 vllm serve",
    "taskset 0xffff vllm serve",
    "taskset --cpu-list 0,2,4 vllm serve",
    "stdbuf -oL vllm serve",
    "stdbuf -o L -e L vllm serve",
    "stdbuf --output=L vllm serve",
    "env vllm serve",
    # numactl (numactl.c opts[])
    "numactl --cpunodebind=0 --membind=0 vllm serve",
    "numactl -N 0 -m 0 vllm serve",
    "numactl -N0 -m0 vllm serve",
    "numactl --interleave=all vllm serve",
    "numactl --physcpubind 0-31 --localalloc -- vllm serve",
    # privilege and sessions
    "sudo -E vllm serve",
    "sudo -u vllm -g gpu vllm serve",
    "exec nohup setsid vllm serve",
    "exec -a vllm-api vllm serve",
    # job launchers
    "ray job submit --address http://head:8265 --working-dir . -- vllm serve",
    "ray job submit --runtime-env-json '{\"pip\": [\"vllm\"]}' --no-wait -- vllm serve",
    "srun -N 1 -n 1 --gpus 4 vllm serve",
    "srun --ntasks=1 --container-image=vllm/vllm-openai:v0.9.2 vllm serve",
    "mpirun -np 2 --mca btl tcp,self vllm serve",
    # an unknown wrapper ending its options with `--`, and chains
    "tini -- vllm serve",
    "my-launcher --retries 3 --log /tmp/x -- vllm serve",
    "tini -s -- dumb-init -- vllm serve",
    "exec env A=1 nohup numactl -N 0 taskset -c 0-7 timeout 1d srun -n 1 vllm serve",
    # a running container or pod (docker/podman/nerdctl exec, kubectl exec)
    "docker exec -it vllm-box vllm serve",
    "docker -H tcp://gpu01:2375 exec -d -u 1000 -w /srv box vllm serve",
    "docker container exec --env-file .env box vllm serve",
    "podman exec -e HF_HOME=/data box vllm serve",
    "kubectl exec -it pod-0 -- vllm serve",
    "kubectl -n ml exec deploy/vllm -c server -- vllm serve",
    # remote and detached sessions (OpenSSH, GNU Screen, tmux)
    "ssh gpu01 vllm serve",
    "ssh -i ~/.ssh/id -p 2222 -o StrictHostKeyChecking=no user@gpu01 vllm serve",
    "screen -dmS vllm vllm serve",
    "screen -d -m -S vllm -L -Logfile vllm.log vllm serve",
    "tmux new-session -d -s vllm vllm serve",
    # a wrapper held in a variable
    "$APPTAINER_CMD vllm serve",
    "${LAUNCHER} vllm serve",
    '"$WRAPPER" vllm serve',
    "$(command -v numactl) vllm serve",
]


@pytest.mark.parametrize("wrapped", WRAPPED)
def test_wrapped_launch_is_found_at_its_words(wrapped: str) -> None:
    line = wrapped + TAIL
    invocation = only(line)
    assert invocation.entry == "serve"
    assert invocation.anchor == columns(line, "vllm serve")
    assert [token.text for token in invocation.args] == ["m", "--port", "1"]
    end = len(line) + 1
    assert invocation.args[0].span == Span(Pos(1, end - 10), Pos(1, end - 9))
    assert invocation.args[2].span == Span(Pos(1, end - 1), Pos(1, end))


def test_uvx_package_at_version_runs_its_command() -> None:
    line = "uvx vllm@0.9.2 serve m"
    invocation = only(line)
    # The anchor runs from the command's first character to the end of `serve`.
    assert invocation.anchor == Span(Pos(1, 5), Pos(1, 21))
    assert [token.text for token in invocation.args] == ["m"]


@pytest.mark.parametrize(
    "line",
    [
        "timeout 5 curl -sf http://localhost:8000/health",
        "uv run python script.py --model m",
        "uv pip install vllm==0.9.2",
        "uv run pytest tests/test_vllm.py",
        "uvx ruff check vllm serve",
        "conda run -n vllm python train.py",
        "hatch run test:pytest -k vllm",
        "ray job submit -- python serve_vllm.py",
        "taskset -p 0xff 1234",
        "taskset -cp 0-3 $(pgrep -f 'vllm serve')",
        "command -v vllm serve",
        "echo -- vllm serve m",
        "printf '%s\\n' -- vllm serve",
        "$VLLM_CMD --port 8000",
        "nice -n 10 python -m http.server",
        "sudo systemctl restart vllm",
        "numactl --hardware",
        "screen -ls",
        "screen -r vllm",
        "screen -S vllm -X stuff 'vllm serve m\n'",
        "ssh -N -L 8000:localhost:8000 gpu01",
        "ssh gpu01 'tail -f vllm.log'",
        "tmux attach -t vllm",
        "docker exec box nvidia-smi",
        "kubectl exec pod-0 -- cat /etc/hosts",
        "kubectl logs -f vllm-0",
    ],
)
def test_no_launch_behind_these_wrappers(line: str) -> None:
    assert extract("run.sh", line + "\n") == []


def test_env_sets_unsets_and_clears() -> None:
    line = "A=1 B=2 env -u A C=3 vllm serve m"
    invocation = only(line)
    assert {name: token.text for name, token in invocation.env.items()} == {"B": "2", "C": "3"}
    assert invocation.env_names["C"] == columns(line, "C")
    assert invocation.env["C"].span == Span(Pos(1, 20), Pos(1, 21))

    cleared = only("A=1 env -i HOME=/home/vllm vllm serve m")
    assert set(cleared.env) == {"HOME"}
    assert cleared.env["HOME"].span == columns("A=1 env -i HOME=/home/vllm vllm serve m",
                                               "/home/vllm")
    # A lone `-` is env's older spelling of -i.
    assert set(only("A=1 env - B=2 vllm serve m").env) == {"B"}


def test_env_split_string_is_read_as_env_arguments() -> None:
    line = "env -S 'HF_HOME=/data vllm serve' m --port 1"
    invocation = only(line)
    assert invocation.anchor == columns(line, "vllm serve")
    assert [token.text for token in invocation.args] == ["m", "--port", "1"]
    assert invocation.env["HF_HOME"].span == columns(line, "/data")
    assert invocation.env_names["HF_HOME"] == columns(line, "HF_HOME")


def test_sudo_resets_the_environment_unless_told_to_keep_it() -> None:
    assert only("HF_TOKEN=x sudo vllm serve m").env == {}
    kept = only("HF_TOKEN=x sudo -E VLLM_LOGGING_LEVEL=DEBUG vllm serve m")
    assert set(kept.env) == {"HF_TOKEN", "VLLM_LOGGING_LEVEL"}
    listed = only("A=1 B=2 sudo --preserve-env=B vllm serve m")
    assert set(listed.env) == {"B"}


def test_micromamba_env_option_sets_a_variable() -> None:
    line = "micromamba run -n vllm -e VLLM_USE_V1=1 vllm serve m"
    invocation = only(line)
    assert invocation.env["VLLM_USE_V1"].text == "1"
    assert invocation.env_names["VLLM_USE_V1"] == columns(line, "VLLM_USE_V1")


@pytest.mark.parametrize(
    ("line", "gpus", "written"),
    [
        ("srun --gpus 4 vllm serve m", 4, "4"),
        ("srun -G 2 -N 1 vllm serve m", 2, "2"),
        ("srun -G2 vllm serve m", 2, "2"),
        ("srun --gpus=h100:8 vllm serve m", 8, "h100:8"),
        ("srun --gpus-per-node=4 -N 2 vllm serve m", 4, "4"),
        ("srun --gres=gpu:a100:2 vllm serve m", 2, "gpu:a100:2"),
        ("srun --gres=gpu vllm serve m", 1, "gpu"),
        # --gpus counts the whole job: on two nodes the GPUs of each are not known.
        ("srun -N 2 --gpus 8 vllm serve m", None, "8"),
        ("srun --gpus $NGPUS vllm serve m", None, "$NGPUS"),
    ],
)
def test_srun_gpus_fill_the_deployment(line: str, gpus: int | None, written: str) -> None:
    located = only(line).deployment.gpus
    assert located is not None
    assert located.value == gpus
    assert located.span == columns(line, written)


def test_srun_gpus_reach_a_launch_in_its_shell() -> None:
    line = "srun --gpus-per-node 2 bash -c 'vllm serve m'"
    located = only(line).deployment.gpus
    assert located is not None and located.value == 2
    assert located.span == columns(line, "2")


def test_srun_without_gpus_states_none() -> None:
    assert only("srun -n 1 vllm serve m").deployment.gpus is None


def test_exec_form_words_are_unwrapped_too() -> None:
    text = 'FROM python:3.12\nCMD ["numactl", "-N", "0", "uv", "run", "vllm", "serve", "m"]\n'
    found = dockerfile("Dockerfile", text)
    assert len(found) == 1
    # From the `v` of "vllm" to the end of "serve", the quotes between included.
    assert found[0].anchor == Span(Pos(2, 42), Pos(2, 55))
    assert [token.text for token in found[0].args] == ["m"]


def test_wrapper_chains_and_separators_stay_bounded() -> None:
    # A crafted line: every `--` is not tried, nor every wrapper of an endless chain.
    assert extract("run.sh", "x " + "-- " * 5000 + "vllm serve m\n") == []
    assert extract("run.sh", "nohup " * 5000 + "vllm serve m\n") == []
    assert len(extract("run.sh", "nohup " * 10 + "vllm serve m\n")) == 1


@pytest.mark.parametrize(
    "line",
    [
        'ssh gpu01 "vllm serve m --port 1"',
        "ssh -p 2222 user@gpu01 'HF_HOME=/data vllm serve m --port 1'",
        'tmux new-session -d -s vllm "vllm serve m --port 1"',
        "tmux new -d 'HF_HOME=/data vllm serve m --port 1'",
        'tmux send-keys -t vllm "vllm serve m --port 1" Enter',
        "tmux send-keys -t vllm:0 'vllm serve m --port 1' C-m",
    ],
)
def test_a_command_line_handed_to_a_shell_is_read_inside_its_quotes(line: str) -> None:
    invocation = only(line)
    assert invocation.anchor == columns(line, "vllm serve")
    assert [token.text for token in invocation.args] == ["m", "--port", "1"]
    port = line.index("--port 1") + len("--port ") + 1
    assert invocation.args[2].span == Span(Pos(1, port), Pos(1, port + 1))
    if "HF_HOME" in line:
        assert invocation.env["HF_HOME"].span == columns(line, "/data")


def test_exec_environment_options_reach_the_launch() -> None:
    line = "docker exec -e HF_HOME=/data --env VLLM_LOGGING_LEVEL=DEBUG box vllm serve m"
    invocation = only(line)
    assert {n: t.text for n, t in invocation.env.items()} == {
        "HF_HOME": "/data", "VLLM_LOGGING_LEVEL": "DEBUG"}
    assert invocation.env["HF_HOME"].span == columns(line, "/data")


def test_a_slurm_steps_container_image_names_the_release() -> None:
    line = "srun --container-image=vllm/vllm-openai:v0.9.2 --container-mounts=/d:/d vllm serve m"
    invocation = only(line)
    assert invocation.target == "0.9.2"
    assert invocation.image == "vllm/vllm-openai:v0.9.2"
    assert invocation.image_span == columns(line, "vllm/vllm-openai:v0.9.2")
    enroot = only("srun --container-image nvcr.io#nvidia/vllm:25.01 vllm serve m")
    assert enroot.image == "nvcr.io/nvidia/vllm:25.01"


def test_an_sbatch_wrap_string_is_the_jobs_command() -> None:
    line = 'sbatch --gres=gpu:2 -t 4:00:00 --wrap="vllm serve m --tensor-parallel-size 2"'
    invocation = only(line)
    assert invocation.anchor == columns(line, "vllm serve")
    assert [token.text for token in invocation.args] == ["m", "--tensor-parallel-size", "2"]
    assert invocation.deployment.gpus is not None and invocation.deployment.gpus.value == 2
    assert extract("run.sh", "sbatch job.sbatch\n") == []


def test_assignments_after_a_wrapper_in_a_variable_are_its_environment() -> None:
    line = 'exec "${OFFLINE[@]}" VLLM_USE_V1=1 vllm serve m --port 1'
    invocation = only(line)
    assert invocation.anchor == columns(line, "vllm serve")
    value = line.index("=1 ") + 2
    assert invocation.env["VLLM_USE_V1"].text == "1"
    assert invocation.env["VLLM_USE_V1"].span == Span(Pos(1, value), Pos(1, value + 1))
    assert invocation.env_names["VLLM_USE_V1"] == columns(line, "VLLM_USE_V1")
