"""A chart rendered as an install renders it: with a values file kept beside ``values.yaml`` to
override it (``values-prod.yaml``, ``ci/*-values.yaml``), with the parts its defaults leave off
enabled, and a container whose image only the values name read by its arguments."""

from __future__ import annotations

import os
from pathlib import Path

from tests._support.files import write_tree
from tests._support.invocations import arg, args
from tests.extract.test_chart_templates import CONTAINER
from vlint.discover import kind_of, prefilter
from vlint.engine.lint import lint
from vlint.extract.chart_templates import ENABLED, chart_of_values
from vlint.extract.helm import extract
from vlint.model import BORROWED, Invocation, Pos, Span
from vlint.settings import Settings

CHART = "apiVersion: v2\nname: llm\nversion: 0.1.0\n"
TEMPLATE = CONTAINER + """\
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          args:
            - --model
            - {{ .Values.model | quote }}
            - --max-model-len
            - {{ .Values.maxModelLen | quote }}
            {{- range .Values.extraArgs }}
            - {{ . | quote }}
            {{- end }}
"""
DEFAULTS = """\
image:
  repository: vllm/vllm-openai
  tag: v0.32.0
model: org/small
maxModelLen: 4096
extraArgs:
  - --enforce-eager
"""
PRODUCTION = """\
model: org/large
maxModelLen: 16k
extraArgs: null
"""


def chart(root: Path, files: dict[str, str]) -> None:
    write_tree(root, {
        ".git/HEAD": "",
        "chart/Chart.yaml": CHART,
        "chart/values.yaml": DEFAULTS,
        "chart/templates/deployment.yaml": TEMPLATE,
        **{f"chart/{name}": text for name, text in files.items()},
    })


def launches(path: Path) -> list[Invocation]:
    return extract(str(path), path.read_text("utf-8"))


def test_an_override_file_is_rendered_over_the_defaults(tmp_path: Path) -> None:
    chart(tmp_path, {"values-prod.yaml": PRODUCTION})
    [launch] = launches(tmp_path / "chart" / "values-prod.yaml")
    # Its own values at their places; a null removes the default's list.
    assert args(launch) == ["--model", "org/large", "--max-model-len", "16k"]
    assert arg(launch, "org/large").span == Span(Pos(1, 8), Pos(1, 17))
    assert arg(launch, "16k").span == Span(Pos(2, 14), Pos(2, 17))
    # The image and its release come from the defaults, which are not this file's.
    assert launch.target == "0.32.0"
    assert launch.deployment.image is not None
    assert launch.deployment.image.span.start == BORROWED
    report = lint([str(tmp_path / "chart" / "values-prod.yaml")], Settings(target="0.32.0"))
    assert [(f.code, f.span.start) for f in report.findings if f.code == "VL202"] == [
        ("VL202", Pos(2, 14))]  # 16k is 16,000


def test_an_override_that_changes_nothing_the_templates_read_writes_no_launch(
    tmp_path: Path,
) -> None:
    chart(tmp_path, {"values-gpu.yaml": "nodeSelector:\n  gpu: a100\n"})
    assert launches(tmp_path / "chart" / "values-gpu.yaml") == []


def test_the_defaults_keep_their_own_launch(tmp_path: Path) -> None:
    chart(tmp_path, {"values-prod.yaml": PRODUCTION})
    [launch] = launches(tmp_path / "chart" / "values.yaml")
    assert args(launch) == ["--model", "org/small", "--max-model-len", "4096", "--enforce-eager"]


def test_chart_testing_values_and_examples_belong_to_the_chart(tmp_path: Path) -> None:
    chart(tmp_path, {"ci/large-values.yaml": PRODUCTION})
    assert chart_of_values(str(tmp_path / "chart" / "ci" / "large-values.yaml")) == str(
        tmp_path / "chart")
    [launch] = launches(tmp_path / "chart" / "ci" / "large-values.yaml")
    assert arg(launch, "16k").span == Span(Pos(2, 14), Pos(2, 17))
    # A chart's examples, named as values or not, in a folder of their own or not.
    chart(tmp_path, {"examples/gpu.yaml": PRODUCTION, "examples/basic/values.yaml": PRODUCTION})
    for example in ("examples/gpu.yaml", "examples/basic/values.yaml"):
        [launch] = launches(tmp_path / "chart" / example)
        assert arg(launch, "16k").span == Span(Pos(2, 14), Pos(2, 17))
    assert kind_of(str(tmp_path / "chart" / "examples" / "gpu.yaml"), PRODUCTION.encode()) == "helm"
    # A values file elsewhere is not joined to a chart it does not sit with.
    write_tree(tmp_path, {"deploy/prod-values.yaml": PRODUCTION})
    assert chart_of_values(str(tmp_path / "deploy" / "prod-values.yaml")) is None


DISABLED = """\
{{- if .Values.server.enabled }}
""" + CONTAINER + """\
          image: "{{ .Values.server.image }}"
          command: ["/bin/sh"]
          args:
            {{- if .Values.server.argsOverride }}
              {{- toYaml .Values.server.argsOverride | nindent 12 }}
            {{- else }}
            - -c
            - >-
              vllm serve {{ .Values.server.model }}
              --swap-space 4
              {{- if .Values.server.lora.enabled }}
              {{- if .Values.server.lora.adapters }}
              --enable-lora
              {{- else }}
              {{- fail "server.lora.adapters is required" }}
              {{- end }}
              {{- end }}
            {{- end }}
{{- end }}
"""


