"""Model folders of the repository: read through the launch's mounts, confined to the linted
roots, bounded, and never for a Hugging Face id."""

from __future__ import annotations

import json
import os
from pathlib import Path

from vlint.extract import compose, model_files, shell
from vlint.model import Invocation

CONFIG = {"num_attention_heads": 6, "max_position_embeddings": 8192}


def _folder(root: Path, name: str, config: object = CONFIG) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(config), "utf-8")
    return folder


def _attached(path: Path, text: str) -> Invocation:
    path.write_text(text, "utf-8")
    reader = compose if path.name.endswith(".yml") else shell
    (launch,) = reader.extract(str(path), text)
    return model_files.attach(launch, str(path))


def test_a_relative_folder_of_a_script(tmp_path: Path) -> None:
    _folder(tmp_path, "models/m")
    launch = _attached(tmp_path / "run.sh", "vllm serve ./models/m\n")
    facts = launch.local_models["./models/m"]
    assert (facts.config, facts.attention_heads, facts.max_length) == (
        os.path.join("models", "m", "config.json"), 6, ("max_position_embeddings", 8192))


def test_a_container_path_through_its_mount_and_not_without(tmp_path: Path) -> None:
    _folder(tmp_path, "weights/m")
    mounted = ("services:\n  v:\n    image: vllm/vllm-openai:v0.33.0\n"
               "    volumes: ['./weights:/models']\n    command: ['/models/m']\n")
    assert "/models/m" in _attached(tmp_path / "docker-compose.yml", mounted).local_models
    baked = mounted.replace("    volumes: ['./weights:/models']\n", "")
    assert _attached(tmp_path / "docker-compose.yml", baked).local_models == {}


def test_an_id_is_never_looked_up(tmp_path: Path) -> None:
    _folder(tmp_path, "Qwen/Qwen3-8B")
    assert _attached(tmp_path / "run.sh", "vllm serve Qwen/Qwen3-8B\n").local_models == {}


def test_a_config_outside_the_roots_is_not_read(tmp_path: Path) -> None:
    outside = _folder(tmp_path, "outside/m")
    repository = tmp_path / "repo"
    (repository / ".git").mkdir(parents=True)
    (repository / "models").mkdir()
    (repository / "models" / "m").symlink_to(outside)
    launch = _attached(repository / "run.sh", "vllm serve ./models/m\n")
    assert launch.local_models == {}
    direct = _attached(repository / "run.sh", f"vllm serve {outside}\n")
    assert direct.local_models == {}


def test_a_huge_or_broken_config_gives_nothing(tmp_path: Path) -> None:
    big = _folder(tmp_path, "big", {"pad": "x" * (model_files.MAX_CONFIG_SIZE + 1)})
    _folder(tmp_path, "list", [1, 2])
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "config.json").write_text("{", "utf-8")
    for name in (big.name, "list", "broken"):
        assert _attached(tmp_path / "run.sh", f"vllm serve ./{name}\n").local_models == {}


def test_only_certain_facts_are_kept(tmp_path: Path) -> None:
    _folder(tmp_path, "vl", {"text_config": {"num_attention_heads": 40},
                             "max_position_embeddings": 4096})
    _folder(tmp_path, "bool", {"num_attention_heads": True, "seq_length": 0})
    vl = _attached(tmp_path / "run.sh", "vllm serve ./vl\n").local_models["./vl"]
    assert (vl.attention_heads, vl.max_length) == (40, None)
    odd = _attached(tmp_path / "run.sh", "vllm serve ./bool\n").local_models["./bool"]
    assert (odd.attention_heads, odd.max_length) == (None, None)
