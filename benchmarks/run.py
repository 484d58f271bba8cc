"""vlint's performance harness: each figure is a ratio against a baseline measured in the same run.

    python benchmarks/run.py [--files 2000]

1. catalog     loading one release's generated data, cold (goal: at most 20 ms)
2. cold start  ``vlint FILE`` on one compose file, as a pre-commit hook runs it, against a bare
               ``python -c pass`` (the interpreter's own start-up is the floor)
3. tree        ``vlint`` over a generated tree (Python, YAML, shell, Markdown, JSON, binaries;
               2% launch vLLM) against a Python program that only reads every file's bytes
4. policies    linting the real corpus (``/work/shared/corpus/real`` or ``--corpus``) with 20
               policies loaded (10 declarative rows, 10 CEL expressions) against none, in one
               process, alternating runs (goal: at most 1.10x); loading and compiling the 20
               policies is reported beside it
Nothing here is a test: the numbers vary by machine, so no assertion is made on them.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VLINT = [sys.executable, "-m", "vlint"]
ENV = {**os.environ, "PYTHONPATH": f"{ROOT / 'linter'}{os.pathsep}{ROOT / 'rules'}"}


def _timed(command: list[str], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def catalog_load(repeat: int = 15) -> float:
    # The modules are imported first: their cost is the CLI's start-up, measured below.
    code = (
        "import time; from vlint import catalog; v=catalog.newest(); t=time.perf_counter(); "
        "r=catalog.load(v); r.parser('serve').by_string; print(time.perf_counter()-t)"
    )
    samples = []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", code], env=ENV, capture_output=True, text=True)
        samples.append(float(out.stdout))
    return statistics.median(samples)


def _make_tree(root: Path, count: int) -> None:
    rng = random.Random(7)
    launch = (ROOT / "examples" / "seeds" / "batched-tokens.sh").read_text("utf-8")
    compose = (ROOT / "examples" / "compose" / "docker-compose.yml").read_text("utf-8")
    plain = {
        ".py": "def f(x):\n    return x * 2\n" * 20,
        ".yaml": "key: value\nlist:\n  - a\n  - b\n" * 20,
        ".sh": "#!/bin/sh\necho hello\nls -la\n" * 20,
        ".md": "# Title\n\nSome text with `code`.\n" * 20,
        ".json": json.dumps({"a": list(range(50))}),
        ".bin": "",
    }
    for index in range(count):
        folder = root / f"d{index % 50}"
        folder.mkdir(exist_ok=True)
        suffix = rng.choice(list(plain))
        if index % 50 == 0:
            (folder / f"run{index}.sh").write_text(launch, "utf-8")
        elif index % 50 == 25:
            (folder / f"docker-compose-{index}.yml").write_text(compose, "utf-8")
        elif suffix == ".bin":
            (folder / f"f{index}.bin").write_bytes(rng.randbytes(2048))
        else:
            (folder / f"f{index}{suffix}").write_text(plain[suffix], "utf-8")


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
from vlint.lint import Settings, lint
from vlint.policy import load_file
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--corpus", type=Path, default=Path("/work/shared/corpus/real"))
    args = parser.parse_args()
    rows = []
    load = catalog_load()
    rows.append(("catalog load (one release)", f"{load * 1000:.1f} ms", f"{load / 0.020:.2f}x of 20 ms goal"))
    compose = str(ROOT / "examples" / "compose" / "docker-compose.yml")
    floor = _timed([sys.executable, "-c", "pass"], args.repeat)
    cold = _timed([*VLINT, compose], args.repeat)
    rows.append(("cold start, one compose file", f"{cold * 1000:.0f} ms", f"{cold / floor:.1f}x python -c pass ({floor * 1000:.0f} ms)"))
    with tempfile.TemporaryDirectory() as folder:
        _make_tree(Path(folder), args.files)
        read = _timed([sys.executable, "-c", READ_ONLY, folder], args.repeat)
        tree = _timed([*VLINT, folder, "--exit-zero"], args.repeat)
    rows.append((f"tree of {args.files} files", f"{tree * 1000:.0f} ms", f"{tree / read:.1f}x reading every file ({read * 1000:.0f} ms)"))
    if args.corpus.is_dir():
        bare, loaded, loading, count = policy_overhead(args.corpus, args.repeat)
        rows.append((f"real corpus, {count} policies", f"{loaded * 1000:.0f} ms", f"{loaded / bare:.2f}x no policies ({bare * 1000:.0f} ms; goal 1.10x); loading them {loading * 1000:.0f} ms"))
    width = max(len(r[0]) for r in rows)
    print(f"{'benchmark':<{width}}  {'time':>9}  ratio")
    for name, value, ratio in rows:
        print(f"{name:<{width}}  {value:>9}  {ratio}")


if __name__ == "__main__":
    main()
