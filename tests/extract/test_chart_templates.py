"""A chart's own templates rendered with its values.yaml: the launches they write are launches of
the values file, every value at its place there, the template's own words reported only by the
template (``vlint.extract.chart_templates``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests._support.files import write_tree
from vlint.engine.lint import lint
from vlint.extract.chart_templates import ENABLED
from vlint.model import BORROWED
from vlint.extract.helm import extract
from vlint.model import Invocation, Pos, Span, Token
from vlint.settings import Settings

CHART = "apiVersion: v2\nname: llm\nversion: 0.1.0\nappVersion: v0.30.0\n"
TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "llm.fullname" . }}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          args:
            - "--model"
            - "{{ .Values.model.id }}"
            - "--max-model-len"
            - "{{ .Values.model.maxModelLen | toString }}"
            - --swap-space
            - "4"
            {{- if .Values.tools.enabled }}
            - --enable-auto-tool-choice
            - --tool-call-parser={{ .Values.tools.parser }}
            {{- end }}
            {{- range .Values.extraArgs }}
            - {{ . | quote }}
            {{- end }}
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
"""
VALUES = """\
image:
  repository: vllm/vllm-openai
  tag: v0.32.0
model:
  id: Qwen/Qwen3-8B
  maxModelLen: 16k
tools:
  enabled: false
  parser: hermes
extraArgs:
  - --max-num-seqs
  - "64"
resources:
  limits:
    nvidia.com/gpu: 1
"""


def chart(root: Path, template: str = TEMPLATE, values: str = VALUES) -> Path:
    write_tree(root, {
        ".git/HEAD": "",
        "chart/Chart.yaml": CHART,
        "chart/values.yaml": values,
        "chart/templates/deployment.yaml": template,
        "chart/templates/_helpers.tpl": '{{- define "llm.fullname" -}}llm{{- end }}\n',
    })
    return root / "chart" / "values.yaml"


def launches(path: Path) -> list[Invocation]:
    return extract(str(path), path.read_text("utf-8"))


def arg(launch: Invocation, text: str) -> Token:
    return next(token for token in launch.args if token.text == text)


def test_values_are_read_at_their_place_in_the_values_file(tmp_path: Path) -> None:
    [launch] = launches(chart(tmp_path))
    assert launch.path.endswith("values.yaml") and launch.target == "0.32.0"
    assert [t.text for t in launch.args] == [
        "--model", "Qwen/Qwen3-8B", "--max-model-len", "16k", "--swap-space", "4",
        "--max-num-seqs", "64"]
    assert arg(launch, "Qwen/Qwen3-8B").span == Span(Pos(5, 7), Pos(5, 20))
    length = arg(launch, "16k")
    assert length.literal and not length.gathered and length.unwritten == 0
    assert length.span == Span(Pos(6, 16), Pos(6, 19))
    assert arg(launch, "64").span == Span(Pos(12, 6), Pos(12, 8))
    # The launch starts at the first of its arguments the values file holds (the image is the
    # deployment's, not an argument).
    assert launch.anchor.start == Pos(5, 7)
    assert launch.borrowed_at == BORROWED


def test_the_templates_own_words_are_borrowed(tmp_path: Path) -> None:
    [launch] = launches(chart(tmp_path))
    swap = arg(launch, "--swap-space")
    assert swap.span == Span(BORROWED, BORROWED)
    assert swap.unwritten == len(swap.text)


def test_a_branch_follows_the_values(tmp_path: Path) -> None:
    values = VALUES.replace("enabled: false", "enabled: true")
    [launch] = launches(chart(tmp_path, values=values))
    parser = arg(launch, "--tool-call-parser=hermes")
    # The flag is the template's, the value the values file's: no fix edits the flag.
    assert parser.unwritten == len("--tool-call-parser=")
    assert parser.sub_span(len("--tool-call-parser=")) == Span(Pos(9, 11), Pos(9, 17))


def test_a_value_gathered_from_two_places_is_marked(tmp_path: Path) -> None:
    [launch] = launches(chart(tmp_path))
    image = launch.deployment.image
    assert image is not None and image.value == "vllm/vllm-openai:v0.32.0"
    assert image.span == Span(Pos(2, 15), Pos(3, 15))


def test_findings_are_reported_once_and_where_they_are_written(tmp_path: Path) -> None:
    chart(tmp_path)
    report = lint([str(tmp_path)], Settings(target="0.32.0"))
    seen = sorted((os.path.relpath(f.path, tmp_path), f.code, f.span.start.line)
                  for f in report.findings)
    # '16k' is the values file's; the removed --swap-space is the template's, once.
    assert ("chart/values.yaml", "VL202", 6) in seen
    removed = [s for s in seen if s[1] == "VL103"]
    assert removed == [("chart/templates/deployment.yaml", "VL103", 16)]
    assert not [f for f in report.findings if f.span.start == BORROWED]


