"""Differential test: the model-facts rules (VL610 tensor-parallel-splits-heads, VL611
max-model-len-above-model) against real vLLM's ``create_engine_config()`` on CPU.

Stand-in model folders (the cache's small Llama, with ``num_attention_heads`` and
``max_position_embeddings`` rewritten) sit in a temporary repository beside a script that
serves them; for every case and release, vlint's verdict (the rule fires or not) must be real
vLLM's (it refuses with the rule's message, or builds the configuration).  The cases are a
fixed grid over heads, tensor parallel sizes and lengths on both sides of the limit, so that
nothing was chosen to agree.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from vlint.engine.lint import lint
from vlint.settings import Settings

pytestmark = pytest.mark.differential

RELEASES = ("0.31.0", "0.32.0", "0.33.0")
# (heads, tensor parallel size): every size up to 8 for a count with few divisors and one with
# many.
HEADS = [(heads, size) for heads in (6, 12) for size in (1, 2, 3, 4, 5, 8)]
# (max_position_embeddings, the tokenizer's model_max_length, --max-model-len): below, at and
# above the limit, the config's or the tokenizer's.
LENGTHS = [(2048, 131072, 1024), (2048, 131072, 2048), (2048, 131072, 2049),
           (4096, 131072, 8192), (8192, 4096, 4096), (8192, 4096, 4097)]


def _model(root: Path, standin: str, name: str, **config: int) -> Path:
    folder = root / "models" / name
    shutil.copytree(standin, folder)
    path = folder / "config.json"
    data = json.loads(path.read_text("utf-8"))
    if "num_attention_heads" in config:
        heads = config["num_attention_heads"]
        # The stand-in's 32-wide heads: hidden size follows the heads, key/value heads too.
        data.update(num_attention_heads=heads, num_key_value_heads=heads, hidden_size=32 * heads)
    if "max_position_embeddings" in config:
        data["max_position_embeddings"] = config["max_position_embeddings"]
    path.write_text(json.dumps(data), "utf-8")
    if "model_max_length" in config:
        tokenizer = folder / "tokenizer_config.json"
        settings = json.loads(tokenizer.read_text("utf-8"))
        settings["model_max_length"] = config["model_max_length"]
        tokenizer.write_text(json.dumps(settings), "utf-8")
    return folder


def _vlint_fires(root: Path, release: str, code: str, argv: list[str]) -> bool:
    script = root / "serve.sh"
    script.write_text("vllm serve " + " ".join(argv) + "\n", "utf-8")
    report = lint([str(script)], Settings(target=release, select=(code,)))
    return any(f.code == code for f in report.findings)


def _real(real_vllm: Any, release: str, argv: list[str]) -> dict[str, Any]:
    result: dict[str, Any] = real_vllm.engine_config(release, argv)
    assert not result.get("probe_failure"), result
    return result


@pytest.mark.parametrize("release", RELEASES)
def test_heads_against_real_vllm(real_vllm: Any, release: str, tmp_path: Path) -> None:
    if release not in real_vllm.releases():
        pytest.skip(f"real vLLM {release} not available")
    standin = real_vllm.standin_model()
    folders = {heads: _model(tmp_path, standin, f"heads{heads}", num_attention_heads=heads)
               for heads in {h for h, _ in HEADS}}
    disagreements = []
    for heads, size in HEADS:
        argv = [str(folders[heads]), "--tensor-parallel-size", str(size)]
        refused = "must be divisible by tensor parallel size" in str(
            _real(real_vllm, release, argv).get("error", ""))
        if refused != _vlint_fires(tmp_path, release, "VL610", argv):
            disagreements.append((heads, size, refused))
    assert disagreements == []


@pytest.mark.parametrize("release", RELEASES)
def test_max_model_len_against_real_vllm(real_vllm: Any, release: str, tmp_path: Path) -> None:
    if release not in real_vllm.releases():
        pytest.skip(f"real vLLM {release} not available")
    standin = real_vllm.standin_model()
    disagreements = []
    for index, (limit, tokenizer, length) in enumerate(LENGTHS):
        folder = _model(tmp_path, standin, f"len{index}", max_position_embeddings=limit,
                        model_max_length=tokenizer)
        argv = [str(folder), "--max-model-len", str(length)]
        result = _real(real_vllm, release, argv)
        refused = "is greater than the derived max_model_len" in str(result.get("error", ""))
        assert refused or result["ok"], (argv, result.get("error"))
        if refused != _vlint_fires(tmp_path, release, "VL611", argv):
            disagreements.append((limit, length, refused))
    assert disagreements == []
