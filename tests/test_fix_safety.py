"""Fixes never corrupt what the file does not hold as written.

1. A flag a chart or operator writes from a YAML key (``maxModelLen:`` becomes
   ``--max-model-len``) sits at the key but is not written there (``Token.unwritten``): no edit
   may replace the key with the flag.  A vLLM ``--config`` file's key is the flag without its
   dashes: an edit renaming the flag renames the key.
2. A value whose closing quote is written as two characters (``\\"`` in a Python or JSON
   string, a YAML double-quoted scalar) ends before the whole escape, not inside it.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest
import yaml

from vlint.checks.base import Context
from vlint.cli import main
from vlint.discover import kind_of
from vlint.extract import extractor
from vlint.knowledge import catalog
from vlint.model import Edit, Fix, Invocation, LineIndex, Pos, Span, Token
from vlint.normalise import resolution
from vlint.syntax import yamlpos

# Every shape whose extractor writes flags (or keyword names) that the file does not hold.
SHAPES = [
    ("production-stack", "values.yaml",
     "servingEngineSpec:\n"
     "  containerPort: 8080\n"
     "  modelSpec:\n"
     "  - name: llama\n"
     "    repository: vllm/vllm-openai\n"
     "    tag: v0.33.0\n"
     "    modelURL: meta-llama/Llama-3.1-8B-Instruct\n"
     "    enableLoRA: true\n"
     "    chatTemplate: tool.jinja\n"
     "    vllmConfig:\n"
     "      enableChunkedPrefill: false\n"
     "      maxModelLen: 4096\n"
     "      gpuMemoryUtilization: 0.9\n"
     "      extraArgs: ['--max-num-seqs', '8']\n"
     "  - name: ray\n"
     "    repository: vllm/vllm-openai\n"
     "    tag: v0.33.0\n"
     "    modelURL: Qwen/Qwen2.5-0.5B-Instruct\n"
     "    raySpec:\n"
     "      enabled: true\n"
     "    vllmConfig:\n"
     "      tensorParallelSize: 2\n"
     "      pipelineParallelSize: 2\n"),
    ("vllm-runtime", "runtime.yaml",
     "apiVersion: production-stack.vllm.ai/v1alpha1\n"
     "kind: VLLMRuntime\n"
     "metadata:\n"
     "  name: llama\n"
     "spec:\n"
     "  model:\n"
     "    modelURL: meta-llama/Llama-3.1-8B-Instruct\n"
     "    maxModelLen: 4096\n"
     "    enableTool: true\n"
     "  vllmConfig:\n"
     "    enableChunkedPrefill: false\n"
     "    tensorParallelSize: 1\n"
     "    port: 8000\n"
     "  deploymentConfig:\n"
     "    image:\n"
     "      registry: docker.io\n"
     "      name: vllm/vllm-openai:v0.33.0\n"),
    ("kserve", "llmisvc.yaml",
     "apiVersion: serving.kserve.io/v1alpha1\n"
     "kind: LLMInferenceService\n"
     "metadata:\n"
     "  name: qwen\n"
     "spec:\n"
     "  model:\n"
     "    uri: hf://Qwen/Qwen2.5-0.5B-Instruct\n"
     "  parallelism:\n"
     "    tensor: 2\n"
     "    dataLocal: 2\n"
     "    expert: true\n"
     "  template:\n"
     "    containers:\n"
     "    - name: main\n"
     "      image: vllm/vllm-openai:v0.33.0\n"),
    ("modelservice", "values.yaml",
     "modelArtifacts:\n"
     "  uri: hf://Qwen/Qwen3-0.6B\n"
     "  name: qwen3\n"
     "routing:\n"
     "  proxy:\n"
     "    targetPort: 8200\n"
     "decode:\n"
     "  parallelism:\n"
     "    tensor: 4\n"
     "  containers:\n"
     "  - name: vllm\n"
     "    image: ghcr.io/llm-d/llm-d-cuda:v0.3.0\n"
     "    modelCommand: vllmServe\n"
     "    args: [--max-model-len, '4096']\n"),
    ("ray-serve-yaml", "serve_config.yaml",
     "applications:\n"
     "- name: llm\n"
     "  import_path: ray.serve.llm:build_openai_app\n"
     "  args:\n"
     "    llm_configs:\n"
     "    - model_loading_config:\n"
     "        model_id: qwen\n"
     "        model_source: Qwen/Qwen2.5-0.5B-Instruct\n"
     "      deployment_config:\n"
     "        autoscaling_config: {min_replicas: 1}\n"
     "      engine_kwargs:\n"
     "        max_model_len: 4096\n"),
    ("ray-serve-python", "serve_llm.py",
     "from ray.serve.llm import LLMConfig, build_openai_app\n"
     "config = LLMConfig(\n"
     "    model_loading_config=dict(model_id='qwen', model_source='Qwen/Qwen2.5-0.5B'),\n"
     "    engine_kwargs=dict(max_model_len=4096),\n"
     ")\n"
     "app = build_openai_app({'llm_configs': [config]})\n"),
    ("python-llm-positional-model", "offline.py",
     "from vllm import LLM\n"
     "llm = LLM('facebook/opt-125m', max_model_len=2048)\n"),
    ("vllm-config", "vllm_config.yaml",
     "model: meta-llama/Llama-3.1-8B-Instruct\n"
     "max-model-len: 4096\n"
     "'enable-prefix-caching': true\n"
     "served_model_name: [llama]\n"
     "override-generation-config: {temperature: 0.5}\n"),
]


def _launches(name: str, text: str) -> list[Invocation]:
    kind = kind_of(name, text.encode("utf-8"))
    assert kind is not None, name
    found = extractor(kind).extract(name, text)
    assert found, f"{name}: no launch read"
    return found


def _at(text: str, span: Span) -> str:
    starts = LineIndex.of(text).starts

    def offset(pos: Pos) -> int:
        return starts[pos.line - 1] + pos.column - 1

    return text[offset(span.start) : offset(span.end)]


def _words(invocation: Invocation) -> list[Token]:
    return [*invocation.args, *(keyword.name for keyword in invocation.keywords)]


@pytest.mark.parametrize(("name", "text"), [pytest.param(n, t, id=i) for i, n, t in SHAPES])
def test_every_word_is_written_where_it_points_except_its_unwritten_part(
    name: str, text: str
) -> None:
    # The fixtures write every value plainly, so what the file holds at a word's written part
    # is that part's text; a flag a template writes is unwritten, all of it or its dashes.
    synthesized = 0
    for invocation in _launches(name, text):
        for word in _words(invocation):
            written = word.text[word.unwritten :]
            assert _at(text, word.sub_span(word.unwritten)) == written, (name, word)
            synthesized += word.unwritten > 0
    assert synthesized, f"{name}: no synthesized word"


def _contexts(name: str, text: str) -> list[Context]:
    release = catalog.load(catalog.newest())
    return [Context(resolution.resolve(launch, release)) for launch in _launches(name, text)]


def _replacing(word: Token, replacement: str) -> Fix:
    return Fix("replace", (Edit(word.sub_span(0), replacement),), safe=True)


@pytest.mark.parametrize(("name", "text"), [pytest.param(n, t, id=i) for i, n, t in SHAPES])
def test_no_fix_edits_a_synthesized_word(name: str, text: str) -> None:
    for context in _contexts(name, text):
        for word in _words(context.resolution.invocation):
            fix = _replacing(word, word.text[: word.unwritten] + "max-num-seqs")
            kept = context.applicable(fix)
            if word.unwritten == len(word.text):  # written by a template: never edited
                assert kept is None, word
            elif word.unwritten == 0:  # written in the file: edited as it is
                assert kept == fix, word
            else:  # the producer writes a prefix (``--``, ``/templates/``): the rest is edited
                assert kept is not None, word
                (edit,) = kept.edits
                assert edit == Edit(word.sub_span(0), "max-num-seqs")
                assert _at(text, edit.span) == word.text[word.unwritten :]


def test_an_edit_across_a_synthesized_word_is_dropped_and_one_beside_it_kept() -> None:
    _, name, text = SHAPES[0]
    context = _contexts(name, text)[0]
    args = context.resolution.invocation.args
    flag = next(word for word in args if word.text == "--max-model-len")
    value = args[args.index(flag) + 1]
    assert value.text == "4096" and not value.unwritten
    whole = Fix("remove", (Edit(Span(flag.span.start, value.span.end), ""),), safe=False)
    assert context.applicable(whole) is None
    inside = Fix("insert", (Edit(Span(flag.pos(0), flag.pos(0)), "x"),), safe=False)
    assert context.applicable(inside) == inside  # at the key's start: before it, not in it
    beside = _replacing(value, "8192")
    assert context.applicable(beside) == beside


def test_a_config_rename_whose_replacement_is_not_a_name_is_dropped() -> None:
    _, name, text = SHAPES[-1]
    (context,) = _contexts(name, text)
    flag = next(w for w in context.resolution.invocation.args if w.text == "--max-model-len")
    assert context.applicable(_replacing(flag, "--max-model-len=8192")) is None
    assert context.applicable(_replacing(flag, "--a: b")) is None


def _no_flag_keys(data: Any) -> None:
    if isinstance(data, dict):
        for key, value in data.items():
            assert not str(key).startswith("-"), key
            _no_flag_keys(value)
    elif isinstance(data, list):
        for item in data:
            _no_flag_keys(item)


# (id, file name, before, after, options): ``--fix --unsafe-fixes`` on a copy.
FIXED = [
    ("vllm-config-renames-keys", "vllm_config.yaml",
     "model: meta-llama/Llama-3.1-8B-Instruct\n"
     "max-context-len-to-capture: 8192\n"
     "max-model: 4096\n",
     "model: meta-llama/Llama-3.1-8B-Instruct\n"
     "max-seq-len-to-capture: 8192\n"
     "max-model-len: 4096\n",
     ["--target-version", "0.10.0"]),
    ("vllm-config-quoted-key", "vllm_config.yaml",
     "model: m\n\"max-context-len-to-capture\": 8192\n",
     "model: m\n\"max-seq-len-to-capture\": 8192\n",
     ["--target-version", "0.10.0"]),
    ("production-stack-extra-args-only", "values.yaml",
     "servingEngineSpec:\n"
     "  modelSpec:\n"
     "  - name: llama\n"
     "    repository: vllm/vllm-openai\n"
     "    tag: v0.33.0\n"
     "    modelURL: meta-llama/Llama-3.1-8B-Instruct\n"
     "    vllmConfig:\n"
     "      maxNumSeqs: 8\n"
     "      extraArgs: ['--max-model', '4096']\n",
     "servingEngineSpec:\n"
     "  modelSpec:\n"
     "  - name: llama\n"
     "    repository: vllm/vllm-openai\n"
     "    tag: v0.33.0\n"
     "    modelURL: meta-llama/Llama-3.1-8B-Instruct\n"
     "    vllmConfig:\n"
     "      maxNumSeqs: 8\n"
     "      extraArgs: ['--max-model-len', '4096']\n",
     []),
    ("ray-serve-engine-kwarg-key", "serve_config.yaml",
     SHAPES[4][2].replace("max_model_len", "max_modle_len"),
     SHAPES[4][2],
     []),
]


def _fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str,
         options: list[str]) -> str:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    monkeypatch.chdir(tmp_path)
    main(["--fix", "--unsafe-fixes", *options, name])
    return path.read_text("utf-8")


@pytest.mark.parametrize(("name", "before", "after", "options"),
                         [pytest.param(*f[1:], id=f[0]) for f in FIXED])
def test_fixes_in_yaml_shapes_rename_keys_and_keep_valid_yaml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, before: str, after: str,
    options: list[str],
) -> None:
    fixed = _fix(tmp_path, monkeypatch, name, before, options)
    assert fixed == after
    _no_flag_keys(yaml.safe_load(fixed))


@pytest.mark.parametrize(("name", "text"), [pytest.param(n, t, id=i) for i, n, t in SHAPES])
def test_fixing_every_shape_never_writes_a_flag_into_a_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str
) -> None:
    for target in ("0.6.3", "0.10.0", "0.33.0"):
        fixed = _fix(tmp_path, monkeypatch, name, text, ["--target-version", target])
        if name.endswith(".yaml"):
            _no_flag_keys(yaml.safe_load(fixed))
        assert fixed == text or name == "vllm_config.yaml", target


# A value whose closing quote is an escape: VL206's fix replaces the whole word, and the
# shell quote around it stays balanced.
ESCAPED = [
    ("python-string", "launch.py",
     'import os\nos.system("vllm serve m \\"--enable-chunked-prefill=false\\"")\n',
     'import os\nos.system("vllm serve m \\"--disable-chunked-prefill\\"")\n'),
    ("python-single-quoted", "launch.py",
     "import os\nos.system('vllm serve m \\'--enable-chunked-prefill=false\\'')\n",
     "import os\nos.system('vllm serve m \\'--disable-chunked-prefill\\'')\n"),
    ("notebook-shell-line", "run.ipynb",
     '{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], '
     '"execution_count": null,\n'
     '  "source": ["!vllm serve m \\"--enable-chunked-prefill=false\\"\\n"]}],\n'
     ' "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n',
     '{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], '
     '"execution_count": null,\n'
     '  "source": ["!vllm serve m \\"--disable-chunked-prefill\\"\\n"]}],\n'
     ' "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n'),
    ("notebook-python-string", "run.ipynb",
     '{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], '
     '"execution_count": null,\n'
     '  "source": ["import os\\n", '
     '"os.system(\\"vllm serve m \\\\\\"--enable-chunked-prefill=false\\\\\\"\\")\\n"]}],\n'
     ' "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n',
     '{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], '
     '"execution_count": null,\n'
     '  "source": ["import os\\n", '
     '"os.system(\\"vllm serve m \\\\\\"--disable-chunked-prefill\\\\\\"\\")\\n"]}],\n'
     ' "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n'),
    ("yaml-double-quoted-shell", "pod.yaml",
     "apiVersion: v1\nkind: Pod\nmetadata: {name: vllm}\nspec:\n  containers:\n"
     "  - name: vllm\n    image: vllm/vllm-openai:v0.33.0\n"
     '    command: ["/bin/sh", "-c", "vllm serve m \\"--enable-chunked-prefill=false\\""]\n',
     "apiVersion: v1\nkind: Pod\nmetadata: {name: vllm}\nspec:\n  containers:\n"
     "  - name: vllm\n    image: vllm/vllm-openai:v0.33.0\n"
     '    command: ["/bin/sh", "-c", "vllm serve m \\"--disable-chunked-prefill\\""]\n'),
    ("compose-command-string", "docker-compose.yml",
     "services:\n  llm:\n    image: vllm/vllm-openai:v0.33.0\n"
     '    command: "m \\"--enable-chunked-prefill=false\\" --port 8000"\n',
     "services:\n  llm:\n    image: vllm/vllm-openai:v0.33.0\n"
     '    command: "m \\"--disable-chunked-prefill\\" --port 8000"\n'),
]


@pytest.mark.parametrize(("name", "before", "after"),
                         [pytest.param(*e[1:], id=e[0]) for e in ESCAPED])
def test_a_fix_before_an_escaped_closing_quote_keeps_the_quote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, before: str, after: str
) -> None:
    assert _fix(tmp_path, monkeypatch, name, before, ["--target-version", "0.33.0"]) == after


def test_a_yaml_value_ending_in_an_escape_keeps_the_whole_escape() -> None:
    # ``ab\/`` is ``ab/``: its last character is two characters of the file, and no closing
    # quote is part of the token's end.
    text = 'key: "ab\\/"\n'
    (document,) = yamlpos.parse_documents(text)
    ((_, node),) = yamlpos.mapping_items(document)
    assert yamlpos.is_scalar(node)
    token = yamlpos.scalar_token(yamlpos.SourceIndex(text), node)
    assert token.text == "ab/"
    assert _at(text, token.sub_span(0)) == "ab\\/"
    assert _at(text, token.sub_span(2)) == "\\/"


def test_a_located_token_trims_its_closing_quote_in_the_located_text() -> None:
    # The located text ``"ab"`` sits in a file as ``\"ab\"``: each quote takes two columns.
    columns = {0: 1, 1: 3, 2: 4, 3: 5, 4: 7}

    def locate(offset: int) -> Pos:
        return Pos(1, columns[offset])

    token = Token.at("ab", (1, 2, 4), locate)
    assert token.sub_span(0) == Span(Pos(1, 3), Pos(1, 5))
    assert token.sub_span(1) == Span(Pos(1, 4), Pos(1, 5))
    # No closing quote: a last character written as two columns keeps both.
    unquoted = Token.at("ab", (1, 2, 3), lambda offset: Pos(1, (1, 3, 4, 6)[offset]))
    assert unquoted.sub_span(0) == Span(Pos(1, 3), Pos(1, 6))


def test_unwritten_follows_slices_copies_and_moves() -> None:
    flag = Token("--max-model-len", (Pos(2, 1),) * 15 + (Pos(2, 12),), unwritten=2)
    assert flag.slice(1).unwritten == 1 and flag.slice(2).unwritten == 0
    assert flag.slice(0, 1).unwritten == 1
    assert flag.with_text("--MAX-MODEL-LEN", True).unwritten == 2
    assert flag.moved(lambda pos: Pos(pos.line + 1, pos.column)).unwritten == 2
    assert pickle.loads(pickle.dumps(flag)).unwritten == 2
    with pytest.raises(ValueError):
        Token("ab", (Pos(1, 1),) * 3, unwritten=3)


def test_a_value_put_in_from_a_kubernetes_variable_is_not_written_over_its_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ``$(LEN)`` is ``16k``: VL202 reports it, but an edit at ``$(LEN)`` would drop the
    # reference; the fix beside it still applies.
    head = ("apiVersion: v1\nkind: Pod\nmetadata: {name: vllm}\nspec:\n  containers:\n"
            "  - name: vllm\n    image: vllm/vllm-openai:v0.33.0\n"
            "    env:\n    - {name: LEN, value: '16k'}\n")
    before = head + '    args: [m, "--enable-chunked-prefill=false", "--max-model-len=$(LEN)"]\n'
    after = head + '    args: [m, "--disable-chunked-prefill", "--max-model-len=$(LEN)"]\n'
    assert _fix(tmp_path, monkeypatch, "pod.yaml", before, ["--target-version", "0.33.0"]) == after
