from __future__ import annotations

import pathlib

import pytest

from vlint.discover import kind_of
from vlint.errors import Unparsable
from vlint.extract.helm import claims, extract, mask
from vlint.model import Invocation, Pos, Span, Token

TEMPLATE = (
    "apiVersion: apps/v1\n"                                         # 1
    "kind: Deployment\n"                                            # 2
    "metadata:\n"                                                   # 3
    "  name: {{ include \"x.fullname\" . }}\n"                      # 4
    "  labels:\n"                                                   # 5
    "    {{- include \"x.labels\" . | nindent 4 }}\n"               # 6
    "spec:\n"                                                       # 7
    "  template:\n"                                                 # 8
    "    spec:\n"                                                   # 9
    "      containers:\n"                                           # 10
    "        - image: \"{{ .Values.image.repository }}:{{ .Values.image.tag }}\"\n"  # 11
    "          command:\n"                                          # 12
    "          {{- if .Values.lmcache }}\n"                         # 13
    "          - /opt/venv/bin/vllm\n"                              # 14
    "          {{- else }}\n"                                       # 15
    "          - vllm\n"                                            # 16
    "          {{- end }}\n"                                        # 17
    "          - serve\n"                                           # 18
    "          - {{ .Values.model | quote }}\n"                     # 19
    "          - --max-model-len={{ .Values.maxModelLen }}\n"       # 20
    "          - --max-num-seq=8\n"                                 # 21
    "          {{- range .Values.extraArgs }}\n"                    # 22
    "          - {{ . | quote }}\n"                                 # 23
    "          {{- end }}\n"                                        # 24
    "          resources:\n"                                        # 25
    "            {{- toYaml .Values.resources | nindent 12 }}\n"    # 26
)


def texts(invocation: Invocation) -> list[str]:
    return [token.text for token in invocation.args]


def arg(invocation: Invocation, text: str) -> Token:
    return next(token for token in invocation.args if token.text == text)


def test_claims_templates_and_values_files(tmp_path: pathlib.Path) -> None:
    assert claims("deploy.yaml", TEMPLATE.encode())
    assert kind_of("deploy.yaml", TEMPLATE.encode()) == "helm"
    assert claims("charts/x/values.yaml", b"image: {repository: vllm/vllm-openai}\n")
    assert claims("values-prod.yaml", b"a: 1\n")
    assert not claims("deploy.yaml", b"apiVersion: v1\nkind: Pod\n")
    # GitHub Actions expressions are not Helm.
    assert not claims("ci.yaml", b"jobs:\n  a:\n    run: echo ${{ x }}\n")
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("name: x\n")
    assert claims(str(chart / "templates" / "job.yaml"), b"{{- if .x }}\nspec: {}\n")


def test_mask_keeps_length_and_blanks_control_lines() -> None:
    masked, unresolved = mask(TEMPLATE)
    assert len(masked) == len(TEMPLATE)
    lines = masked.split("\n")
    assert lines[3] == "  name: " + "x" * len('{{ include "x.fullname" . }}')
    assert lines[5].strip() == ""
    assert lines[14].strip() == lines[15].strip() == ""  # the else branch is not read
    assert lines[13] == "          - /opt/venv/bin/vllm"
    assert unresolved[Pos(4, 9)] == "{"


def test_template_extracts_with_unresolved_values() -> None:
    (invocation,) = extract("deploy.yaml", TEMPLATE)
    assert invocation.kind == "helm"
    assert invocation.entry == "serve"
    assert invocation.image is None
    model, length, seq, extra = invocation.args
    assert model.text == "{{ .Values.model | quote }}" and not model.literal
    assert model.span == Span(Pos(19, 13), Pos(19, 40))
    assert length.text == "--max-model-len={{ .Values.maxModelLen }}" and not length.literal
    assert seq.text == "--max-num-seq=8" and seq.literal
    assert seq.span == Span(Pos(21, 13), Pos(21, 28))
    assert not extra.literal
    assert invocation.anchor == Span(Pos(14, 13), Pos(18, 18))


def test_template_in_a_shell_string_is_one_unresolved_word() -> None:
    text = (
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n"
        "  - image: vllm/vllm-openai:v0.31.0\n"
        "    command: [sh, -c, \"vllm serve m --served-model-name {{ .Name }} --port 8000\"]\n"
    )
    (invocation,) = extract("pod.yaml", text)
    assert texts(invocation) == ["m", "--served-model-name", "{{ .Name }}", "--port", "8000"]
    name = invocation.args[2]
    assert not name.literal
    assert name.span == Span(Pos(6, 57), Pos(6, 68))
    assert invocation.args[4].literal


