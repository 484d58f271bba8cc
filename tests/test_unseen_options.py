"""Which launches may set options vlint cannot see (issue 15): the rules that reason about an
absent option (VL501, VL403, VL307, the VL3xx bounds) stay silent on them."""

from __future__ import annotations

import pytest

from vlint.checks.unseen_options import may_set_unseen_options
from vlint.extract import extractor
from vlint.knowledge import catalog
from vlint.normalise import resolution


def _may(kind: str, text: str, path: str) -> bool:
    (invocation,) = extractor(kind).extract(path, text)
    return may_set_unseen_options(resolution.resolve(invocation, catalog.load(catalog.newest())))


@pytest.mark.parametrize("text", [
    "vllm serve $VLLM_ARGS\n",
    "vllm serve ${ARGS}\n",
    'vllm serve "${ARGS[@]}"\n',
    "vllm serve m --port 8000 $EXTRA_ARGS\n",
    "python -m vllm.entrypoints.openai.api_server --model m $EXTRA\n",
])
def test_an_unresolved_word_that_may_hold_options(text: str) -> None:
    assert _may("shell", text, "run.sh")


@pytest.mark.parametrize("text", [
    "vllm serve m --port 8000\n",
    'vllm serve "$MODEL" --port 8000\n',  # the model, beside options that are written
    "vllm serve --model $MODEL --host $HOST\n",  # values of options
    "vllm serve m --served-model-name=$NAME\n",
])
def test_unresolved_values_leave_the_other_options_known(text: str) -> None:
    assert not _may("shell", text, "run.sh")


def test_python_unpacked_keywords_may_hold_any() -> None:
    assert _may("python", "from vllm import LLM\nLLM(model='m', **options)\n", "a.py")
    assert not _may("python", "from vllm import LLM\nLLM(model='m', max_num_seqs=8)\n", "a.py")


def test_a_vllm_config_file_is_completed_by_the_command_that_loads_it() -> None:
    # `vllm serve --config vllm-config.yaml --api-key ...`: the file is only part of the launch.
    assert _may("vllm-config", "model: m\nhost: 0.0.0.0\nport: 8000\n", "vllm-config.yaml")
