"""Helm templates rendered with their chart's values, each written character traced to its
origin (``vlint.syntax.gotemplate``)."""

from __future__ import annotations

import pytest

from vlint.syntax import gotemplate, yamlpos
from vlint.syntax.gotemplate import TEMPLATE, UNKNOWN, Rendering

VALUES = """\
image:
  repository: vllm/vllm-openai
  tag: "v0.32.0"
model:
  id: Qwen/Qwen3-8B
  maxModelLen: 32768
  big: 1000000
  ratio: 0.850
tools:
  enabled: true
  parser: hermes
lmcache: false
extraArgs:
  - --enable-prefix-caching
  - "--max-num-seqs=64"
env:
  HF_HOME: /cache
  A_FLAG: "1"
empty: []
"""
CHART = "apiVersion: v2\nname: llm\nversion: 1.2.3\nappVersion: v0.30.0\n"


def rendered(template: str, values: str = VALUES) -> Rendering:
    root = yamlpos.parse_documents(values)[0]
    chart = yamlpos.parse_documents(CHART)[0]
    result = gotemplate.render(template, root, values, chart)
    assert result is not None
    return result


def text(template: str) -> str:
    return rendered(template).text


def origin_text(result: Rendering, start: int, length: int) -> str:
    """The values file's characters behind ``length`` rendered characters from ``start``."""
    return "".join(VALUES[o] for o in result.origins[start:start + length])


def test_a_value_keeps_its_place_in_the_values_file() -> None:
    result = rendered("- --model\n- {{ .Values.model.id }}\n")
    assert result.text == "- --model\n- Qwen/Qwen3-8B\n"
    start = result.text.index("Qwen")
    assert origin_text(result, start, len("Qwen/Qwen3-8B")) == "Qwen/Qwen3-8B"
    assert result.origins[start] == VALUES.index("Qwen/Qwen3-8B")
    assert set(result.origins[: start]) == {TEMPLATE}


def test_a_quoted_value_is_traced_inside_its_quotes() -> None:
    result = rendered('image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"')
    assert result.text == 'image: "vllm/vllm-openai:v0.32.0"'
    tag = result.text.index("v0.32.0")
    assert result.origins[tag] == VALUES.index("v0.32.0")
    assert result.origins[result.text.index(":v0")] == TEMPLATE


def test_trim_markers_remove_the_white_space_beside_them() -> None:
    assert text("a:\n  {{- if .Values.tools.enabled }}\n  - x\n  {{- end }}\n") == "a:\n  - x\n"
    assert text("a {{ .Values.model.id -}}   \n  b") == "a Qwen/Qwen3-8Bb"


def test_conditions_follow_go_truth() -> None:
    template = ("{{ if .Values.lmcache }}lm{{ else if .Values.tools.enabled }}tools"
                "{{ else }}none{{ end }}")
    assert text(template) == "tools"
    assert text("{{ if not .Values.lmcache }}yes{{ end }}") == "yes"
    assert text("{{ if .Values.empty }}full{{ else }}empty{{ end }}") == "empty"
    assert text('{{ if eq .Values.tools.parser "hermes" }}h{{ end }}') == "h"
    both = '{{ if and .Values.tools.enabled (ne .Values.tools.parser "x") }}ok{{ end }}'
    assert text(both) == "ok"
    assert text("{{ if .Values.missing }}set{{ end }}") == ""


def test_range_writes_each_item_at_its_place() -> None:
    result = rendered("{{- range .Values.extraArgs }}\n- {{ . | quote }}\n{{- end }}")
    assert result.text == '\n- "--enable-prefix-caching"\n- "--max-num-seqs=64"'
    start = result.text.index("--max-num-seqs")
    assert origin_text(result, start, 16) == "--max-num-seqs=6"


def test_range_over_a_mapping_takes_sorted_keys_and_variables() -> None:
    template = "{{ range $k, $v := .Values.env }}{{ $k }}={{ $v }};{{ end }}"
    assert text(template) == "A_FLAG=1;HF_HOME=/cache;"


def test_with_sets_the_dot() -> None:
    assert text("{{ with .Values.tools }}{{ .parser }}{{ end }}") == "hermes"
    assert text("{{ with .Values.empty }}x{{ else }}none{{ end }}") == "none"


def test_functions() -> None:
    assert text('{{ .Values.missing | default "auto" }}') == "auto"
    assert text('{{ .Values.model.id | default "auto" }}') == "Qwen/Qwen3-8B"
    assert text("{{ .Values.model.maxModelLen | toString }}") == "32768"
    assert text('{{ printf "%s:%s" .Values.image.repository .Values.image.tag }}') == \
        "vllm/vllm-openai:v0.32.0"
    assert text("{{ .Chart.AppVersion }}/{{ .Chart.Name }}") == "v0.30.0/llm"
    assert text("{{ $x := .Values.tools.parser }}{{ $x | upper }}") == "HERMES"


def test_to_yaml_with_nindent_writes_a_block_list() -> None:
    result = rendered("args:\n  {{- toYaml .Values.extraArgs | nindent 2 }}\n")
    assert result.text == "args:\n  - --enable-prefix-caching\n  - --max-num-seqs=64\n"
    start = result.text.index("--enable")
    assert origin_text(result, start, 10) == "--enable-p"
    assert yamlpos.parse_documents(result.text)


