from __future__ import annotations

import os
from pathlib import Path

import pytest

from vlint.discover import kind_of, vllm_config_by_content
from vlint.engine.lint import lint
from vlint.extract.vllm_config import extract
from vlint.settings import Settings


@pytest.mark.parametrize("text", [
    # `vllm serve` option names, with dashes or underscores, as vLLM's config loader takes them
    "model: Qwen/Qwen2.5-7B-Instruct\nmax-model-len: 8192\ngpu-memory-utilization: 0.9\n",
    "model: m\nport: 9513\ngpu_memory_utilization: 0.3\ntokenizer_mode: mistral\n",
    "# vllm serve --config this\ntensor-parallel-size: 2\nmax-num-seqs: 64\n",
    # one key in five may be something else (a comment-like extra key)
    "model: m\nmax-model-len: 1\ndtype: half\nenforce-eager: true\nnotes: x\n",
])
def test_a_file_of_serve_options_is_a_vllm_config(text: str) -> None:
    assert vllm_config_by_content(text.encode())
    assert kind_of("settings.yaml", text.encode()) == "vllm-config"


@pytest.mark.parametrize("text", [
    "model: resnet50\nseed: 1\n",                                  # no multi-word vLLM option
    "host: 0.0.0.0\nport: 8000\n",                                 # generic server settings
    "max-model-len: 8192\n",                                       # one key only
    "model: m\nmax-model-len: 1\nbatch_size: 8\nlr: 0.1\nepochs: 3\n",  # mostly not vLLM's
    "api-key: x\nlog-level: debug\n",                              # generic multi-word names
    "name: ci\non: push\njobs:\n  x:\n    runs-on: ubuntu\n",      # another kind of YAML
    "apiVersion: v1\nkind: ConfigMap\ndata:\n  max-model-len: '1'\n  model: m\n",
])
def test_other_yaml_is_not_claimed(text: str) -> None:
    assert kind_of("settings.yaml", text.encode()) != "vllm-config"


def test_nested_keys_do_not_count() -> None:
    text = "training:\n  model: m\n  max-model-len: 1\n  tensor-parallel-size: 2\n"
    assert not vllm_config_by_content(text.encode())


def test_too_many_top_level_keys_are_not_read() -> None:
    text = "".join(f"max-model-len{i}: 1\n" for i in range(600)) + "model: m\n"
    assert not vllm_config_by_content(text.encode())


def test_a_file_claimed_by_content_is_read_as_its_settings() -> None:
    text = "model: m\nmax-model-len: 8192\nenforce-eager: true\n"
    (found,) = extract("settings.yaml", text)
    assert [t.text for t in found.args] == ["--model", "m", "--max-model-len", "8192",
                                            "--enforce-eager"]


def test_a_config_mounted_into_the_container_is_the_launchs_config(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "config.yaml").write_text("max-num-seqs: 16k\nserved-model-name: chat\n", "utf-8")
    (tmp_path / "docker-compose.yml").write_text(
        "services:\n  vllm:\n    image: vllm/vllm-openai:v0.21.0\n"
        "    volumes:\n      - ./config.yaml:/app/config.yaml:ro\n"
        "    command: [\"--model\", \"org/m\", \"--config\", \"/app/config.yaml\"]\n", "utf-8")
    report = lint([str(tmp_path)], Settings())
    seen = {(os.path.basename(f.path), f.code) for f in report.findings}
    # Read as the config of the compose launch (its release, 0.21.0), not as a launch with no
    # model before --served-model-name.
    assert ("config.yaml", "VL203") in seen and ("config.yaml", "VL108") not in seen
