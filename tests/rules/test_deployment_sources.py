"""The deployment rules' release facts, judged by the vLLM sources they cite.

VL601's message per release and VL603/VL604's shared-memory sizes rest on lines of vLLM's own
code that a CPU build cannot run (the GPU count check needs CUDA; the segments need several
workers).  So the cited sources are the judge: every release whose sources are in the vLLM cache
(``$VLINT_VLLM_HOME/src/<release>/vllm``, filled by the generator and the differential set-up)
is read here, and what the rules say about it must be what its code does.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
from packaging.version import Version

from vlint.checks import parallel

HOME = Path(os.environ.get("VLINT_VLLM_HOME") or Path.home() / ".cache" / "vlint-vllm")
SOURCES = sorted(
    (Version(path.name), path / "vllm")
    for path in (HOME / "src").glob("*")
    if path.is_dir() and (path / "vllm" / "__init__.py").is_file()
    and not path.name.endswith(".deps")
) if (HOME / "src").is_dir() else []
MIB = 1 << 20


def _release_ids(item: tuple[Version, Path]) -> str:
    return str(item[0])


def _value(node: ast.expr) -> int:
    return int(eval(compile(ast.Expression(node), "<default>", "eval"), {"__builtins__": {}}))


def _message_queue_defaults(source: Path) -> tuple[int, int] | None:
    """``MessageQueue.__init__``'s default ``max_chunk_bytes`` and ``max_chunks``."""
    path = source / "distributed" / "device_communicators" / "shm_broadcast.py"
    if not path.is_file():
        return None
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ClassDef) and node.name == "MessageQueue":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                    arguments = item.args.args[-len(item.args.defaults):]
                    defaults = {a.arg: _value(d) for a, d in zip(arguments, item.args.defaults)
                                if a.arg in ("max_chunk_bytes", "max_chunks")}
                    return defaults["max_chunk_bytes"], defaults["max_chunks"]
    return None


def _chunk_variable_default(source: Path) -> int | None:
    """The default of ``VLLM_MQ_MAX_CHUNK_BYTES_MB`` in ``vllm/envs.py`` (None: not read)."""
    text = (source / "envs.py").read_text("utf-8")
    marker = 'os.getenv("VLLM_MQ_MAX_CHUNK_BYTES_MB", "'
    at = text.find(marker)
    if at < 0:
        return None
    return int(text[at + len(marker):].split('"', 1)[0])


def test_the_cache_holds_sources_to_judge_by() -> None:
    if not SOURCES:
        pytest.skip(f"no vLLM sources under {HOME / 'src'} (the generator's cache)")
    assert any(version >= parallel.CHECKED_AT_START for version, _ in SOURCES)


@pytest.mark.parametrize("release", SOURCES, ids=_release_ids)
def test_the_largest_segment_is_the_release_s(release: tuple[Version, Path]) -> None:
    version, source = release
    if version < Version("0.8.0"):
        state = source / "distributed" / "parallel_state.py"
        if state.is_file() and "create_from_process_group(" in state.read_text("utf-8"):
            assert "self.cpu_group, 1 << 22, 6)" in state.read_text("utf-8")
        assert parallel.shm_needed(version, {}) == 4 * MIB * 6
        return
    defaults = _message_queue_defaults(source)
    assert defaults is not None, "no MessageQueue in a V1 release"
    chunk, chunks = defaults
    variable = _chunk_variable_default(source)
    broadcast = chunk if variable is None else variable * MIB
    executor = (source / "v1" / "executor" / "multiproc_executor.py").read_text("utf-8")
    assert "MessageQueue(1, 1)" in executor  # each worker's response queue: the default chunk
    assert parallel.shm_needed(version, {}) == max(broadcast, chunk) * chunks


@pytest.mark.parametrize("release", SOURCES, ids=_release_ids)
def test_the_start_up_check_is_where_the_rules_say(release: tuple[Version, Path]) -> None:
    version, source = release
    path = source / "distributed" / "device_communicators" / "shm_broadcast.py"
    checks = path.is_file() and "def check_shm_free_space" in path.read_text("utf-8")
    assert checks == (version >= parallel.CHECKED_AT_START)
    if checks:
        assert "Insufficient space in {shm_path}" in path.read_text("utf-8")


@pytest.mark.parametrize("release", SOURCES, ids=_release_ids)
def test_the_gpu_count_message_is_the_release_s(release: tuple[Version, Path]) -> None:
    version, source = release
    config = source / "config" / "parallel.py"
    text = config.read_text("utf-8") if config.is_file() else (source / "config.py").read_text(
        "utf-8")
    world = '"World size ({self.world_size}) is larger than the number of "'
    tensor = '"Tensor parallel size ({self.world_size}) cannot be "'
    falls_back = 'backend = "ray"' in text and "< self.world_size" in text
    if version >= Version("0.13.0"):
        assert world.replace('"', "") in text.replace('f"', "").replace('"', "")
    elif version >= parallel.RAY_FALLBACK_REMOVED:
        assert tensor.replace('"', "") in text.replace('f"', "").replace('"', "")
    elif version >= Version("0.5.0"):
        assert falls_back, "up to 0.11.0 a launch short of GPUs falls back to Ray"
