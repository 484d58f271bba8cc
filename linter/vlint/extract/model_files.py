"""Model folders kept in the repository: what their ``config.json`` says, for the launches that
serve them (``Invocation.local_models``).

A launch's words that name a local folder are its candidates: a word starting with ``/``,
``./`` or ``../`` (a model given as a Hugging Face id is never looked up: no network, ever).
A path inside a container is followed through the launch's bind mounts to the host
(``./models:/models`` and ``--model /models/m``); a container path no mount maps is the image's
and is not read.  A relative path is read from the linted file's folder.  The folder's
``config.json`` is read only inside the linted roots (``discover.confined_read``), at most ``MAX_CONFIG_SIZE`` bytes each, for at most
``MAX_CANDIDATES`` words of a launch; a file that cannot be read or parsed gives no facts.

Two facts are kept, each only where vLLM's reading of it is certain:

- the text model's ``num_attention_heads`` (top level, or ``text_config``'s for a model with
  one), which ``ModelConfig.verify_with_parallel_config`` divides by the tensor parallel size;
- the maximum length: the one key of vLLM's list that the config has
  (``max_position_embeddings``, ``n_positions``, ``max_seq_len``, ``seq_length``,
  ``model_max_length``, ``max_target_positions``, ``max_sequence_length``,
  ``max_seq_length``, ``seq_len``; ``vllm/transformers_utils/model_arch_config_convertor.py``
  ``derive_max_model_len_and_key``), for a config with no RoPE scaling and no sub-configs
  (either changes the derivation, ``vllm/config/model.py`` ``_get_and_verify_max_len``), and
  none of absolute position embeddings (for a pooling model with them vLLM also takes its
  tokenizer config's ``model_max_length``, ``ModelConfig.get_and_verify_max_len``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from vlint.discover import Refused, confined_read, linted_roots
from vlint.extract.deployment import mounted
from vlint.model import Invocation, ModelFacts

MAX_CONFIG_SIZE = 1 << 20
MAX_CANDIDATES = 8
_LENGTH_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length",
                "model_max_length", "max_target_positions", "max_sequence_length",
                "max_seq_length", "seq_len")
_SCALING_KEYS = ("rope_scaling", "rope_parameters")
_SUB_CONFIGS = ("text_config", "llm_config", "language_config", "thinker_config")


def attach(invocation: Invocation, linted: str) -> Invocation:
    """``invocation`` with the facts of the model folders its words name."""
    words = [token.text for token in invocation.args if token.literal]
    words += [keyword.value for keyword in invocation.keywords
              if keyword.literal and isinstance(keyword.value, str)]
    candidates = [word for word in words if word.startswith(("/", "./", "../"))]
    if not candidates:
        return invocation
    found: dict[str, ModelFacts] = {}
    for word in candidates[:MAX_CANDIDATES]:
        folder = _host_folder(invocation, linted, word)
        if folder is None:
            continue
        facts = _facts(os.path.abspath(linted), folder)
        if facts is not None:
            found[word] = facts
    return replace(invocation, local_models=found) if found else invocation


def _host_folder(invocation: Invocation, linted: str, word: str) -> str | None:
    """Where on the host the folder ``word`` of the launch is, or None when not known."""
    facts = invocation.deployment
    containerised = facts.image is not None or facts.container is not None
    if word.startswith("/"):
        host = mounted(facts.volumes, word)
        if host is None:
            return None if containerised else word
        word = host
    if os.path.isabs(word):
        return os.path.normpath(word)
    return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(linted)), word))


def _facts(linted: str, folder: str) -> ModelFacts | None:
    """The folder's facts, read again when its files change (a long-lived process, ``--fix``
    rounds)."""
    try:
        status = os.stat(os.path.join(folder, "config.json"))
    except (OSError, ValueError):
        return None
    return _read(linted, folder, (status.st_dev, status.st_ino, status.st_size,
                                  status.st_mtime_ns))


@lru_cache(maxsize=64)
def _read(linted: str, folder: str, stamp: tuple[int, int, int, int]) -> ModelFacts | None:
    roots = linted_roots([linted])
    config = _json(os.path.join(folder, "config.json"), roots)
    if config is None:
        return None
    shown = os.path.relpath(os.path.join(folder, "config.json"), os.path.dirname(linted))
    return ModelFacts(shown, _heads(config), _max_length(config))


def _json(path: str, roots: tuple[Path, ...]) -> Mapping[str, Any] | None:
    try:
        data = json.loads(confined_read(path, roots, MAX_CONFIG_SIZE).decode("utf-8"))
    except (Refused, OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 \
        else None


def _heads(config: Mapping[str, Any]) -> int | None:
    subs = [config[key] for key in _SUB_CONFIGS if isinstance(config.get(key), dict)]
    if len(subs) > 1:
        return None
    text = subs[0] if subs else config
    return _whole(text.get("num_attention_heads"))


def _max_length(config: Mapping[str, Any]) -> tuple[str, int] | None:
    if any(config.get(key) not in (None, {}) for key in _SCALING_KEYS):
        return None
    if config.get("position_embedding_type") == "absolute":
        return None  # a pooling model of this kind also takes its tokenizer's limit
    if any(isinstance(config.get(key), dict) for key in _SUB_CONFIGS):
        return None
    present = [key for key in _LENGTH_KEYS if key in config]
    if len(present) != 1:
        return None
    value = _whole(config[present[0]])
    return None if value is None else (present[0], value)
