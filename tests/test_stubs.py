"""The stand-ins realparser serves for modules an old vLLM release cannot import in the shared
runtime, and how tools/vllm_env.py decides what to stub (no vLLM needed)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CONFIRM = ROOT / "linter" / "vlint" / "confirm"


def _env_tool() -> Any:
    spec = importlib.util.spec_from_file_location("vllm_env_under_test", ROOT / "tools" /
                                                  "vllm_env.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(tmp_path: Path, code: str, stubs: str) -> dict[str, Any]:
    """Run ``code`` in a fresh interpreter with realparser's stubs installed."""
    pkg = tmp_path / "vllm"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "real.py").write_text("VALUE = 1\n")
    (tmp_path / "raising.py").write_text("raise ImportError('vllm is not installed')\n")
    script = f"import sys\nsys.path[:0] = [{str(CONFIRM)!r}, {str(tmp_path)!r}]\n" + \
        "import json, realparser\nrealparser.install_stubs()\nout = {}\n" + \
        textwrap.dedent(code) + "\nprint(json.dumps(out))\n"
    env = {**os.environ, "VLINT_STUB_MODULES": stubs}
    env.pop("VLINT_RUNTIME_SHIMS", None)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, check=True)
    got: dict[str, Any] = json.loads(proc.stdout)
    return got


def test_listed_modules_get_permissive_stand_ins(tmp_path: Path) -> None:
    got = _run(tmp_path, """
        from vllm._C import ops
        import vllm._C
        out["callable"] = ops.paged_attention(1, x=2) is not None
        import raising  # a third-party package that raises when imported
        from raising.sub import Base
        class Mine(Base):
            pass
        out["subclass"] = issubclass(Mine, Base)
        out["stubbed"] = realparser.stubbed_modules()
        """, "vllm._C,raising")
    assert got["callable"] and got["subclass"]
    assert got["stubbed"] == ["raising", "raising.sub", "vllm._C"]


def test_unlisted_and_real_modules_are_untouched(tmp_path: Path) -> None:
    got = _run(tmp_path, """
        import importlib.util
        from vllm.real import VALUE  # listed below, but the release's own module wins
        out["value"] = VALUE
        out["probe"] = importlib.util.find_spec("vllm._core_C") is None
        try:
            import vllm._moe_C
        except ImportError:
            out["moe"] = "ImportError"
        try:
            import raising
        except ImportError as exc:
            out["raising"] = str(exc)
        out["stubbed"] = realparser.stubbed_modules()
        """, "vllm.real")
    assert got == {"value": 1, "probe": True, "moe": "ImportError",
                   "raising": "vllm is not installed", "stubbed": []}


def _reply(cls: str, name: str | None, frames: list[str], installed: bool) -> dict[str, Any]:
    return {"ok": False, "error": "x", "import_error": {
        "class": cls, "name": name, "message": "m", "frames": frames, "installed": installed}}


def test_env_tool_decides_from_the_traceback(tmp_path: Path) -> None:
    env = _env_tool()
    src = tmp_path / "src" / "0.4.1"
    site = "/venv/lib/python3.11/site-packages"
    mine = str(src / "vllm" / "x.py")

    def fix(reply: dict[str, Any], tried: set[str] | None = None,
            extensions: tuple[str, ...] = ("vllm._C", "vllm.vllm_flash_attn.c")) -> Any:
        return env.next_fix(tmp_path, Path("py"), src, reply, extensions, tried or set())

    # A compiled module of the release (declared, or named like one) is stubbed ...
    assert fix(_reply("ModuleNotFoundError", "vllm._C", [mine], False)) == ("stub", "vllm._C")
    assert fix(_reply("ModuleNotFoundError", "vllm.vllm_flash_attn", [mine], False)) == (
        "stub", "vllm.vllm_flash_attn")
    assert fix(_reply("ModuleNotFoundError", "vllm._punica_C", [mine], False), extensions=()) == (
        "stub", "vllm._punica_C")
    # ... a missing Python module of the release is an error, not something to paper over.
    assert fix(_reply("ModuleNotFoundError", "vllm.entrypoints.cli", [mine], False)) is None
    # A missing third-party package: install it first, stub it if that did not help.
    assert fix(_reply("ModuleNotFoundError", "genson", [mine], False)) == ("install", "genson")
    assert fix(_reply("ModuleNotFoundError", "genson", [mine], False),
               {"install:genson"}) == ("stub", "genson")
    # An installed package without the submodule the release imports: that submodule.
    assert fix(_reply("ModuleNotFoundError", "outlines.fsm", [mine], True)) == (
        "stub", "outlines.fsm")
    # ImportError raised inside a third-party package: that package, whole.
    assert fix(_reply("ImportError", None, [mine, f"{site}/lmformatenforcer/integrations/vllm.py"],
                      True)) == ("stub", "lmformatenforcer")
    # The runtime itself is never stubbed.
    assert fix(_reply("ImportError", "torch", [mine], True)) is None
    assert fix(_reply("ImportError", None, [mine, f"{site}/transformers/x.py"], True)) is None
    # transformers refusing a registration: the register shim.
    assert fix({"ok": False, "error": "ValueError: 'aimv2' is already used by a Transformers "
                "config, pick another name."}) == ("stub", "shim:transformers-register-exist-ok")
    assert fix({"ok": False, "error": "AttributeError: module 'torch._C._cpu' has no attribute "
                "'_is_avx512_supported'"}) == ("stub", "shim:torch-cpu-isa")
    assert fix({"ok": False, "error": "AttributeError: something else"}) is None


def test_env_tool_passes_stubs_and_shims_apart(tmp_path: Path) -> None:
    env = _env_tool()
    got = env.release_vars(tmp_path, tmp_path / "src", None,
                           ["vllm._C", "outlines", "shim:transformers-register-exist-ok"])
    assert got["VLINT_STUB_MODULES"] == "vllm._C,outlines"
    assert got["VLINT_RUNTIME_SHIMS"] == "transformers-register-exist-ok"
    assert "VLINT_STUB_MODULES" not in env.release_vars(tmp_path, tmp_path / "src")
