"""The deployment rules' release facts, judged by the vLLM sources they cite.

VL601's message per release, VL603/VL604's shared-memory sizes and VL607's guarded paths rest on
lines of vLLM's own code that a CPU build cannot run (the GPU count check needs CUDA; the segments
need several workers; a probe needs a running server).  So the cited sources are the judge: every release whose sources are in the vLLM cache
(``$VLINT_VLLM_HOME/src/<release>/vllm``, filled by the generator and the differential set-up)
is read here, and what the rules say about it must be what its code does.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
from packaging.version import Version

from vlint.checks import internal_port_as_server_port, parallel, unsafe_env_var
from vlint.knowledge import catalog

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


@pytest.mark.parametrize("release", SOURCES, ids=_release_ids)
def test_the_guarded_paths_are_the_release_s(release: tuple[Version, Path]) -> None:
    """VL607's prefixes (generated from the middleware's syntax tree) against the text of the
    release's middleware: its ``GUARDED_PREFIX`` tuple, else the ``/v1`` test."""
    version, source = release
    if version not in catalog.known_releases():
        pytest.skip(f"{version} is not in the catalog")
    generated = catalog.load(version).api_key_paths
    tuples = [line.split("=", 1)[1] for path in (source / "entrypoints").rglob("*.py")
              for line in path.read_text("utf-8").splitlines()
              if line.startswith("GUARDED_PREFIX = (")]
    if tuples:
        written = {ast.literal_eval(text.strip()) for text in tuples}
        assert len(written) == 1, "every copy of the middleware guards the same prefixes"
        assert sorted(written.pop()) == list(generated)
    else:
        texts = [path.read_text("utf-8") for path in (source / "entrypoints").rglob("*.py")]
        assert any('startswith("/v1")' in text or 'startswith(f"{root_path}/v1")' in text
                   for text in texts)
        assert generated == ("/v1",)


@pytest.mark.parametrize("release", SOURCES, ids=_release_ids)
def test_a_uri_in_vllm_port_fails_as_the_rule_says(release: tuple[Version, Path]) -> None:
    """VL608: from 0.9.0 ``get_vllm_port`` names a URI; before, ``int()`` of it fails."""
    version, source = release
    envs = source / "envs.py"
    if not envs.is_file():
        pytest.skip("no vllm/envs.py before 0.4.2")
    text = envs.read_text("utf-8")
    assert ("appears to be a URI" in text) == (version >= Version("0.9.0"))
    if version < Version("0.9.0") and "'VLLM_PORT':" in text:
        assert "int(os.getenv('VLLM_PORT', '0'))" in text  # int('tcp://...') raises


def _parsers(envs: Path) -> dict[str, str]:
    """Each variable's reader in ``vllm/envs.py``'s table, as source text."""
    found: dict[str, str] = {}
    for node in ast.walk(ast.parse(envs.read_text("utf-8"))):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    found[key.value] = ast.unparse(value)
    return found


@pytest.mark.parametrize("release", SOURCES, ids=_release_ids)
def test_each_unsafe_variable_is_parsed_as_the_rule_reads_it(
        release: tuple[Version, Path]) -> None:
    """VL505 reads ``flag`` variables as ``.strip().lower() in ('1', 'true')`` and ``int`` ones
    as ``bool(int(...))``: each release's table must parse them so."""
    version, source = release
    envs = source / "envs.py"
    if not envs.is_file():
        pytest.skip("no vllm/envs.py before 0.4.2")
    parsers = _parsers(envs)
    for name, (parse, _) in unsafe_env_var.UNSAFE.items():
        if name not in parsers:
            continue
        text = parsers[name].replace('"', "'")
        if parse == "flag":
            assert ".strip().lower() in ('1', 'true')" in text, (name, text)
        else:
            assert text.startswith(f"lambda: bool(int(os.getenv('{name}', '0')))"), (name, text)


@pytest.mark.parametrize("release", SOURCES, ids=_release_ids)
def test_the_server_binds_first_from_where_the_rule_says(release: tuple[Version, Path]) -> None:
    """VL609: from 0.6.3 the API server binds its port before the engine opens its own."""
    version, source = release
    binds_first = any("bind the port before the engine" in path.read_text("utf-8")
                      for path in (source / "entrypoints").rglob("*.py"))
    assert binds_first == (version >= internal_port_as_server_port.BOUND_FIRST)


@pytest.mark.parametrize("release", SOURCES, ids=_release_ids)
def test_the_start_up_memory_check_is_where_the_rule_says(release: tuple[Version, Path]) -> None:
    """VL613: from 0.9.1 an engine refuses to start when less than its fraction is free."""
    version, source = release
    worker = source / "v1" / "worker"
    checks = worker.is_dir() and any(
        "is less than desired GPU memory utilization" in path.read_text("utf-8")
        for path in worker.rglob("*.py"))
    assert checks == (version >= Version("0.9.1"))
