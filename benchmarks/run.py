"""vlint's performance harness: each figure is a ratio against a baseline measured in the same run,
on the same files, by fresh processes (bytecode cached, as an installed vlint has it).

    pip install -e '.[bench]'          # yamllint, the baseline of two benchmarks
    python benchmarks/run.py [--repeat 3] [--files 20000] [--small 5000] [--dense 2000]

1. catalog     loading the oldest, a middle and the newest release's data (keyframe + deltas) and
               building its parser, in a fresh process each time (goal: at most 20 ms)
2. pre-commit  ``vlint FILE`` on one compose file, as a pre-commit hook runs it, against
               ``yamllint FILE`` on the same file (goal: at most 0.5x); ``python -c pass`` is
               shown as the interpreter's own floor
3. monorepo    ``vlint`` over a generated tree of ``--files`` files (Python, YAML, shell,
               Dockerfiles, Markdown, JSON, binaries; 2% launch vLLM, in every input kind)
               against a Python program that only reads every file's bytes (goal: at most 2x);
               vlint's peak RSS at ``--small`` and ``--files`` files shows memory is flat in the
               number of files (goal: at most 150 MB)
4. dense       ``vlint`` over ``--dense`` files that all launch vLLM, in every input kind,
               against ``yamllint`` over the YAML among them (goal: at most 1x)
5. policies    linting the real corpus (``/work/shared/corpus/real`` or ``--corpus``) with 20
               policies loaded (10 declarative rows, 10 CEL expressions) against none, in one
               process, alternating runs (goal: at most 1.10x); loading and compiling the 20
               policies is reported beside it
Each command runs ``--repeat`` times, interleaved with its baseline; the table gives the median
wall time, the ratio of medians, and the ratio of CPU time (user + system, which a busy machine
disturbs less). Nothing here is a test: the numbers vary by machine, so no assertion is made on
them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VLINT = [sys.executable, "-m", "vlint"]
ENV = {**os.environ, "PYTHONPATH": f"{ROOT / 'linter'}{os.pathsep}{ROOT / 'rules'}"}
# Bytecode is cached (in a folder of its own, not the work tree), as it is for an installed vlint
# and for yamllint: compiling vlint's sources on every run would measure the compiler.
ENV.pop("PYTHONDONTWRITEBYTECODE", None)
ENV.setdefault("PYTHONPYCACHEPREFIX", str(Path(tempfile.gettempdir()) / "vlint-bench-pycache"))
YAMLLINT = [sys.executable, "-m", "yamllint", "--no-warnings", "-f", "parsable"]


@dataclass
class Sample:
    wall: float
    cpu: float
    rss_mb: float


def _run(command: list[str]) -> Sample:
    """One fresh process: wall time, CPU time (user + system, its children included) and peak
    RSS, from the kernel's accounting of the finished child."""
    start = time.perf_counter()
    child = subprocess.Popen(command, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert child.stderr is not None
    errors = child.stderr.read()  # before waiting: a full pipe would block the child
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode not in (0, 1) or (command[:3] == VLINT and child.returncode):
        # yamllint exits 1 on problems; vlint runs with --exit-zero, so anything else failed.
        raise SystemExit(f"{' '.join(command)} failed ({child.returncode}):\n{errors.decode()}")
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def _compare(commands: list[list[str]], repeat: int) -> list[Sample]:
    """Each command ``repeat`` times, interleaved (after one untimed warm-up each, which caches
    bytecode and the file system); the median of each figure."""
    for command in commands:
        _run(command)
    runs: list[list[Sample]] = [[] for _ in commands]
    for _ in range(repeat):
        for command, samples in zip(commands, runs):
            samples.append(_run(command))
    return [
        Sample(*(statistics.median(getattr(s, f) for s in samples) for f in ("wall", "cpu", "rss_mb")))
        for samples in runs
    ]


def _ratio(subject: Sample, base: Sample) -> str:
    return f"{subject.wall / base.wall:.2f}x (CPU {subject.cpu / base.cpu:.2f}x)"


CATALOG_LOAD = """
import sys, time
start = time.perf_counter()
from vlint.knowledge import catalog
imported = time.perf_counter()
release = catalog.load(sys.argv[1])
(release.parser("serve") or release.parser("api_server")).by_string
print(imported - start, time.perf_counter() - imported)
"""


def catalog_releases() -> list[str]:
    """The oldest, a middle and the newest known release."""
    code = "from vlint.knowledge import catalog; print(*catalog.known_releases())"
    known = subprocess.run([sys.executable, "-c", code], env=ENV, capture_output=True, text=True,
                           check=True).stdout.split()
    return list(dict.fromkeys([known[0], known[len(known) // 2], known[-1]]))


def catalog_load(version: str, repeat: int = 15) -> tuple[float, float, float]:
    """Loading one release in a fresh process (nothing cached): the median in-process time of
    ``load`` + ``parser()``, of importing the catalog module first, and the process's wall time."""
    loads, imports, walls = [], [], []
    for _ in range(repeat):
        start = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", CATALOG_LOAD, version], env=ENV,
                             capture_output=True, text=True, check=True)
        walls.append(time.perf_counter() - start)
        imported, loaded = out.stdout.split()
        imports.append(float(imported))
        loads.append(float(loaded))
    return statistics.median(loads), statistics.median(imports), statistics.median(walls)


GOLDEN = ROOT / "tests" / "golden"


def _launch_units() -> list[list[tuple[str, bytes]]]:
    """Each golden input kind's launching files (not the broken ones), one unit per kind folder,
    as (path inside the folder, bytes); a Helm chart keeps its Chart.yaml beside its templates."""
    units = []
    for kind in sorted(p for p in GOLDEN.iterdir() if p.is_dir()):
        unit = [
            (path.relative_to(kind).as_posix(), path.read_bytes())
            for path in sorted(kind.rglob("*"))
            if path.is_file() and not any(w in path.name for w in ("broken", "malformed", "not-"))
        ]
        unit = [(name, data) for name, data in unit if kind.name == "helm" or b"vllm" in data.lower()]
        if unit:
            units.append(unit)
    return units


def _make_dense(root: Path, count: int) -> None:
    """``count`` files that all launch vLLM, every input kind in turn (a Helm chart's Chart.yaml
    is the exception: it names no launch, but the chart needs it)."""
    units, written, copy = _launch_units(), 0, 0
    while written < count:
        for name, data in units[copy % len(units)][: count - written]:
            path = root / f"d{copy // 20}" / f"u{copy}" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            written += 1
        copy += 1


PLAIN = {
    ".py": "import os\n\n\ndef f(x):\n    return os.path.join(x, 'a') * 2\n" * 20,
    ".yaml": "key: value\nlist:\n  - a\n  - b\nnested:\n  deeper: {x: 1, y: [1, 2]}\n" * 20,
    ".sh": "#!/bin/sh\nset -eu\necho \"hello $1\"\nls -la | grep x\n" * 20,
    ".Dockerfile": "FROM python:3.12-slim\nRUN pip install flask\nCOPY . /app\nCMD [\"python\", \"app.py\"]\n",
    ".md": "# Title\n\nSome text with `code`.\n\n```sh\npip install thing\n```\n" * 20,
    ".json": json.dumps({"a": list(range(50)), "b": {"c": "d" * 40}}),
    ".bin": "",
}


def _make_tree(root: Path, count: int) -> None:
    """A monorepo of ``count`` files: Python, YAML, shell, Dockerfiles, Markdown, JSON and
    binaries; one file in 50 launches vLLM, taken in turn from every golden input kind."""
    rng = random.Random(7)
    launches = [item for unit in _launch_units() for item in unit if b"vllm" in item[1].lower()]
    for index in range(count):
        folder = root / f"d{index % 200}" / f"s{index % 7}"
        if index % 50 == 0:
            name, data = launches[(index // 50) % len(launches)]
            path = folder / f"l{index}" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            continue
        folder.mkdir(parents=True, exist_ok=True)
        suffix = rng.choice(list(PLAIN))
        if suffix == ".bin":
            (folder / f"f{index}.bin").write_bytes(rng.randbytes(rng.randrange(512, 8192)))
        else:
            (folder / f"f{index}{suffix}").write_text(PLAIN[suffix], "utf-8")


READ_ONLY = (
    "import os,sys\n"
    "for d,_,fs in os.walk(sys.argv[1]):\n"
    "    for f in fs:\n"
    "        open(os.path.join(d,f),'rb').read()\n"
)


POLICY_ROWS = [
    "{setting: max_model_len, op: le, value: 128K}",
    "{setting: --max-num-seqs, op: le, value: 1024}",
    "{setting: dtype, op: in, value: [auto, bfloat16, half, float16]}",
    "{setting: trust_remote_code, op: absent}",
    "{setting: gpu-memory-utilization, op: le, value: 0.98}",
    "{setting: max_num_batched_tokens, op: ge, value: 512}",
    "{setting: host, op: ne, value: 0.0.0.0}",
    "{setting: served_model_name, op: exists}",
    "{setting: tensor_parallel_size, op: requires, value: distributed_executor_backend}",
    "{setting: enforce_eager, op: conflicts, value: compilation_config}",
]
POLICY_EXPRESSIONS = [
    "settings.enable_chunked_prefill || settings.max_num_batched_tokens >= settings.max_model_len",
    "!has(settings.max_model_len) || settings.max_model_len <= 131072",
    "!('--trust-remote-code' in args)",
    "!('HF_TOKEN' in env) || file.kind != 'compose'",
    "file.image == '' || !file.image.endsWith(':latest')",
    "!has(settings.api_key) || settings.api_key != ''",
    "settings.max_num_seqs <= 512 || settings.max_num_batched_tokens >= 8192",
    "args.size() < 80",
    "!has(settings.tensor_parallel_size) || settings.tensor_parallel_size <= 8",
    "file.release.startsWith('0.')",
]

POLICY_RUN = """
import sys, time, statistics
from pathlib import Path
from vlint.engine.lint import lint
from vlint.settings import Settings
from vlint.policy.policies import load_file
start = time.perf_counter()
policies = tuple(load_file(Path(sys.argv[2])))
loading = time.perf_counter() - start
plain = Settings(target="0.33.0")
loaded = Settings(target="0.33.0", policies=policies)
lint([sys.argv[1]], plain)  # warm the caches both runs share
bare, with_policies = [], []
for _ in range(int(sys.argv[3])):
    for settings, samples in ((plain, bare), (loaded, with_policies)):
        t = time.perf_counter(); lint([sys.argv[1]], settings)
        samples.append(time.perf_counter() - t)
print(statistics.median(bare), statistics.median(with_policies), loading, len(policies))
"""


def policy_overhead(corpus: Path, repeat: int) -> tuple[float, float, float, int]:
    lines = ["policies:"]
    bodies = [f"rule: {row}" for row in POLICY_ROWS]
    bodies += [f"expr: {json.dumps(expr)}" for expr in POLICY_EXPRESSIONS]
    for number, body in enumerate(bodies, 1):
        lines += [f"  - id: BENCH{number:03}", "    severity: warning",
                  f"    message: benchmark policy {number}", f"    {body}"]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "policies.yaml"
        path.write_text("\n".join(lines) + "\n", "utf-8")
        out = subprocess.run(
            [sys.executable, "-c", POLICY_RUN, str(corpus), str(path), str(repeat)],
            env=ENV, capture_output=True, text=True, check=True,
        )
    bare, loaded, loading, count = out.stdout.split()
    return float(bare), float(loaded), float(loading), int(count)


def _yamllint_available() -> bool:
    probe = subprocess.run([sys.executable, "-c", "import yamllint"], env=ENV, capture_output=True)
    return probe.returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=20000, help="monorepo size")
    parser.add_argument("--small", type=int, default=5000, help="the smaller monorepo (memory)")
    parser.add_argument("--dense", type=int, default=2000, help="files that all launch vLLM")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", help="pass --jobs to vlint (default: vlint's own choice)")
    parser.add_argument("--corpus", type=Path, default=Path("/work/shared/corpus/real"))
    args = parser.parse_args()
    vlint = [*VLINT, "--exit-zero"]
    if args.jobs:
        vlint += ["--jobs", args.jobs]
    yamllint = _yamllint_available()
    if not yamllint:
        print("yamllint is not installed (pip install -e '.[bench]'): its rows are skipped\n")
    rows = []
    for label, version in zip(("oldest", "middle", "newest"), catalog_releases()):
        load, imports, wall = catalog_load(version)
        rows.append((f"catalog load: {version} ({label})", f"{load * 1000:.1f} ms",
                     f"{load / 0.020:.2f}x of 20 ms goal; fresh process {wall * 1000:.0f} ms "
                     f"(importing the catalog {imports * 1000:.0f} ms)"))

    compose = str(ROOT / "examples" / "compose" / "docker-compose.yml")
    floor, one, *lint_one = _compare(
        [[sys.executable, "-c", "pass"], [*vlint, compose]] + ([[*YAMLLINT, compose]] if yamllint else []),
        args.repeat * 3,
    )
    ratio = f"{_ratio(one, lint_one[0])} yamllint ({lint_one[0].wall * 1000:.0f} ms); goal 0.5x" if lint_one else "-"
    rows.append(("pre-commit: one compose file", f"{one.wall * 1000:.0f} ms", f"{ratio}; python -c pass {floor.wall * 1000:.0f} ms"))

    sizes = sorted({args.small, args.files})
    for size in sizes:
        with tempfile.TemporaryDirectory() as folder:
            _make_tree(Path(folder), size)
            read, tree = _compare([[sys.executable, "-c", READ_ONLY, folder], [*vlint, folder]], args.repeat)
        rows.append((f"monorepo: {size:,} files", f"{tree.wall * 1000:.0f} ms",
                     f"{_ratio(tree, read)} reading every file ({read.wall * 1000:.0f} ms); goal 2x; "
                     f"peak RSS {tree.rss_mb:.0f} MB (reader {read.rss_mb:.0f} MB; goal 150 MB)"))

    if yamllint:
        with tempfile.TemporaryDirectory() as folder:
            _make_dense(Path(folder), args.dense)
            yaml_files = sum(1 for p in Path(folder).rglob("*") if p.suffix in (".yaml", ".yml"))
            dense, lint_yaml, single = _compare(
                [[*vlint, folder], [*YAMLLINT, folder], [*VLINT, "--exit-zero", "--jobs", "1", folder]],
                args.repeat,
            )
        rows.append((f"dense: {args.dense:,} launching files", f"{dense.wall * 1000:.0f} ms",
                     f"{_ratio(dense, lint_yaml)} yamllint on its {yaml_files} YAML files "
                     f"({lint_yaml.wall * 1000:.0f} ms); goal 1x; peak RSS {dense.rss_mb:.0f} MB"))
        rows.append(("dense, --jobs 1", f"{single.wall * 1000:.0f} ms",
                     f"{_ratio(single, lint_yaml)} yamllint; peak RSS {single.rss_mb:.0f} MB"))

    if args.corpus.is_dir():
        bare, loaded, loading, count = policy_overhead(args.corpus, args.repeat)
        rows.append((f"real corpus, {count} policies", f"{loaded * 1000:.0f} ms", f"{loaded / bare:.2f}x no policies ({bare * 1000:.0f} ms; goal 1.10x); loading them {loading * 1000:.0f} ms"))
    width = max(len(r[0]) for r in rows)
    print(f"{'benchmark':<{width}}  {'time':>9}  ratio")
    for name, value, ratio in rows:
        print(f"{name:<{width}}  {value:>9}  {ratio}")


if __name__ == "__main__":
    main()
