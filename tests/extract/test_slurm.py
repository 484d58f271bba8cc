from __future__ import annotations

import pytest

from vlint.discover import kind_of
from vlint.extract.shell import extract


@pytest.mark.parametrize(
    ("name", "data"),
    [("job.sbatch", b"srun vllm serve m\n"), ("job.slurm", b"srun vllm serve m\n"),
     ("job", b"#SBATCH -N 1\nsrun vllm serve m\n")],
)
def test_slurm_scripts_are_shell(name: str, data: bytes) -> None:
    assert kind_of(name, data) == "shell"


@pytest.mark.parametrize(
    "line",
    [
        "srun vllm serve m --port 1",
        "srun --ntasks=1 vllm serve m --port 1",
        "srun -n 1 -N 1 --gpus 4 --exclusive vllm serve m --port 1",
        "mpirun -np 2 vllm serve m --port 1",
        "mpirun -np 2 --mca btl tcp,self -x NCCL_DEBUG=INFO vllm serve m --port 1",
        "mpiexec -n 2 -genv A b vllm serve m --port 1",
    ],
)
def test_launchers_with_options(line: str) -> None:
    found = extract("job.sbatch", line + "\n")
    assert len(found) == 1
    assert [t.text for t in found[0].args] == ["m", "--port", "1"]
    start = line.index("vllm serve") + 1
    assert found[0].anchor.start.column == start
