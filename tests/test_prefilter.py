"""The byte prefilter: a file naming vLLM in any case of its ASCII letters is read (issue 15)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._support.files import write_tree
from vlint.discover import Source, linted_roots, prefilter
from vlint.engine.read import Counted, read
from vlint.settings import Settings

KSERVE = (
    "apiVersion: serving.kserve.io/v1beta1\n"
    "kind: InferenceService\n"
    "metadata:\n  name: llama\n"
    "spec:\n  predictor:\n    model:\n      modelFormat:\n        name: vLLM\n"
    "      args: [\"--swap-space\", \"4\"]\n"
)


@pytest.mark.parametrize(
    "data", [b"vllm", b"VLLM", b"vLLM", b"Vllm", b"x: VlLm\n", b"\xffvLLM\xfe"])
def test_any_case_of_the_name_passes(data: bytes) -> None:
    assert prefilter(data, "a.yaml")


@pytest.mark.parametrize("data", [b"", b"llm", b"v llm", b"v-llm", b"vl\nlm", b"\xc5\x82"])
def test_other_bytes_do_not(data: bytes) -> None:
    assert not prefilter(data, "a.yaml")


def test_non_ascii_letters_are_not_folded() -> None:
    # Only ASCII letters fold: a Kelvin sign or dotless i is not an ASCII letter of "vllm".
    assert not prefilter("\u212allm".encode(), "a.yaml")
    assert not prefilter("v\u0131lm".encode(), "a.yaml")


def test_the_file_name_still_counts() -> None:
    assert prefilter(b"model: m\n", "conf/VLLM-config.yaml")


def test_a_kserve_manifest_naming_vllm_only_in_mixed_case_is_read(tmp_path: Path) -> None:
    path = str(write_tree(tmp_path, {"isvc.yaml": KSERVE}) / "isvc.yaml")
    read_back = list(read([path], Settings(), linted_roots([path]), Counted()))
    assert [(s.path, s.kind) for s in read_back if isinstance(s, Source)] == [(path, "kubernetes")]
