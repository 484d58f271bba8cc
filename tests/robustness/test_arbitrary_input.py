"""Arbitrary text and bytes never crash vlint: each extractor raises nothing but ``Unparsable``
(which the pipeline turns into VL002), and the pipeline, from the bytes of a file on disk to the
filtered findings, always returns a report."""

from __future__ import annotations

import os
import tempfile

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from tests.robustness.robust_support import KINDS, examples, run_pipeline

from vlint.knowledge import catalog
from vlint.extract import extractor
from vlint.errors import Unparsable
from vlint.engine.lint import lint
from vlint.settings import Settings
from vlint.model import Finding

BOUNDED = settings(max_examples=examples(60), deadline=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Pieces of every host syntax, so random texts reach deep into each parser.
FRAGMENTS = (
    "vllm serve ", "vllm", "serve", " m", " --max-model-len", " 16k", " 8K", "=", " --port 8000",
    " --hf-overrides ", '{"a": ', "}", "[", "]", "\\\n", "\n", "\r\n", "\t", "  ", "'", '"', "`",
    "$(", ")", "${VAR:-8}", "$VAR", "#", " # vlint: disable=VL202", "&&", "|", ";",
    "python -m vllm.entrypoints.openai.api_server", "exec ", "sh -c ", "<<EOF\n", "EOF\n",
    "services:\n", "  vllm:\n", "    image: vllm/vllm-openai:v0.10.1\n", "    command: ",
    "    entrypoint: ", "      - ", "apiVersion: v1\n", "kind: Pod\n", "spec:\n",
    "  containers:\n", "  - name: x\n", "    args: ", "    env:\n", "$(X)", "{{ .Values.x }}",
    "{{- if .Values.y }}", "{{ end }}", "vllmConfig:\n  extraArgs: ", "engine: VLLM\n",
    "&a ", "*a", "<<: *a", "!!python/object/apply:os.system ['true']", "!!binary ", "|\n", ">-\n",
    "---\n", "...\n", "? ", ": ", "- ", "```bash\n", "```\n", "```yaml\n", "```python\n",
    "```console\n$ ", "> ", "1. ", "FROM vllm/vllm-openai:latest\n", "FROM python:3.11 AS b\n",
    "ARG V=1\n", "ENV A=b\n", 'ENTRYPOINT ["vllm", "serve"]\n', "CMD [", "CMD ", "RUN ",
    "[Service]\n", "ExecStart=", "Environment=A=b\n", "-@+!:", "%h", "#SBATCH -N 1\n", "srun ",
    "from vllm import LLM\n", "import vllm as v\n", "LLM(", "model=", "**{", "max_model_len=",
    "EngineArgs(", "subprocess.run([", "shell=True", "jobs:\n  a:\n    runs-on: x\n    steps:\n",
    "      - run: ", "setup: ", "run: ", "commands:\n", "type: task\n", "resources:\n",
    "max-model-len: ", "max_num_seqs: ", "true", "false", "null", "~", "0x1F", "1e9", "-1",
    "\x00", "\ufeff", "\u2028", "\x85", "\U0001f600",
)
# Texts reach the extractors decoded strictly from UTF-8 (standard input too: see
# test_undecodable_standard_input), so they never hold lone surrogates.
VALID = st.characters(codec="utf-8")
TEXTS = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(VALID, max_size=6)), max_size=40
).map("".join)


def _never_raises_but_unparsable(kind: str, text: str) -> None:
    try:
        invocations = extractor(kind).extract("robust.txt", text)
    except Unparsable as problem:
        assert problem.where.line >= 1 and problem.where.column >= 1
    else:
        assert isinstance(invocations, list)
    findings = run_pipeline(kind, text)
    assert all(isinstance(finding, Finding) for finding in findings)


@pytest.mark.parametrize("kind", KINDS)
@BOUNDED
@given(text=TEXTS)
@example(text="vllm serve m --max-model-len " + "1" * 400 + "k\n")
@example(text="vllm serve m --max-model-len " + "9" * 5000 + "K\n")
@example(text="vllm serve m --max-model-len 17" + "0" * 295 + "t\n")  # 17...T overflows a float
@example(text="vllm serve m --max-num-batched-tokens " + "9" * 4299 + "T --max-model-len 4096 "
         "--max-num-seqs " + "9" * 4300 + "\n")  # a bound's product past int -> str's limit
@example(text="vllm serve m --compilation-config '" + '{"a":' * 3000 + "'\n")
@example(text="from vllm import LLM\nLLM(m=" + "-" * 100_000 + "1)\n")
@example(text="import vllm\nvllm" + ".b" * 50_000 + "(1)\n")
@example(text="FROM vllm\nCMD vllm serve m\n")
@example(text="a: " + "[" * 10_000 + "\n")
def test_any_text_gives_findings_or_vl002(kind: str, text: str) -> None:
    _never_raises_but_unparsable(kind, text)


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=examples(25), deadline=None)
@given(text=st.text(VALID))
def test_unstructured_text(kind: str, text: str) -> None:
    _never_raises_but_unparsable(kind, "vllm serve " + text)


NAMES = ("serve.sh", "compose.yaml", "deployment.yaml", "values.yaml", "Dockerfile",
         "README.md", "launch.py", "vllm.service", "vllm-config.yaml", "job.sbatch", "action.yml",
         "noext")


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(NAMES),
       data=st.one_of(TEXTS.map(lambda t: t.encode("utf-8")),
                      st.binary(max_size=200).map(lambda b: b"vllm serve " + b)))
def test_any_bytes_in_any_file_name(name: str, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, name)
        with open(path, "wb") as handle:
            handle.write(data)
        report = lint([path], Settings(target=str(catalog.newest())))
    assert report.files == 1
    assert all(isinstance(finding, Finding) for finding in report.findings)


def test_undecodable_standard_input(capsys: pytest.CaptureFixture[str]) -> None:
    """Python reads undecodable standard input as lone surrogates under a C locale."""
    data = b"vllm serve m --max-model-len 16k \xff\xfe\n"
    undecodable = data.decode("utf-8", "surrogateescape")
    for name in NAMES:
        report = lint(["-"], Settings(target=str(catalog.newest()), stdin_text=undecodable,
                                      stdin_filename=name))
        assert report.findings == []
        assert report.notes in ([], [f"{name}: skipped (not UTF-8)"])
        if name == "serve.sh":
            assert report.notes == ["serve.sh: skipped (not UTF-8)"]


SEGFAULT = """
import sys
from vlint.extract.shell import extract
for text in sys.argv[1:]:
    for _ in range(100):
        extract("serve.sh", text)
"""


def test_characters_that_crashed_tree_sitter_bash() -> None:
    """tree-sitter-bash 0.25 read past its input after "{" and some characters beyond U+FFFF
    (found by test_unstructured_text): a segmentation fault, so this runs in a subprocess."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    texts = ["{\U000e0001", "{\U0010ffff", "\u0209{\U0008c5cc\u04ff", "{\U000ce6f6",
             "vllm serve m {\U000e0001", "vllm serve {\U0010ffff"]
    env = {**os.environ, "PYTHONPATH": f"{root / 'linter'}{os.pathsep}{root / 'rules'}"}
    result = subprocess.run([sys.executable, "-c", SEGFAULT, *texts], env=env, timeout=120,
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, (result.returncode, result.stderr[-2000:])