def test_a_template_the_defaults_leave_off_is_read_with_its_parts_enabled(
    tmp_path: Path,
) -> None:
    write_tree(tmp_path, {
        ".git/HEAD": "",
        "chart/Chart.yaml": CHART,
        "chart/values.yaml": ("server:\n  enabled: false\n  image: vllm/vllm-openai:v0.32.0\n"
                              "  argsOverride: []\n  model: org/m\n"
                              "  lora:\n    enabled: false\n    adapters: []\n"),
        "chart/templates/deployment.yaml": DISABLED,
    })
    template = tmp_path / "chart" / "templates" / "deployment.yaml"
    [launch] = launches(template)
    # The template's own words, at their places, passed only when the values enable them; the
    # branch that fails (no adapters given) writes nothing.
    swap = arg(launch, "--swap-space")
    assert swap.span == Span(Pos(18, 15), Pos(18, 27)) and swap.condition == ENABLED
    assert "--enable-lora" not in args(launch)
    report = lint([str(template)], Settings(target="0.32.0"))
    assert [f.span.start for f in report.findings if f.code == "VL103"] == [Pos(18, 15)]


UNNAMED_IMAGE = CONTAINER.replace("name: vllm", "name: server") + """\
          image: "{{ .Values.image }}"
          args:
            - "--model={{ .Values.model }}"
            - "--max-model-len={{ .Values.maxModelLen }}"
            - --gpu-memory-utilization=0.9
            - --trust-remote-code
"""


def test_arguments_that_are_unmistakably_vllms_make_a_launch_of_an_unnamed_image(
    tmp_path: Path,
) -> None:
    write_tree(tmp_path, {
        ".git/HEAD": "",
        "chart/Chart.yaml": CHART,
        "chart/values.yaml": 'image: ""\nmodel: ""\nmaxModelLen: 0\n',
        "chart/templates/deployment.yaml": UNNAMED_IMAGE,
    })
    [launch] = launches(tmp_path / "chart" / "templates" / "deployment.yaml")
    assert args(launch)[2:] == ["--gpu-memory-utilization=0.9", "--trust-remote-code"]
    assert launch.target is None and launch.entry_from_image
    weak = UNNAMED_IMAGE.replace("            - --gpu-memory-utilization=0.9\n", "").replace(
        "            - --trust-remote-code\n", "            - --port=8000\n")
    write_tree(tmp_path, {"chart/templates/deployment.yaml": weak})
    assert launches(tmp_path / "chart" / "templates" / "deployment.yaml") == []


RUNTIME = """\
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
spec:
  containers:
    - name: kserve-container
      image: {{ .Values.image }}
      command:
        {{- toYaml .Values.runtime.command | nindent 8 }}
      args:
        {{- toYaml .Values.runtime.args | nindent 8 }}
"""
RUNTIME_VALUES = """\
image: vllm/vllm-openai:v0.10.1
runtime:
  command: [python, -m, vllm.entrypoints.openai.api_server]
  args: [--port=8080, --model=/mnt/models, --swap-space=4]
"""


def test_a_template_whose_every_word_the_values_write_is_still_a_launch(
    tmp_path: Path,
) -> None:
    write_tree(tmp_path, {
        ".git/HEAD": "",
        "chart/Chart.yaml": CHART,
        "chart/values.yaml": RUNTIME_VALUES,
        "chart/templates/runtime.yaml": RUNTIME,
    })
    template = tmp_path / "chart" / "templates" / "runtime.yaml"
    [launch] = launches(template)
    # Anchored at the template's own word nearest the words (``command:``); the words are
    # the values file's, which reports them.
    assert launch.anchor.start == Pos(7, 7)
    assert all(token.span.start == BORROWED for token in launch.args)
    report = lint([str(tmp_path)], Settings(target="0.33.0"))
    assert [(Path(f.path).name, f.code) for f in report.findings if f.code == "VL103"] == [
        ("values.yaml", "VL103")]


def test_an_override_file_that_does_not_name_vllm_is_linted_with_its_chart(
    tmp_path: Path,
) -> None:
    chart(tmp_path, {"values-prod.yaml": PRODUCTION, "ci/big-values.yaml": PRODUCTION})
    report = lint([str(tmp_path)], Settings(target="0.32.0"))
    assert sorted(os.path.relpath(f.path, tmp_path) for f in report.findings
                  if f.code == "VL202") == [
        os.path.join("chart", "ci", "big-values.yaml"), os.path.join("chart", "values-prod.yaml")]
    # A chart that never names vLLM lets none of its values files through.
    write_tree(tmp_path / "other", {
        "Chart.yaml": CHART, "values.yaml": "model: m\n", "values-prod.yaml": PRODUCTION,
        "templates/deployment.yaml": "kind: Deployment\n"})
    assert not any("other" in f.path for f in lint([str(tmp_path)], Settings()).findings)


def test_a_chart_file_linked_from_outside_the_repository_lets_nothing_through(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "outside"
    write_tree(outside, {"values.yaml": DEFAULTS})  # names vLLM, outside the repository
    repo = tmp_path / "repo"
    write_tree(repo, {".git/HEAD": "", "chart/Chart.yaml": CHART,
                      "chart/templates/deployment.yaml": TEMPLATE.replace("vllm", "server"),
                      "chart/values-prod.yaml": PRODUCTION})
    (repo / "chart" / "values.yaml").symlink_to(outside / "values.yaml")
    assert not prefilter(PRODUCTION.encode(), str(repo / "chart" / "values-prod.yaml"))
    # The same file inside the repository does.
    (repo / "chart" / "values.yaml").unlink()
    write_tree(repo, {"chart/values.yaml": DEFAULTS})
    assert prefilter(PRODUCTION.encode(), str(repo / "chart" / "values-prod.yaml"))