def test_a_fix_edits_the_value_in_the_values_file(tmp_path: Path) -> None:
    path = chart(tmp_path)
    report = lint([str(path)], Settings(target="0.32.0"))
    [finding] = [f for f in report.findings if f.code == "VL202"]
    assert finding.fix is not None
    [edit] = finding.fix.edits
    assert edit.span == Span(Pos(6, 16), Pos(6, 19))


# The start of every Deployment below: its one container, named vllm (lines 1-7).
CONTAINER = """\
apiVersion: apps/v1
kind: Deployment
spec:
  template:
    spec:
      containers:
        - name: vllm
"""
SHELL_TEMPLATE = CONTAINER + """\
          image: {{ .Values.image }}
          command:
            - /bin/sh
            - -c
            - |
              export LD_LIBRARY_PATH=/usr/lib/wsl/lib
              exec vllm serve "$@"
            - --
          args:
            - --model
            - {{ .Values.model | quote }}
            - --max-model-len
            - {{ .Values.maxModelLen | quote }}
"""


def test_a_shell_entrypoint_forwards_the_args(tmp_path: Path) -> None:
    values = "image: vllm/vllm-openai:v0.32.0\nmodel: Qwen/Qwen3-8B\nmaxModelLen: 8192\n"
    [launch] = launches(chart(tmp_path, SHELL_TEMPLATE, values))
    assert [t.text for t in launch.args] == ["--model", "Qwen/Qwen3-8B", "--max-model-len", "8192"]
    assert arg(launch, "8192").span == Span(Pos(3, 14), Pos(3, 18))


FOLDED_TEMPLATE = CONTAINER + """\
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          command: ["/bin/sh"]
          args:
            - -c
            - >-
              vllm serve
              {{- if eq .Values.storage "image" }}
              /models/.modelcar
              {{- else }}
              {{ .Values.model }}
              {{- end }}
              --port {{ .Values.port }}
              {{- range .Values.extraArgs }}
              {{ quote . }}
              {{- end }}
"""


def test_a_folded_command_with_chomped_actions(tmp_path: Path) -> None:
    values = ("image:\n  repository: vllm/vllm-openai\n  tag: v0.32.0\nstorage: hub\n"
              "model: Qwen/Qwen3-8B\nport: 8000\nextraArgs:\n  - --max-num-seqs=32\n")
    [launch] = launches(chart(tmp_path, FOLDED_TEMPLATE, values))
    assert [t.text for t in launch.args] == ["Qwen/Qwen3-8B", "--port", "8000", "--max-num-seqs=32"]
    assert arg(launch, "--max-num-seqs=32").span == Span(Pos(8, 5), Pos(8, 22))


def test_values_the_templates_do_not_use_are_still_read(tmp_path: Path) -> None:
    values = VALUES + ("other:\n  image: vllm/vllm-openai:v0.32.0\n"
                       "  extraArgs: [--max-num-seqs, \"8\"]\n")
    found = launches(chart(tmp_path, values=values))
    assert len(found) == 2
    assert {launch.anchor.start.line for launch in found} == {5, 18}


def test_a_values_file_outside_a_chart_is_not_joined(tmp_path: Path) -> None:
    path = chart(tmp_path)
    (tmp_path / "chart" / "Chart.yaml").unlink()
    assert not [launch for launch in launches(path) if launch.borrowed_at is not None]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="symlinks")
def test_a_template_linked_from_outside_the_repository_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.yaml"
    outside.write_text(TEMPLATE, "utf-8")
    repo = tmp_path / "repo"
    path = chart(repo, template="kind: ConfigMap\n")
    link = repo / "chart" / "templates" / "deployment.yaml"
    link.unlink()
    link.symlink_to(outside)
    assert not [launch for launch in launches(path) if launch.borrowed_at is not None]


OVERRIDABLE_TEMPLATE = CONTAINER + """\
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          command: ["/bin/sh"]
          args:
            {{- if .Values.argsOverride }}
              {{- toYaml .Values.argsOverride | nindent 12 }}
            {{- else }}
            - -c
            - >-
              vllm serve
              {{ .Values.model }}
              --max-num-seq 16
              --port {{ .Values.port }}
            {{- end }}
"""
OVERRIDABLE_VALUES = ("image:\n  repository: vllm/vllm-openai\n  tag: v0.32.0\nargsOverride: []\n"
                      "model: Qwen/Qwen3-8B\nport: 8000\n")


