from __future__ import annotations

import pathlib

from vlint.extract.config_refs import referenced
from vlint.extract.vllm_config import claims, extract, read
from vlint.engine.lint import lint
from vlint.settings import Settings
from vlint.model import Pos, Span


def test_claims_by_name_only_for_plain_config_yaml() -> None:
    assert claims("deploy/vllm-config.yaml", b"max-num-seqs: 8\n")
    assert claims("vllm.yml", b"max-num-seqs: 8\n")
    assert not claims("deploy/vllm-config.yaml", b"apiVersion: v1\nkind: ConfigMap\n")
    assert not claims("config.yaml", b"max-num-seqs: 8\n")


def test_keys_become_arguments_as_load_config_file_makes_them() -> None:
    text = (
        "max-num-seqs: 8\n"
        "enforce-eager: true\n"
        "enable-chunked-prefill: false\n"
        "async-scheduling: on\n"
        "api-key: [a, b]\n"
        "compilation-config:\n  mode: 3\n"
        "max-model-len: 0x10\n"
        "served-model-name: 'x'\n"
    )
    found = read("c.yaml", text, entry="serve")
    assert found is not None
    assert [t.text for t in found.args] == [
        "--max-num-seqs", "8", "--enforce-eager", "--async-scheduling", "--api-key", "a", "b",
        "--compilation-config", '{"mode": 3}', "--max-model-len", "16",
        "--served-model-name", "x",
    ]
    assert found.args[0].span == Span(Pos(1, 1), Pos(1, 13))
    assert found.args[1].span == Span(Pos(1, 15), Pos(1, 16))
    assert found.args[8].span == Span(Pos(7, 3), Pos(8, 1))
    assert found.args[10].span == Span(Pos(8, 16), Pos(8, 20))
    assert found.args[12].span == Span(Pos(9, 21), Pos(9, 22))
    (false_key,) = found.config_false
    assert false_key.text == "enable-chunked-prefill"
    assert false_key.span == Span(Pos(3, 1), Pos(3, 23))


def test_file_without_serve_keys_is_not_a_config() -> None:
    assert extract("vllm_config.yaml", "temperature: 0.3\nmax_tokens: 5\n") == []
    assert extract("vllm_config.yaml", "- a\n") == []


def test_referenced_config_is_linted_with_the_invocation(tmp_path: pathlib.Path) -> None:
    (tmp_path / "run.sh").write_text("vllm serve m --config conf/engine.yaml\n")
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "engine.yaml").write_text("max-num-batched-tokens: 16k\n")
    report = lint([str(tmp_path / "run.sh")], Settings(target="0.32.0"))
    (finding,) = report.findings
    assert finding.code == "VL202"
    assert finding.path == str(tmp_path / "conf" / "engine.yaml")
    assert finding.span == Span(Pos(1, 25), Pos(1, 28))


def test_referenced_path_is_relative_to_the_referrer() -> None:
    (found,) = extract("vllm-config.yaml", "config: other.yaml\nmax-num-seqs: 1\n")
    assert referenced(found, "a/b/vllm-config.yaml") == "a/b/other.yaml"
