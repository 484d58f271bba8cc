"""Ask real vLLM releases how they parse an argv, and whether they accept a Python call's keyword
arguments (stdlib only; no vLLM import here).

``RealVLLM.shared()`` builds the cached interpreters once (``tools/vllm_env.py ensure``) and keeps
one ``probe.py`` subprocess per release alive; each request is one JSON line each way.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any, ClassVar

ROOT = Path(__file__).resolve().parents[2]
ENV_TOOL = ROOT / "tools" / "vllm_env.py"
PROBE = Path(__file__).resolve().parent / "probe.py"
DEFAULT_RELEASES = ("0.31.0", "0.32.0", "0.33.0")


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else -1 for p in version.split("."))


class RealVLLMError(RuntimeError):
    """The environment could not be built, or a probe died."""


def ensure_env(releases: tuple[str, ...] = DEFAULT_RELEASES) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, str(ENV_TOOL), "ensure", "--releases", *releases],
        capture_output=True, text=True,
    )
    if proc.returncode != 0:
        raise RealVLLMError(f"vllm_env ensure failed:\n{proc.stderr[-4000:]}")
    info: dict[str, Any] = json.loads(proc.stdout)
    return info


class _Probe:
    def __init__(self, python: str, env: dict[str, str]) -> None:
        full = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        full.update(env)
        self._lock = threading.Lock()
        self._proc = subprocess.Popen(
            [python, str(PROBE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, env=full, bufsize=1,
        )

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

    def _pipes(self) -> tuple[IO[str], IO[str]]:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        return self._proc.stdin, self._proc.stdout

    def close(self) -> None:
        if self._proc.stdin:
            self._proc.stdin.close()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()


class RealVLLM:
    _shared: ClassVar[RealVLLM | None] = None

    def __init__(self, info: dict[str, Any]) -> None:
        self.info = info
        self._probes: dict[str, _Probe] = {}

    @classmethod
    def shared(cls) -> RealVLLM:
        if cls._shared is None:
            cls._shared = cls(ensure_env())
        return cls._shared

    def releases(self) -> list[str]:
        return sorted(self.info["releases"], key=_version_key)

    def source(self, release: str) -> str:
        return str(self.info["releases"][release]["source"])

    def _probe(self, release: str) -> _Probe:
        if release not in self._probes:
            rel = self.info["releases"][release]
            self._probes[release] = _Probe(self.info["python"], dict(rel["env"]))
        return self._probes[release]

    def parse(self, release: str, argv: list[str], entry: str = "serve") -> dict[str, Any]:
        return self._probe(release).ask({"op": "parse", "entry": entry, "argv": list(argv)})

    def parse_many(
        self, release: str, argvs: list[list[str]], entry: str = "serve"
    ) -> list[dict[str, Any]]:
        return [self.parse(release, argv, entry) for argv in argvs]

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
            probe.close()
        self._probes.clear()
