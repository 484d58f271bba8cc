"""Answer questions about one real vLLM release, one JSON line per request.

Runs inside the vLLM venv (see tools/vllm_env.py) with the release's source dir first on
PYTHONPATH.  Does not import vlint.  Requests on stdin, one per line:

    {"op": "parse", "entry": "serve" | "api_server", "argv": [...]}
    {"op": "engine_config", "argv": [...]}
    {"op": "ping"}

Each answer is one JSON line on stdout.  vLLM's own logging is sent to stderr so that it cannot
corrupt the protocol.  Parsers are built once per process.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

# vLLM logs to sys.stdout; keep the real stdout for answers and point fd 1 at stderr.
_PROTO = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)
sys.stdout = sys.stderr

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "rules" / "generator"))
import realparser  # noqa: E402

_PARSERS: dict[str, realparser.RealParser | Exception] = {}


def _parser(entry: str) -> realparser.RealParser:
    if entry not in _PARSERS:
        try:
            _PARSERS[entry] = realparser.build(entry)
        except Exception as exc:  # remembered: a release may lack an entry
            _PARSERS[entry] = exc
    got = _PARSERS[entry]
    if isinstance(got, Exception):
        raise RuntimeError(f"cannot build the {entry} parser: {type(got).__name__}: {got}")
    return got


def answer(request: dict[str, Any]) -> dict[str, Any]:
    op = request.get("op")
    if op == "ping":
        import vllm  # type: ignore[import-not-found]

        return {"ok": True, "vllm_file": vllm.__file__}
    argv = [str(a) for a in request.get("argv", [])]
    if op == "parse":
        return _parser(str(request.get("entry", "serve"))).parse(argv)
    if op == "engine_config":
        model = os.environ.get("VLINT_STANDIN_MODEL", "")
        return realparser.engine_config(_parser("serve"), argv, model)
    return {"ok": False, "error": f"unknown op {op!r}"}


def main() -> int:
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = answer(json.loads(line))
        except Exception as exc:
            reply = {"ok": False, "error": f"probe failure: {type(exc).__name__}: {exc}",
                     "probe_failure": True}
        _PROTO.write(realparser.json_line(reply) + "\n")
        _PROTO.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
