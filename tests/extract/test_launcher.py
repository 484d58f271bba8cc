from __future__ import annotations

import pathlib

import pytest

from vlint.errors import Unparsable
from vlint.extract.launcher import claims, extract
from vlint.model import Pos, Span

CORPUS = pathlib.Path("/work/shared/corpus/real/h_launcher")


def test_claims() -> None:
    assert claims("repo/.github/workflows/ci.yml", b"on: push\n")
    assert claims("x/action.yml", b"name: a\nruns:\n  using: composite\n")
    assert claims("task.yaml", b"resources:\n  cpus: 2\nrun: vllm serve m\n")
    assert claims("svc.dstack.yml", b"type: service\ncommands:\n  - vllm serve m\n")
    assert not claims("values.yaml", b"image: vllm/vllm-openai\nrun: x\n")


def test_workflow_block_scalar_positions() -> None:
    text = (
        "jobs:\n  a:\n    runs-on: x\n    steps:\n      - run: |\n"
        "          vllm serve m \\\n            --max-num-seqs 8\n"
    )
    (found,) = extract(".github/workflows/a.yml", text)
    assert found.kind == "launcher"
    assert found.anchor.start == Pos(6, 11)
    assert found.args[1].span == Span(Pos(7, 13), Pos(7, 27))


def test_dstack_each_command_item() -> None:
    text = "type: task\ncommands:\n  - echo hi\n  - vllm serve m --port 1\n  - 'vllm serve n'\n"
    first, second = extract("a.dstack.yml", text)
    assert first.args[1].span == Span(Pos(4, 18), Pos(4, 24))
    assert second.args[0].span == Span(Pos(5, 17), Pos(5, 18))


def test_skypilot_folded_run_and_setup() -> None:
    text = "resources:\n  cpus: 1\nsetup: pip install vllm\nrun: >\n  vllm serve m\n  --port 1\n"
    (found,) = extract("sky.yaml", text)
    assert [t.text for t in found.args] == ["m", "--port", "1"]
    assert found.args[1].span == Span(Pos(6, 3), Pos(6, 9))


def test_invalid_yaml_is_unparsable() -> None:
    with pytest.raises(Unparsable):
        extract("a.dstack.yml", "type: task\ncommands:\n  - a\n - b\n")


@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus not available")
def test_corpus_files_extract() -> None:
    counts = {p.name: len(extract(str(p), p.read_text("utf-8"))) for p in sorted(CORPUS.iterdir())}
    # The llama-stack composite action writes its arguments with `${{ ... }}` expressions (read
    # as unresolved words, issue 15): five launches in five files.
    assert sum(counts.values()) == 5


def test_dstack_image_tag_is_the_target() -> None:
    text = "type: service\nimage: vllm/vllm-openai:v0.32.0\ncommands:\n  - vllm serve m\n"
    (found,) = extract("a.dstack.yml", text)
    assert found.target == "0.32.0" and found.image is None


def test_a_service_container_of_a_vllm_image_is_a_launch_of_its_entry_point() -> None:
    text = (
        "jobs:\n  e2e:\n    runs-on: gpu\n    services:\n"          # 1-4
        "      vllm:\n        image: vllm/vllm-openai:v0.9.2\n"      # 5-6
        "        env:\n          VLLM_LOGGING_LEVEL: DEBUG\n"        # 7-8
        "          HF_TOKEN: ${{ secrets.HF_TOKEN }}\n"              # 9
        "      redis:\n        image: redis:7\n"                     # 10-11
        "      other:\n        image: ${{ matrix.image }}\n"         # 12-13
        "    steps:\n      - run: curl localhost:8000/health\n"
    )
    (found,) = extract(".github/workflows/e2e.yml", text)
    assert found.anchor == Span(Pos(6, 16), Pos(6, 39))
    assert found.target == "0.9.2" and found.entry == "api_server" and found.args == ()
    assert found.env["VLLM_LOGGING_LEVEL"].span == Span(Pos(8, 31), Pos(8, 36))
    assert not found.env["HF_TOKEN"].literal
