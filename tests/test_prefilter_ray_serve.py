"""The byte prefilter lets Ray Serve LLM configs and code through, which need not name vLLM:
each ``LLMConfig`` writes ``model_loading_config`` (issue 15)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._support.files import write_tree
from vlint.discover import Source, linted_roots, prefilter
from vlint.engine.lint import lint
from vlint.engine.read import Counted, read
from vlint.settings import Settings

SERVE_CONFIG = (
    "applications:\n"
    "- name: llm-app\n"
    "  route_prefix: /\n"
    "  import_path: ray.serve.llm:build_openai_app\n"
    "  args:\n"
    "    llm_configs:\n"
    "    - model_loading_config:\n"
    "        model_id: qwen-0.5b\n"
    "        model_source: Qwen/Qwen2.5-0.5B-Instruct\n"
    "      engine_kwargs:\n"
    "        max_model_len: 8192\n"
    "        swap_space: 4\n"
)
SERVE_CODE = (
    "from ray import serve\n"
    "from ray.serve.llm import LLMConfig, build_openai_app\n"
    "\n"
    "config = LLMConfig(\n"
    "    model_loading_config=dict(model_id='qwen', model_source='Qwen/Qwen2.5-0.5B-Instruct'),\n"
    "    engine_kwargs=dict(max_model_len=8192, swap_space=4),\n"
    ")\n"
    "serve.run(build_openai_app({'llm_configs': [config]}))\n"
)
NOT_RAY = (
    "from sqlalchemy import create_engine\n"
    "engine_kwargs = {'pool_size': 5}\n"
    "engine = create_engine(url, **engine_kwargs)\n"
)


@pytest.mark.parametrize("data", [SERVE_CONFIG, SERVE_CODE])
def test_ray_serve_llm_that_never_names_vllm_passes(data: str) -> None:
    assert "vllm" not in data.lower()
    assert prefilter(data.encode(), "serve.yaml")


def test_other_engine_kwargs_do_not() -> None:
    assert not prefilter(NOT_RAY.encode(), "db.py")


def test_a_serve_config_and_its_python_form_are_read_and_checked(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path, {"serve.yaml": SERVE_CONFIG, "serve_llm.py": SERVE_CODE, "db.py": NOT_RAY})
    paths = [str(root / name) for name in ("serve.yaml", "serve_llm.py", "db.py")]
    read_back = list(read(paths, Settings(), linted_roots(paths), Counted()))
    kinds = {Path(s.path).name: s.kind for s in read_back if isinstance(s, Source)}
    assert kinds == {"serve.yaml": "ray-serve", "serve_llm.py": "python"}
    report = lint(paths, Settings(target="0.33.0"))
    removed = sorted(
        (Path(finding.path).name, finding.span.start.line)
        for finding in report.findings
        if finding.code == "VL106"
    )
    assert removed == [("serve.yaml", 12), ("serve_llm.py", 6)]
