"""Wrapper commands: the words before a launch that run the rest of the line as another command
(``nohup``, ``env A=1``, ``uv run --with vllm``, ``conda run -n env``, ``srun -G 4``,
``numactl -N 0 -m 0``, ``ray job submit --``, ``$LAUNCHER`` ...).

``unwrap`` returns where the wrapped command starts, collecting on the way the environment the
wrappers set (``env NAME=VALUE``, ``micromamba run -e NAME=VALUE``) or clear (``env -i``,
``env -u NAME``, ``sudo`` without ``-E``) and the GPUs a Slurm step asks for.

Each wrapper's table lists the option strings that take a value, taken from the tool's own
sources or reference documentation (cited beside it): an option missing from a table would make
its value read as the wrapped command, and a flag wrongly listed would swallow the command.  Every
tool here stops reading options at its first operand (or at ``--``), as getopt's ``+`` mode,
clap's trailing arguments, argparse's ``REMAINDER`` and click's ``nargs=-1`` arguments do.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from vlint.extract.deployment import assignment, at, gpu_count, whole_number
from vlint.model import GpuCount, Located, Pos, Span, Token
from vlint.syntax.container_cli import DOCKER_GLOBAL, KUBECTL_RUN, NERDCTL_GLOBAL, PODMAN_GLOBAL
from vlint.syntax.shell import ShellCommand, parse_words

__all__ = ["Unwrapped", "is_expansion", "unwrap"]

# A chain of more wrappers than this (``env -S`` strings re-read included) is not read further:
# no real launch nests so deep, and a crafted line must stay linear.
_MAX_STEPS = 16


def basename(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def _options(*names: str) -> frozenset[str]:
    return frozenset(names)


@dataclass(frozen=True)
class Wrapper:
    """How one wrapper reads its words before the command it runs.

    ``subcommand`` are the words that must follow the program (``run`` of ``uv run``), after
    the program's own ``global_valued`` options; ``valued`` the option strings that take a value
    (the next word, or attached: ``--name=x``, ``-nx``); ``two_valued`` those that take two
    (``--mca btl tcp``); ``operands`` how many words follow the options before the command
    (``timeout``'s duration, ``taskset``'s CPU list); ``clusters`` whether single-dash options
    combine (``-cp``: getopt, clap, argparse) rather than being long options written with one
    dash (``-np``: Open MPI, Hydra); ``assignments`` whether ``NAME=VALUE`` words set the
    command's environment (``env``, and ``sudo`` among its options); ``no_command`` flags after
    which nothing is run (``taskset -p`` changes a running process); ``final`` options that
    end the options (``env -S STRING``: env reads the string's words in their place);
    ``lone_dash`` whether a ``-`` word is an option (``env -``, the same as ``env -i``);
    ``whole_words`` flags written as one word of several letters that are not a cluster
    (``screen -ls``); ``env_options`` options whose value is a ``NAME=VALUE`` the command gets
    (``docker exec -e``); ``after_dash`` whether the command is what follows the first ``--``
    (``kubectl exec POD -- CMD``); ``one_string`` whether a single word left for the command is a
    shell command line the tool hands to a shell (tmux's shell-command, ssh's remote command),
    whose words are read in its place; ``keys`` whether the words are keys typed into a pane
    (``tmux send-keys``), a trailing key name (``Enter``, ``C-m``) pressing return.
    """

    valued: frozenset[str] = frozenset()
    subcommand: tuple[str, ...] = ()
    global_valued: frozenset[str] = frozenset()
    two_valued: frozenset[str] = frozenset()
    operands: int = 0
    clusters: bool = True
    assignments: bool = False
    no_command: frozenset[str] = frozenset()
    final: frozenset[str] = frozenset()
    lone_dash: bool = False
    whole_words: frozenset[str] = frozenset()
    env_options: frozenset[str] = frozenset()
    after_dash: bool = False
    one_string: bool = False
    keys: bool = False


# -- the tables ------------------------------------------------------------------------------

# uv: the clap definitions in crates/uv-cli/src/lib.rs (RunArgs, ToolRunArgs, UvxArgs and the
# structs they flatten; GlobalArgs, CacheArgs and TopLevelArgs for the options every command
# takes), https://github.com/astral-sh/uv at 26a9dd4; https://docs.astral.sh/uv/reference/cli/
_UV_GLOBAL = _options(
    "--cache-dir", "--color", "--allow-insecure-host", "--trusted-host", "--directory",
    "--project", "--config-file", "--python-preference", "--python-fetch", "--preview-features",
    "--preview-feature",
)
_UV_RESOLVER = _options(
    "--index", "--default-index", "--index-url", "-i", "--extra-index-url", "--find-links",
    "-f", "--upgrade-package", "-P", "--upgrade-group", "--reinstall-package",
    "--index-strategy", "--keyring-provider", "--resolution", "--prerelease",
    "--prerelease-package", "--fork-strategy", "--config-setting", "--config-settings", "-C",
    "--config-settings-package", "--no-build-isolation-package", "--exclude-newer",
    "--exclude-newer-package", "--link-mode", "--no-sources-package", "--no-build-package",
    "--no-binary-package", "--refresh-package", "--python", "-p", "--python-platform",
    "--with", "-w", "--with-editable", "--with-requirements", "--env-file",
)
_UV_RUN = _UV_GLOBAL | _UV_RESOLVER | _options(
    "--extra", "--no-extra", "--group", "--no-group", "--only-group", "--no-editable-package",
    "--package", "--max-recursion-depth",
)
_UV_TOOL_RUN = _UV_GLOBAL | _UV_RESOLVER | _options(
    "--from", "--constraints", "--constraint", "-c", "--build-constraints",
    "--build-constraint", "-b", "--overrides", "--override", "--torch-backend",
    "--generate-shell-completion",
)
# uv run's -m/--module flag: the command is a Python module (RunArgs.module).
_UV_MODULE_FLAGS = _options("-m", "--module")

# conda run: conda/cli/main_run.py (configure_parser) and the -n/-p of
# conda/cli/helpers.py (add_parser_prefix), https://github.com/conda/conda;
# https://docs.conda.io/projects/conda/en/stable/commands/run.html
_CONDA_RUN = _options("-n", "--name", "-p", "--prefix", "--cwd")
# micromamba run (and mamba 2, built from the same sources): micromamba/src/run.cpp
# (set_run_command) and common_options.cpp (init_prefix_options),
# https://github.com/mamba-org/mamba at 03564bf
_MAMBA_RUN = _CONDA_RUN | _options(
    "-r", "--root-prefix", "--relocate-prefix", "-a", "--attach", "-e", "--env", "--label",
)
_MAMBA_ENV_OPTIONS = _options("-e", "--env")
# pixi run: crates/pixi_cli/src/run.rs (Args and the structs it flattens) and lib.rs
# (GlobalOptions), https://github.com/prefix-dev/pixi at 2b25fc7;
# https://pixi.prefix.dev/latest/reference/cli/pixi/run/
_PIXI_RUN = _options(
    "--config-file", "--manifest-path", "-m", "--workspace", "-w", "--auth-file",
    "--concurrent-downloads", "--concurrent-solves", "--pinning-strategy",
    "--pypi-keyring-provider", "--tls-root-certs", "--environment", "-e", "--platform", "-p",
    "--color",
)
# poetry: the global options, https://python-poetry.org/docs/cli/#global-options (`poetry run`
# itself has none: its words are the command's).
_POETRY_GLOBAL = _options("-C", "--directory", "-P", "--project")
# pipenv run: https://pipenv.pypa.io/en/latest/cli.html (run: --python, --pypi-mirror).
_PIPENV_RUN = _options("--python", "--pypi-mirror")
# hatch: the root options, https://hatch.pypa.io/latest/cli/reference/#hatch; `hatch run`
# takes none (src/hatch/cli/run/__init__.py): its leading `+x`/`-x` words select matrix
# variables and an `ENV:` before the first word names the environment.
_HATCH_GLOBAL = _options(
    "-e", "--env", "-p", "--project", "--data-dir", "--cache-dir", "--config",
)

# GNU coreutils, src/timeout.c ("+fk:ps:v"), src/env.c ("+a:C:iS:u:v0"), src/nice.c ("+n:"),
# src/stdbuf.c ("+i:o:e:"), https://github.com/coreutils/coreutils at aa0c0de;
# https://www.gnu.org/software/coreutils/manual/html_node/
_TIMEOUT = _options("-k", "--kill-after", "-s", "--signal")
_ENV = _options("-a", "--argv0", "-C", "--chdir", "-S", "--split-string", "-u", "--unset",
                "--env0-from")
_ENV_CLEAR = _options("-i", "--ignore-environment", "-")
_ENV_UNSET = _options("-u", "--unset")
_ENV_SPLIT = _options("-S", "--split-string")
_NICE = _options("-n", "--adjustment")
_STDBUF = _options("-i", "--input", "-o", "--output", "-e", "--error")
# util-linux schedutils/taskset.c ("+apchV": no option takes a value; the mask or CPU list is
# an operand), https://github.com/util-linux/util-linux at 39465c7
_TASKSET_PID = _options("-p", "--pid")
# numactl.c (opts[], every option with has_arg), https://github.com/numactl/numactl at 93c1fe5
_NUMACTL = _options(
    "-i", "--interleave", "-w", "--weighted-interleave", "-p", "--preferred", "-P",
    "--preferred-many", "-c", "--cpubind", "-N", "--cpunodebind", "-C", "--physcpubind", "-m",
    "--membind", "-S", "--shm", "-f", "--file", "-o", "--offset", "-L", "--length", "-M",
    "--shmmode", "-I", "--shmid",
)
# sudo: src/parse_args.c (sudo_short_opts "+Aa:BbC:c:D:Eeg:Hh::iKklNnPp:R:r:SsT:t:U:u:Vv" and
# sudo_long_opts; -h and --preserve-env take a value only when attached),
# https://github.com/sudo-project/sudo at 2e18923
_SUDO = _options(
    "-a", "--auth-type", "-C", "--close-from", "-c", "--login-class", "-D", "--chdir", "-g",
    "--group", "--host", "-p", "--prompt", "-R", "--chroot", "-r", "--role", "-T",
    "--command-timeout", "-t", "--type", "-U", "--other-user", "-u", "--user",
)
_SUDO_PRESERVE = _options("-E", "--preserve-env")
# Shell builtins and bash's `time` keyword: https://www.gnu.org/software/bash/manual/bash.html
# (exec [-cl] [-a name]; command [-pVv]: -v and -V print instead of running); GNU time's -f/-o,
# https://www.gnu.org/software/time/
_EXEC = _options("-a")
_TIME = _options("-f", "--format", "-o", "--output")
_COMMAND_PRINTS = _options("-v", "-V")
# ray job submit: python/ray/dashboard/modules/job/cli.py (submit) with cli_utils.py
# (add_common_job_options) and the logging options, https://github.com/ray-project/ray;
# https://docs.ray.io/en/latest/cluster/running-applications/job-submission/cli.html
_RAY_JOB_SUBMIT = _options(
    "--address", "--job-id", "--submission-id", "--runtime-env", "--runtime-env-json",
    "--working-dir", "--metadata-json", "--entrypoint-num-cpus", "--entrypoint-num-gpus",
    "--entrypoint-memory", "--entrypoint-resources", "--entrypoint-label-selector", "--verify",
    "--headers", "--log-style", "--log-color",
)
# srun: every option of src/common/slurm_opt.c with `has_arg = required_argument` (options with
# an optional argument take it only attached), https://github.com/SchedMD/slurm at 284c3b9;
# https://slurm.schedmd.com/srun.html; with the pyxis plugin's container options,
# https://github.com/NVIDIA/pyxis (README, "Usage").
_SRUN = _options(
    "-A", "-B", "-C", "-D", "-F", "-G", "-J", "-L", "-M", "-N", "-S", "-T", "-W", "-a", "-b",
    "-c", "-d", "-e", "-i", "-m", "-n", "-o", "-p", "-q", "-r", "-t", "-w", "-x",
    "--accel-bind", "--account", "--acctg-freq", "--argv", "--array", "--autocomplete",
    "--batch", "--bb", "--bbf", "--bcast-exclude", "--begin", "--chdir", "--cluster",
    "--cluster-constraint", "--clusters", "--comment", "--constraint", "--container",
    "--container-id", "--context", "--core-spec", "--cores-per-socket", "--cpu-bind",
    "--cpu-freq", "--cpu_bind", "--cpus-per-gpu", "--cpus-per-task", "--deadline",
    "--delay-boot", "--dependency", "--distribution", "--environment", "--epilog", "--error",
    "--exclude", "--export", "--export-file", "--extra", "--extra-node-info", "--gid",
    "--gpu-bind", "--gpu-freq", "--gpus", "--gpus-per-node", "--gpus-per-socket",
    "--gpus-per-task", "--gres", "--gres-flags", "--het-group", "--hint", "--ignore-signals",
    "--input", "--job-name", "--jobid", "--kill-on-invalid-dep", "--licenses", "--mail-type",
    "--mail-user", "--mcs-label", "--mem", "--mem-bind", "--mem-per-cpu", "--mem-per-gpu",
    "--mem-update", "--mincpus", "--mpi", "--msg-timeout", "--network", "--nodefile",
    "--nodelist", "--nodes", "--ntasks", "--ntasks-per-core", "--ntasks-per-gpu",
    "--ntasks-per-node", "--ntasks-per-socket", "--ntasks-per-tres", "--open-mode", "--output",
    "--pack-group", "--partition", "--prefer", "--priority", "--profile", "--prolog", "--qos",
    "--relative", "--reservation", "--resources", "--runtime", "--segment", "--signal",
    "--slurmd-debug", "--sockets-per-node", "--switches", "--task-epilog", "--task-prolog",
    "--tasks-per-node", "--thread-spec", "--threads", "--threads-per-core", "--time",
    "--time-min", "--tmp", "--treewidth", "--tres-bind", "--tres-per-task", "--uid", "--wait",
    "--wait-all-nodes", "--wckey", "--wrap",
    "--container-image", "--container-mounts", "--container-workdir", "--container-name",
    "--container-save",
)
# Open MPI's mpirun and MPICH/Intel MPI's Hydra mpiexec (long options written with one dash).
_MPI = _options(
    "-c", "-f", "-H", "-host", "--host", "-hostfile", "--hostfile", "-hosts", "-machinefile",
    "--machinefile", "--map-by", "--bind-to", "--rank-by", "-n", "-N", "-np", "-npernode",
    "--npernode", "-ppn", "--prefix", "-wdir", "--wdir", "-x", "-genvlist",
    "-output-filename", "--output-filename",
)
_MPI_TWO_VALUES = _options("-mca", "--mca", "-gmca", "--gmca", "-env", "-genv")

# Commands run in a running container or pod: docker/podman/nerdctl ``exec`` (the Docker CLI
# reference, https://docs.docker.com/reference/cli/docker/container/exec/; podman-exec(1);
# nerdctl's docs/command-reference.md), kubectl exec (kubectl's exec.go, its command after
# ``--``; https://kubernetes.io/docs/reference/kubectl/generated/kubectl_exec/).
_CONTAINER_EXEC = _options(
    "-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir", "--detach-keys",
    "--preserve-fd", "--preserve-fds", "--cidfile",
)
_CONTAINER_EXEC_ENV = _options("-e", "--env")
# OpenSSH ssh.c: getopt "1246ab:c:e:fgi:kl:m:no:p:qstvxAB:CD:E:F:GI:J:KL:MNO:P:Q:R:S:TVw:W:XYy"
# (https://github.com/openssh/openssh-portable); -N, -G, -Q, -O and -V run no remote command.
_SSH = _options(
    "-b", "-c", "-e", "-i", "-l", "-m", "-o", "-p", "-B", "-D", "-E", "-F", "-I", "-J", "-L",
    "-O", "-P", "-Q", "-R", "-S", "-w", "-W",
)
_SSH_NO_COMMAND = _options("-N", "-G", "-Q", "-O", "-V")
# tmux(1), "CLIENTS AND SESSIONS" and "WINDOWS AND PANES": the options of new-session,
# new-window, split-window, respawn-pane/-window, run-shell and send-keys, and tmux's own.
_TMUX_GLOBAL = _options("-c", "-f", "-L", "-S", "-T")
_TMUX_RUN = _options("-c", "-e", "-F", "-f", "-l", "-n", "-s", "-t", "-x", "-y", "-d")
_TMUX_RUN_FLAGS_ONLY = _options("-d")
_TMUX_KEYS = _options("-N", "-t")
# GNU Screen manual, "Invoking Screen": the options taking an argument; -r, -R, -x, -X, -ls,
# -list, -wipe and -Q attach to, send to or list sessions and start no command.
_SCREEN = _options("-c", "-e", "-h", "-p", "-s", "-S", "-t", "-T", "-Logfile")
_SCREEN_NO_COMMAND = _options("-r", "-R", "-x", "-X", "-ls", "-list", "-wipe", "-Q")

_PLAIN = Wrapper()
_MPIRUN = Wrapper(_MPI, two_valued=_MPI_TWO_VALUES, clusters=False)
_MICROMAMBA = Wrapper(_MAMBA_RUN, ("run",))

# Each program's ways of running a command, by the subcommand words that select them.
WRAPPERS: dict[str, tuple[Wrapper, ...]] = {
    "nohup": (_PLAIN,),
    "setsid": (_PLAIN,),
    "exec": (Wrapper(_EXEC),),
    "time": (Wrapper(_TIME),),
    "command": (Wrapper(no_command=_COMMAND_PRINTS),),
    "env": (Wrapper(_ENV, assignments=True, final=_ENV_SPLIT, lone_dash=True),),
    "sudo": (Wrapper(_SUDO, assignments=True),),
    "nice": (Wrapper(_NICE),),
    "timeout": (Wrapper(_TIMEOUT, operands=1),),
    "stdbuf": (Wrapper(_STDBUF),),
    "taskset": (Wrapper(operands=1, no_command=_TASKSET_PID),),
    "numactl": (Wrapper(_NUMACTL),),
    "uv": (Wrapper(_UV_RUN, ("run",), _UV_GLOBAL),
           Wrapper(_UV_TOOL_RUN, ("tool", "run"), _UV_GLOBAL)),
    "uvx": (Wrapper(_UV_TOOL_RUN),),
    "conda": (Wrapper(_CONDA_RUN, ("run",)),),
    "mamba": (_MICROMAMBA,),
    "micromamba": (_MICROMAMBA,),
    "pixi": (Wrapper(_PIXI_RUN, ("run",), _options("--color")),),
    "poetry": (Wrapper(_POETRY_GLOBAL, ("run",), _POETRY_GLOBAL),),
    "pipenv": (Wrapper(_PIPENV_RUN, ("run",)),),
    "hatch": (Wrapper(subcommand=("run",), global_valued=_HATCH_GLOBAL),),
    "ray": (Wrapper(_RAY_JOB_SUBMIT, ("job", "submit")),),
    "srun": (Wrapper(_SRUN),),
    # sbatch takes srun's options (src/common/slurm_opt.c serves both); ``--wrap=COMMAND``
    # makes the job's script ``#!/bin/sh`` + COMMAND (https://slurm.schedmd.com/sbatch.html).
    "sbatch": (Wrapper(_SRUN),),
    "mpirun": (_MPIRUN,),
    "mpiexec": (_MPIRUN,),
    "ssh": (Wrapper(_SSH, operands=1, no_command=_SSH_NO_COMMAND, one_string=True),),
    "tmux": tuple(
        Wrapper(_TMUX_RUN - _TMUX_RUN_FLAGS_ONLY, (name,), _TMUX_GLOBAL, one_string=True)
        for name in ("new-session", "new", "new-window", "neww", "split-window", "splitw",
                     "respawn-pane", "respawnp", "respawn-window", "respawnw", "run-shell", "run")
    ) + tuple(
        Wrapper(_TMUX_KEYS, (name,), _TMUX_GLOBAL, one_string=True, keys=True)
        for name in ("send-keys", "send")
    ),
    "screen": (Wrapper(_SCREEN, no_command=_SCREEN_NO_COMMAND,
                       whole_words=_options("-ls", "-list", "-wipe")),),
    "kubectl": (Wrapper(_options(*KUBECTL_RUN.valued), ("exec",),
                        _options(*KUBECTL_RUN.valued), after_dash=True),),
    **{
        program: (
            Wrapper(_CONTAINER_EXEC, ("exec",), _options(*table.valued), operands=1,
                    env_options=_CONTAINER_EXEC_ENV),
            Wrapper(_CONTAINER_EXEC, ("container", "exec"), _options(*table.valued), operands=1,
                    env_options=_CONTAINER_EXEC_ENV),
        )
        for program, table in (("docker", DOCKER_GLOBAL), ("podman", PODMAN_GLOBAL),
                               ("nerdctl", NERDCTL_GLOBAL))
    },
}
# Key names ``tmux send-keys`` presses after typing a command (tmux(1), "KEY BINDINGS").
_RETURN_KEYS = frozenset({"Enter", "C-m", "KPEnter", "C-j"})

# -- reading the options ---------------------------------------------------------------------


@dataclass(frozen=True)
class Option:
    """One option a wrapper was given: its name as written (``-n``, ``--name``) and its value
    (None for a flag)."""

    name: str
    value: Token | None


def _read_options(
    words: Sequence[Token], index: int, valued: frozenset[str], wrapper: Wrapper,
    options: list[Option], assignments: list[Token] | None = None,
) -> int:
    """Read the options from ``words[index]`` on; the index of the first word after them (after
    a ``--`` that ends them).  ``NAME=VALUE`` words go to ``assignments`` when it is given."""
    while index < len(words):
        word = words[index]
        text = word.text
        if text == "--":
            return index + 1
        if assignments is not None and _is_assignment(text):
            assignments.append(word)
            index += 1
            continue
        if text in wrapper.whole_words:
            options.append(Option(text, None))
            index += 1
            continue
        if text == "-" and wrapper.lone_dash:
            options.append(Option(text, None))
            index += 1
            continue
        if not text.startswith("-") or text == "-":
            return index
        name, equals, _ = text.partition("=")
        if text in wrapper.two_valued:
            index += 3
        elif text in valued:
            options.append(Option(text, words[index + 1] if index + 1 < len(words) else None))
            index += 2
        elif equals and (name.startswith("--") or not wrapper.clusters):
            options.append(Option(name, word.slice(len(name) + 1)))
            index += 1
        elif wrapper.clusters and not text.startswith("--"):
            index = _read_cluster(words, index, valued, options)
        else:
            options.append(Option(text, None))
            index += 1
        if options and options[-1].name in wrapper.final:
            return index
    return index


def _read_cluster(
    words: Sequence[Token], index: int, valued: frozenset[str], options: list[Option]
) -> int:
    """``-abc`` / ``-n4`` / ``-n 4``: single-letter options combined in one word."""
    word = words[index]
    for position in range(1, len(word.text)):
        name = "-" + word.text[position]
        if name not in valued:
            options.append(Option(name, None))
            continue
        if position + 1 < len(word.text):
            options.append(Option(name, word.slice(position + 1)))
            return index + 1
        options.append(Option(name, words[index + 1] if index + 1 < len(words) else None))
        return index + 2
    return index + 1


def _is_assignment(text: str) -> bool:
    name, equals, _ = text.partition("=")
    return bool(equals) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) is not None


# -- unwrapping ------------------------------------------------------------------------------

_EXPANSION = re.compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[^{}]*\}|\(.*\))|`[^`]*`", re.DOTALL)


def is_expansion(word: Token) -> bool:
    """Whether ``word`` is wholly one unresolved shell expansion (``$PY``, ``${LAUNCHER}``,
    ``$(which python)``): a program vlint cannot name."""
    return not word.literal and _EXPANSION.fullmatch(word.text) is not None


@dataclass
class Unwrapped:
    """The wrapped command: ``words[start]`` is its program (``words`` are the command's words,
    with an ``env -S`` string split in place and a ``hatch run ENV:`` or ``uvx vllm@X`` prefix
    cut off); ``module`` is true when that word names a Python module (``uv run -m``);
    ``gpus`` the GPUs a Slurm step asks for on each node; ``image`` the container image a Slurm
    step runs in (pyxis ``--container-image``)."""

    words: list[Token]
    start: int
    module: bool = False
    gpus: Located[GpuCount | None] | None = None
    image: Located[str] | None = None


def unwrap(words: Sequence[Token], env: dict[str, Token], names: dict[str, Span]) -> Unwrapped:
    """Skip the wrappers in front of ``words``' command, updating ``env`` (and ``names``, where
    each variable's name is written) with what they set and clear."""
    result = Unwrapped(list(words), 0)
    steps = 0
    while result.start < len(result.words):
        word = result.words[result.start]
        following = result.words[result.start + 1:result.start + 2]
        if is_expansion(word) and following and not following[0].text.startswith("-"):
            # `$LAUNCHER vllm serve`: a wrapper held in a variable.  `"${ENV[@]}" A=1 vllm
            # serve` (the array holding `env`): the NAME=VALUE words after it are env's.
            result.start += 1
            while result.start < len(result.words) - 1 and \
                    _is_assignment(result.words[result.start].text):
                _environment("env", (), [result.words[result.start]], env, names)
                result.start += 1
            continue
        program = basename(word.text)
        candidates = WRAPPERS.get(program)
        if candidates is None:
            return result
        steps += 1
        if steps > _MAX_STEPS:
            result.start = len(result.words)
            return result
        if not _unwrap_one(program, candidates, result, env, names):
            return result
    return result


def _unwrap_one(
    program: str, candidates: tuple[Wrapper, ...], result: Unwrapped, env: dict[str, Token],
    names: dict[str, Span],
) -> bool:
    """Step over the wrapper at ``result.start``; False when ``program`` runs nothing here
    (``uv pip install``), leaving ``result`` at the program."""
    words = result.words
    for wrapper in candidates:
        options: list[Option] = []
        index = result.start + 1
        if wrapper.subcommand:
            index = _read_options(words, index, wrapper.global_valued, wrapper, options)
            chosen = [word.text for word in words[index:index + len(wrapper.subcommand)]]
            if chosen != list(wrapper.subcommand):
                continue
            index += len(wrapper.subcommand)
        assigned: list[Token] | None = [] if wrapper.assignments else None
        index = _read_options(words, index, wrapper.valued, wrapper, options, assigned)
        if any(option.name in wrapper.no_command for option in options):
            result.start = len(words)
            return True
        _environment(program, options, assigned or [], env, names, wrapper.env_options)
        if program == "env" and _split_string(result, index, options, env, names):
            # The split string's words are env's own arguments: env reads them again.
            return True
        index += wrapper.operands
        if wrapper.after_dash:
            dash = next((i for i in range(index, len(words)) if words[i].text == "--"), None)
            index = dash + 1 if dash is not None else index + 1
        if wrapper.keys:
            while len(result.words) > index and result.words[-1].text in _RETURN_KEYS:
                result.words.pop()
        if wrapper.one_string and _shell_string(result, index, env, names):
            return True
        if program == "hatch":
            index = _hatch_command(result, index)
        elif program in ("uv", "uvx"):
            index = _uv_command(result, index, wrapper, options)
        elif program in ("srun", "sbatch"):
            result.gpus = _slurm_gpus(options) or result.gpus
            result.image = _container_image(options) or result.image
            if program == "sbatch" and not _wrapped_job(result, options, env, names):
                result.start = len(result.words)  # a job script file: read as a file of its own
                return True
            if program == "sbatch":
                return True
        result.start = min(index, len(result.words))
        return True
    return False


def _environment(
    program: str, options: Sequence[Option], assigned: Sequence[Token], env: dict[str, Token],
    names: dict[str, Span], env_options: frozenset[str] = frozenset(),
) -> None:
    """What ``env``, ``sudo``, ``micromamba run`` and the options in ``env_options``
    (``docker exec -e NAME=VALUE``) do to the command's environment."""
    if program == "env":
        if any(option.name in _ENV_CLEAR for option in options):
            env.clear()
            names.clear()
        for option in options:
            if option.name in _ENV_UNSET and option.value is not None:
                env.pop(option.value.text, None)
                names.pop(option.value.text, None)
    elif program == "sudo":
        _sudo_environment(options, env, names)
    elif program in ("mamba", "micromamba"):
        env_options = env_options | _MAMBA_ENV_OPTIONS
    assigned = [*assigned, *(option.value for option in options
                             if option.name in env_options and option.value is not None)]
    for word in assigned:
        variable = assignment(word)
        if variable is not None and variable.name_span is not None:
            env[variable.name] = variable.value
            names[variable.name] = variable.name_span


def _sudo_environment(
    options: Sequence[Option], env: dict[str, Token], names: dict[str, Span]
) -> None:
    """sudo resets the environment (sudoers' default ``env_reset``) unless ``-E`` /
    ``--preserve-env`` keeps it, or ``--preserve-env=A,B`` keeps those variables."""
    kept: set[str] = set()
    for option in options:
        if option.name not in _SUDO_PRESERVE:
            continue
        if option.value is None:
            return
        kept.update(option.value.text.split(","))
    for name in [name for name in env if name not in kept]:
        del env[name]
        names.pop(name, None)


def _split_string(
    result: Unwrapped, index: int, options: Sequence[Option], env: dict[str, Token],
    names: dict[str, Span],
) -> bool:
    """``env -S 'A=1 vllm serve m'``: env splits the string into words and reads them as its
    own arguments, in place of its options; the string's ``NAME=VALUE`` words are set."""
    split = next((o.value for o in options if o.name in _ENV_SPLIT and o.value is not None), None)
    if split is None:
        return False
    command = _one_command(split)
    if command is None:
        return False
    _take_env(command, env, names)
    result.words = [*result.words[:result.start + 1], *command.words, *result.words[index:]]
    return True


def _shell_string(
    result: Unwrapped, index: int, env: dict[str, Token], names: dict[str, Span]
) -> bool:
    """``ssh host "vllm serve m"``, ``tmux new -d "vllm serve m"``: one word left, a command
    line that the tool hands to a shell; its words (and ``NAME=VALUE`` prefixes) are read in
    its place, each at its place inside the word.  False when more than one word is left (they
    are the command's words already) or the string is not one simple command."""
    if index != len(result.words) - 1 or " " not in result.words[index].text:
        return False
    command = _one_command(result.words[index])
    if command is None:
        return False
    _take_env(command, env, names)
    result.words = [*result.words[:index], *command.words]
    result.start = index
    return True


def _wrapped_job(
    result: Unwrapped, options: Sequence[Option], env: dict[str, Token], names: dict[str, Span]
) -> bool:
    """``sbatch --wrap="vllm serve m"``: the job runs the string as a shell command line; its
    words are read in place of sbatch's.  False when no ``--wrap`` is given."""
    wrapped = next((o.value for o in reversed(options) if o.name == "--wrap"), None)
    command = _one_command(wrapped) if wrapped is not None else None
    if command is None:
        return False
    _take_env(command, env, names)
    result.words = list(command.words)
    result.start = 0
    return True


def _take_env(command: ShellCommand, env: dict[str, Token], names: dict[str, Span]) -> None:
    """The ``NAME=VALUE`` prefixes of a command read from a string, set for what it runs."""
    for name, token in command.env.items():
        env[name] = token
        if name in command.env_names:
            names[name] = command.env_names[name]


def _one_command(value: Token) -> ShellCommand | None:
    """The one simple command a word holds, read as the shell reads it, positioned inside it."""
    last = len(value.text)
    end = value.sub_span(0).end if last else value.pos(0)

    def locate(offset: int) -> Pos:
        return value.pos(offset) if offset < last else end

    commands = parse_words(value.text, locate)
    return commands[0] if len(commands) == 1 else None


def _hatch_command(result: Unwrapped, index: int) -> int:
    """``hatch run [+var|-var ...] [ENV:]command``: the matrix selectors are skipped and an
    ``ENV:`` prefix is cut off the command's first word."""
    words = result.words
    while index < len(words) and words[index].text[:1] in ("+", "-"):
        index += 1
    if index < len(words):
        environment, colon, _ = words[index].text.partition(":")
        if colon:
            words[index] = words[index].slice(len(environment) + 1)
    return index


def _uv_command(result: Unwrapped, index: int, wrapper: Wrapper, options: list[Option]) -> int:
    """``uv run -m MODULE`` runs a module; ``uvx vllm@0.9.2`` runs the ``vllm`` command."""
    words = result.words
    if wrapper.subcommand == ("run",):
        result.module = any(option.name in _UV_MODULE_FLAGS for option in options)
    elif index < len(words):
        command, at_sign, _ = words[index].text.partition("@")
        if at_sign and command:
            words[index] = words[index].slice(0, len(command))
    return index


# -- Slurm GPUs ------------------------------------------------------------------------------

def _container_image(options: Sequence[Option]) -> Located[str] | None:
    """The image of pyxis's ``--container-image`` (https://github.com/NVIDIA/pyxis, "Usage"),
    as enroot names it (``vllm/vllm-openai:v0.9.2``, or ``nvcr.io#nvidia/vllm:25.01``: a
    registry before ``#``); None when not given or not literal."""
    for option in reversed(options):
        if option.name == "--container-image" and option.value is not None:
            value = option.value
            if not value.literal or not value.text:
                return None
            registry, hash_sign, path = value.text.partition("#")
            text = f"{registry}/{path}" if hash_sign else value.text
            return Located(text, value.span)
    return None


_NODES = _options("-N", "--nodes")


def batch_gpus(words: Sequence[Token]) -> Located[GpuCount | None] | None:
    """The GPUs of each node of a batch job, from the words of its ``#SBATCH`` directives
    (sbatch reads srun's options there, https://slurm.schedmd.com/sbatch.html)."""
    options: list[Option] = []
    _read_options(words, 0, _SRUN, Wrapper(_SRUN), options)
    return _slurm_gpus(options)


def _slurm_gpus(options: Sequence[Option]) -> Located[GpuCount | None] | None:
    """The GPUs of each node of a Slurm step: ``--gpus-per-node=[type:]N``,
    ``--gres=gpu[:type][:N]`` (per node), or ``--gpus``/``-G [type:]N`` (for the whole job:
    per node only when the step runs on one node; unknown on several).
    https://slurm.schedmd.com/srun.html"""
    per_node: Located[GpuCount | None] | None = None
    whole_job: Token | None = None
    nodes: int | None = 1
    for option in options:
        value = option.value
        if value is None:
            continue
        if option.name in _NODES:
            nodes = whole_number(value.text) if value.literal else None
        elif option.name == "--gpus-per-node":
            per_node = _count(value, value.text.rpartition(":")[2])
        elif option.name == "--gres":
            per_node = _gres_gpus(value) or per_node
        elif option.name in ("--gpus", "-G"):
            whole_job = value
    if per_node is not None or whole_job is None:
        return per_node
    if nodes != 1:
        return at(whole_job, None)
    return _count(whole_job, whole_job.text.rpartition(":")[2])


def _gres_gpus(value: Token) -> Located[GpuCount | None] | None:
    """The GPUs of a ``--gres`` list (``gpu:4``, ``gpu:a100:2,nvme:1``; ``gpu`` alone is one)."""
    entries = [entry for entry in value.text.split(",") if entry.split(":")[0] == "gpu"]
    if len(entries) != 1:
        return None
    parts = entries[0].split(":")
    count = parts[-1] if len(parts) > 1 and parts[-1].isdigit() else "1"
    return _count(value, count)


def _count(value: Token, text: str) -> Located[GpuCount | None]:
    return at(value, gpu_count(text) if value.literal else None)