def test_numbers_print_as_go_prints_a_float64() -> None:
    result = rendered("{{ .Values.model.ratio }}")
    # 0.850 prints as 0.85: not what the file holds there, so written by the template.
    assert result.text == "0.85"
    assert set(result.origins) == {TEMPLATE}
    # 1000000 would print as 1e+06 (float64): not guessed.
    big = rendered("x: {{ .Values.model.big }}\n")
    assert UNKNOWN in big.origins


def test_an_unknown_inline_action_is_kept_as_written() -> None:
    result = rendered('image: {{ include "llm.image" . }}\n')
    assert result.text.startswith("image: xxx")
    unknown = [i for i, o in enumerate(result.origins) if o == UNKNOWN]
    assert "".join(result.written[i] for i in unknown) == '{{ include "llm.image" . }}'


def test_an_unknown_structural_action_writes_nothing_and_says_so() -> None:
    result = rendered("labels:\n  {{- include \"llm.labels\" . | nindent 4 }}\nname: a\n")
    assert result.text == "labels:\nname: a\n"
    assert result.incomplete


def test_defines_and_comments_are_not_written() -> None:
    assert text('{{/* a comment }} */}}{{ define "x" }}inside{{ end }}out') == "out"


def test_an_unknown_condition_takes_its_first_branch() -> None:
    result = rendered("{{ if .Release.IsInstall }}first{{ else }}second{{ end }}")
    assert result.text == "first"
    assert result.incomplete


@pytest.mark.parametrize("template", ["{{ .Values.model.id", "{{ \"}}"])
def test_an_unclosed_action_is_no_rendering(template: str) -> None:
    root = yamlpos.parse_documents(VALUES)[0]
    assert gotemplate.render(template, root, VALUES, None) is None


def test_rendering_is_bounded() -> None:
    many = "items:\n" + "".join(f"  - {i}\n" for i in range(300))
    template = ("{{ range .Values.items }}{{ range $.Values.items }}"
                "{{ range $.Values.items }}x{{ end }}{{ end }}{{ end }}")
    root = yamlpos.parse_documents(many)[0]
    assert gotemplate.render(template, root, many, None) is None
    levels = gotemplate.MAX_DEPTH + 2
    deep = "{{ if true }}" * levels + "x" + "{{ end }}" * levels
    assert gotemplate.render(deep, root, many, None) is None


def test_list_and_index_pick_a_component_s_values() -> None:
    template = ('{{- $root := . -}}{{ range $name := list "model" "tools" }}'
                "{{ $cfg := index $root.Values $name }}"
                "[{{ index $cfg \"parser\" | default \"-\" }}]"
                "{{ end }}")
    assert text(template) == "[-][hermes]"
    assert text('{{ index .Values.extraArgs 1 }}') == "--max-num-seqs=64"
    assert text('{{ if hasKey .Values.tools "parser" }}y{{ end }}') == "y"


def test_enabled_takes_the_branches_the_defaults_leave_off() -> None:
    template = "{{ if .Values.lmcache }}--kv{{ end }} {{ if .Values.model.missing }}x{{ end }}"
    root = yamlpos.parse_documents(VALUES)[0]
    plain = gotemplate.render(template, root, VALUES, None)
    enabled = gotemplate.render(template, root, VALUES, None, enabled=True)
    assert plain is not None and plain.text == " "
    assert enabled is not None and enabled.text == "--kv x"
    # An empty default is a placeholder to fill: not a value to check.
    empty = gotemplate.render("--port={{ .Values.port }}", yamlpos.parse_documents("port: 0\n")[0],
                              "port: 0\n", None, enabled=True)
    assert empty is not None and UNKNOWN in empty.origins


def test_include_renders_a_named_template_with_its_values_in_place() -> None:
    helpers = ('{{- define "llm.args" -}}\n- --model\n- {{ .Values.model.id | quote }}\n'
               '{{- range $flag, $value := .Values.env }}\n- --{{ $flag | lower }}={{ $value }}'
               '{{- end }}\n{{- end }}\n')
    template = "args:\n  {{- include \"llm.args\" . | nindent 2 }}\n"
    root = yamlpos.parse_documents(VALUES)[0]
    result = gotemplate.render(template, root, VALUES, None, defines=gotemplate.defines(helpers))
    assert result is not None
    assert result.text == ('args:\n  - --model\n  - "Qwen/Qwen3-8B"\n  - --a_flag=1\n'
                           "  - --hf_home=/cache\n")
    start = result.text.index("Qwen/")
    assert origin_text(result, start, 13) == "Qwen/Qwen3-8B"
    # A name the chart does not define stays unknown.
    missing = gotemplate.render('x: {{ include "nope" . }}\n', root, VALUES, None)
    assert missing is not None and UNKNOWN in missing.origins


def test_enabled_leaves_an_if_with_an_else_to_the_values() -> None:
    template = "{{ if .Values.lmcache }}legacy{{ else }}current{{ end }}"
    root = yamlpos.parse_documents(VALUES)[0]
    result = gotemplate.render(template, root, VALUES, None, enabled=True)
    assert result is not None and result.text == "current"


def test_an_assignment_in_a_block_sets_the_variable_declared_around_it() -> None:
    template = ('{{- $found := false }}{{ range .Values.extraArgs }}{{ $found = true }}{{ end }}'
                '{{ if not $found }}none{{ else }}some{{ end }}')
    assert text(template) == "some"
    shadow = '{{ $x := "a" }}{{ if true }}{{ $x := "b" }}{{ end }}{{ $x }}'
    assert text(shadow) == "a"