def test_unbalanced_template_never_raises() -> None:
    text = "apiVersion: v1\nkind: Pod\nspec:\n  containers: {{ if\n  - [\n---\napiVersion: v1\n"
    assert extract("pod.yaml", text) == []


def test_values_file_without_templates_can_be_unparsable() -> None:
    with pytest.raises(Unparsable):
        extract("values.yaml", "a: [\n")


VALUES = (
    "servingEngineSpec:\n"                                  # 1
    "  modelSpec:\n"                                        # 2
    "  - name: llama\n"                                     # 3
    "    repository: vllm/vllm-openai\n"                    # 4
    "    tag: v0.32.0\n"                                    # 5
    "    vllmConfig:\n"                                     # 6
    "      maxModelLen: 4096\n"                             # 7
    "      extraArgs: [\"--max-num-seqs\", \"8\"]\n"        # 8
    "router:\n"                                             # 9
    "  extraArgs: [\"--routing-logic\", \"roundrobin\"]\n"  # 10
    "other:\n"                                              # 11
    "  image: vllm/vllm-openai:v0.31.0\n"                   # 12
    "  args:\n"                                             # 13
    "  - --max-num-seq=4\n"                                 # 14
    "sidecar:\n"                                            # 15
    "  image: busybox\n"                                    # 16
    "  args: [--max-num-seqs, \"2\"]\n"                     # 17
)


def test_values_file_reads_only_certain_vllm_argument_lists() -> None:
    stack, other = extract("values.yaml", VALUES)
    assert stack.entry == "serve"
    # (The production stack's whole modelSpec entry: tests/extract/test_helm_shapes.py.)
    assert texts(stack) == ["MODEL", "--max-model-len", "4096", "--max-num-seqs", "8"]
    assert not stack.args[0].literal
    assert stack.target == "0.32.0"
    assert stack.anchor == Span(Pos(3, 5), Pos(3, 5))
    assert arg(stack, "8").span == Span(Pos(8, 38), Pos(8, 39))
    assert texts(other) == ["MODEL", "--max-num-seq=4"]
    assert other.target == "0.31.0"
    assert arg(other, "--max-num-seq=4").span == Span(Pos(14, 5), Pos(14, 20))


def test_kubeai_values_engine_args() -> None:
    text = "catalog:\n  m:\n    engine: VLLM\n    args:\n      - --max-num-seqs=2\n"
    (invocation,) = extract("values.yaml", text)
    assert invocation.entry == "api_server"
    assert texts(invocation) == ["--max-num-seqs=2"]


FOLDED = (
    "apiVersion: apps/v1\n"                                        # 1
    "kind: Deployment\n"                                           # 2
    "spec:\n"                                                      # 3
    "  template:\n"                                                # 4
    "    spec:\n"                                                  # 5
    "      containers:\n"                                          # 6
    "        - name: vllm\n"                                       # 7
    "          image: \"{{ .Values.image }}\"\n"                   # 8
    "          command: [/bin/sh]\n"                               # 9
    "          args:\n"                                            # 10
    "            - -c\n"                                           # 11
    "            - >-\n"                                           # 12
    "              vllm serve\n"                                   # 13
    "              {{- if .Values.local }}\n"                      # 14
    "              {{ .Values.mountPath }}\n"                      # 15
    "              {{- else }}\n"                                  # 16
    "              {{ .Values.model }}\n"                          # 17
    "              {{- end }}\n"                                   # 18
    "              --port 8000\n"                                  # 19
)


def test_a_folded_command_keeps_its_words_through_chomped_actions() -> None:
    # Helm renders "vllm serve <mountPath> --port 8000" on one line: the `{{-` lines leave no
    # line, the value action writes a word, and the branch not read writes nothing.
    (found,) = extract("templates/deployment.yaml", FOLDED)
    assert [t.text for t in found.args] == ["{{ .Values.mountPath }}", "--port", "8000"]
    assert not found.args[0].literal
    assert found.args[1].span == Span(Pos(19, 15), Pos(19, 21))
    assert found.line_breaks == ()