def test_a_template_its_own_reading_misses_is_read_rendered(tmp_path: Path) -> None:
    values = chart(tmp_path, OVERRIDABLE_TEMPLATE, OVERRIDABLE_VALUES)
    template = tmp_path / "chart" / "templates" / "deployment.yaml"
    [launch] = launches(template)
    assert launch.borrowed_at == BORROWED
    assert launch.anchor.start == Pos(16, 15)  # `vllm serve`, in the template
    assert [t.text for t in launch.args] == [
        "Qwen/Qwen3-8B", "--max-num-seq", "16", "--port", "8000"]
    assert arg(launch, "--max-num-seq").span == Span(Pos(18, 15), Pos(18, 28))
    # The values' characters are the values file's to report.
    assert arg(launch, "Qwen/Qwen3-8B").span == Span(BORROWED, BORROWED)
    report = lint([str(tmp_path)], Settings(target="0.32.0"))
    abbreviated = [(os.path.relpath(f.path, tmp_path), f.span.start.line)
                   for f in report.findings if f.code == "VL105"]
    assert abbreviated == [("chart/templates/deployment.yaml", 18)]
    assert [launch.args[0].span.start for launch in launches(values)] == [Pos(5, 8)]


DISABLED_TEMPLATE = """\
{{- if .Values.server.enabled }}
apiVersion: apps/v1
kind: Deployment
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: {{ .Values.server.image }}
          args: ["--model", "{{ .Values.server.model }}",
                 "--max-num-seqs", "{{ .Values.server.seqs }}"]
{{- end }}
"""


def test_a_component_the_defaults_leave_off_is_read_as_conditional(tmp_path: Path) -> None:
    values = ("server:\n  enabled: false\n  image: vllm/vllm-openai:v0.32.0\n"
              "  model: org/m\n  seqs: 16k\n")
    [launch] = launches(chart(tmp_path, DISABLED_TEMPLATE, values))
    seqs = arg(launch, "16k")
    assert seqs.condition == ENABLED and seqs.span == Span(Pos(5, 9), Pos(5, 12))
    report = lint([str(tmp_path)], Settings(target="0.32.0"))
    [finding] = [f for f in report.findings if f.code == "VL203"]
    assert ENABLED in finding.message


def test_a_named_template_of_the_helpers_file_writes_the_args(tmp_path: Path) -> None:
    template = CONTAINER + """\
          image: vllm/vllm-openai:v0.32.0
          args:
            {{- include "llm.args" . | nindent 12 }}
"""
    path = chart(tmp_path, template, "model: org/m\nseqs: 16k\n")
    (tmp_path / "chart" / "templates" / "_helpers.tpl").write_text(
        '{{- define "llm.args" -}}\n- --model={{ .Values.model }}\n'
        '- --max-num-seqs={{ .Values.seqs }}\n{{- end }}\n', "utf-8")
    [launch] = launches(path)
    assert [t.text for t in launch.args] == ["--model=org/m", "--max-num-seqs=16k"]
    seqs = arg(launch, "--max-num-seqs=16k")
    assert seqs.sub_span(len("--max-num-seqs=")) == Span(Pos(2, 7), Pos(2, 10))


TPL_TEMPLATE = CONTAINER + """\
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          args:
            {{- include "llm.args" . | nindent 12 }}
"""
TPL_VALUES = """\
image:
  repository: vllm/vllm-openai
  tag: v0.32.0
model: org/m
args:
  - --model={{ .Values.model }}
  - --max-num-seqs=16k
"""


def test_values_rendered_with_tpl_keep_their_places(tmp_path: Path) -> None:
    path = chart(tmp_path, TPL_TEMPLATE, TPL_VALUES)
    (tmp_path / "chart" / "templates" / "_helpers.tpl").write_text(
        '{{- define "llm.args" -}}\n{{- range .Values.args }}\n- {{ tpl . $ | quote }}\n'
        '{{- end }}\n{{- end }}\n', "utf-8")
    [launch] = launches(path)
    model = arg(launch, "--model=org/m")
    assert model.pos(0) == Pos(6, 5) and model.pos(len("--model=")) == Pos(4, 8)
    assert model.gathered
    assert arg(launch, "--max-num-seqs=16k").span == Span(Pos(7, 5), Pos(7, 23))
    # The template's own reading, all of whose words the values file holds, is anchored at the
    # container's image in the template, its words borrowed.
    template = tmp_path / "chart" / "templates" / "deployment.yaml"
    [own] = launches(template)
    assert own.anchor.start == Pos(8, 49) and own.borrowed_at == BORROWED


def test_the_words_of_a_template_are_reported_where_the_prefilter_lets_them(
        tmp_path: Path) -> None:
    # Nothing in the template names vLLM (its image is a value), but its chart does: the
    # template is linted all the same and reports its own words, once.
    template = TEMPLATE.replace("vllm", "server")
    [launch] = launches(chart(tmp_path, template, VALUES))
    assert launch.borrowed_at == BORROWED
    report = lint([str(tmp_path)], Settings(target="0.32.0"))
    assert [(os.path.basename(f.path), f.code) for f in report.findings if f.code == "VL103"] == [
        ("deployment.yaml", "VL103")]
    # A chart that names vLLM nowhere lets no file through: the words stay with the values.
    values = VALUES.replace("vllm/vllm-openai", "team/llm-server")
    [launch] = launches(chart(tmp_path, template, values))
    assert launch.borrowed_at is None
