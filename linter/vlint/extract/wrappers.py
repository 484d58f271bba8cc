"""Wrapper commands: the words before a launch that run the rest of the line as another command
(``nohup``, ``env A=1``, ``srun -n 1``, ``mpirun -np 2`` ...).

``skip_wrappers`` returns where the wrapped command starts, collecting the environment that
``env NAME=VALUE`` sets on the way.
"""

from __future__ import annotations

from collections.abc import Sequence

from vlint.extract.deployment import assignment
from vlint.model import Span, Token

__all__ = ["skip_wrappers"]


def basename(word: str) -> str:
    return word.rsplit("/", 1)[-1]


# Commands that run the rest of the line as another command.  The value says how many option
# words to skip after them: options are dropped while they start with "-".
_PREFIX_COMMANDS = frozenset({"exec", "nohup", "time", "setsid", "command", "nice", "stdbuf"})
_MPI_OPTIONS = frozenset(
    {"-c", "-f", "-H", "-host", "--host", "-hostfile", "--hostfile", "-hosts", "-machinefile",
     "--machinefile", "--map-by", "--bind-to", "--rank-by", "-n", "-N", "-np", "-npernode",
     "--npernode", "-ppn", "--prefix", "-wdir", "--wdir", "-x", "-genvlist",
     "-output-filename", "--output-filename"}
)
_OPTIONS_WITH_VALUE = {
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"}),
    "env": frozenset({"-u", "-C", "-S"}),
    "nice": frozenset({"-n"}),
    "taskset": frozenset(),
    # Cluster launchers (Slurm batch scripts): `srun -n 1 vllm serve ...`, `mpirun -np 2 ...`.
    "srun": frozenset(
        {"-A", "-c", "-C", "-D", "-d", "-e", "-G", "-i", "-J", "-L", "-m", "-n", "-N", "-o",
         "-p", "-q", "-r", "-t", "-T", "-w", "-W", "-x", "--account", "--chdir",
         "--constraint", "--container-image", "--container-mounts", "--container-name",
         "--container-workdir", "--cpu-bind", "--cpus-per-task", "--dependency", "--error",
         "--export", "--gpus", "--gpus-per-node", "--gpus-per-task", "--gres", "--job-name",
         "--mem", "--mem-per-cpu", "--mem-per-gpu", "--mpi", "--nodelist", "--nodes",
         "--ntasks", "--ntasks-per-node", "--output", "--partition", "--qos", "--reservation",
         "--time"}
    ),
    "mpirun": _MPI_OPTIONS,
    "mpiexec": _MPI_OPTIONS,
}
# Options of those launchers that take two words (`--mca btl tcp`, `-genv NAME value`).
_OPTIONS_WITH_TWO_VALUES = frozenset({"-mca", "--mca", "-gmca", "--gmca", "-env", "-genv"})
def skip_wrappers(
    words: Sequence[Token], env: dict[str, Token], names: dict[str, Span]
) -> int:
    index = 0
    while index < len(words):
        name = basename(words[index].text)
        if name in _PREFIX_COMMANDS or name in _OPTIONS_WITH_VALUE:
            valued = _OPTIONS_WITH_VALUE.get(name, frozenset())
            index += 1
            while index < len(words):
                text = words[index].text
                if name == "env" and "=" in text and not text.startswith("-"):
                    variable = assignment(words[index])
                    if variable is not None and variable.name_span is not None:
                        env[variable.name] = variable.value
                        names[variable.name] = variable.name_span
                elif text in valued:
                    index += 1
                elif text in _OPTIONS_WITH_TWO_VALUES and name in ("mpirun", "mpiexec"):
                    index += 2
                elif not text.startswith("-") or text == "--":
                    if name == "taskset" and text[:1].isdigit():
                        index += 1
                        continue
                    break
                index += 1
            continue
        return index
    return index
