"""Chart templates read with their chart's own values: a container's ``image:`` written as
``.Values`` references decides whether the container runs vLLM and which release it names; an
``include`` falls back to the written text and the arguments; values files that name a vLLM
image beside settings vlint could not read get VL004."""

from __future__ import annotations

import os
from pathlib import Path

from vlint.checks.unread_launch import unread
from vlint.extract.chart_values import MAX_VALUES_SIZE, ChartDefaults
from vlint.extract.helm import extract, unread_values_image
from vlint.model import Invocation, Pos, Span
from vlint.syntax import yamlpos

TEMPLATE = (
    "apiVersion: apps/v1\n"                                                             # 1
    "kind: Deployment\n"                                                                # 2
    "spec:\n"                                                                           # 3
    "  template:\n"                                                                     # 4
    "    spec:\n"                                                                       # 5
    "      containers:\n"                                                               # 6
    "        - name: server\n"                                                          # 7
    '          image: "{{ .Values.image.repository }}:'                                  # 8
    '{{ .Values.image.tag | default .Chart.AppVersion }}"\n'
    "          args:\n"                                                                 # 9
    "            - --swap-space\n"                                                      # 10
    '            - "4"\n'                                                               # 11
    "            - --model={{ .Values.model }}\n"                                       # 12
    "            {{- range .Values.extraArgs }}\n"                                      # 13
    "            - {{ . | quote }}\n"                                                   # 14
    "            {{- end }}\n"                                                          # 15
)
VALUES = "image:\n  repository: vllm/vllm-openai\n  tag: v0.32.0\nmodel: Qwen/Qwen3-8B\n"
CHART = "apiVersion: v2\nname: server\nversion: 1.0.0\nappVersion: v0.30.0\n"


def chart(root: Path, template: str = TEMPLATE, values: str | None = VALUES,
          chart_yaml: str = CHART) -> Path:
    """A chart in a repository at ``root``; the template's path."""
    (root / ".git").mkdir(exist_ok=True)
    (root / "chart" / "templates").mkdir(parents=True, exist_ok=True)
    (root / "chart" / "Chart.yaml").write_text(chart_yaml, "utf-8")
    if values is not None:
        (root / "chart" / "values.yaml").write_text(values, "utf-8")
    path = root / "chart" / "templates" / "deployment.yaml"
    path.write_text(template, "utf-8")
    return path


def launches(path: Path) -> list[Invocation]:
    return extract(str(path), path.read_text("utf-8"))


def at(line: int, column: int, end_line: int, end_column: int) -> Span:
    return Span(Pos(line, column), Pos(end_line, end_column))


def test_image_rendered_from_values_decides_and_targets(tmp_path: Path) -> None:
    [launch] = launches(chart(tmp_path))
    assert launch.entry == "serve"
    assert launch.target == "0.32.0"
    # Only the decision and the target used the values: the launch states no image.
    assert launch.image is None
    swap = [t for t in launch.args if t.text == "--swap-space"][0]
    assert swap.span == at(10, 15, 10, 27) and swap.literal
    model = [t for t in launch.args if t.text.startswith("--model=")][0]
    assert not model.literal and model.span == at(12, 15, 12, 42)


def test_default_takes_the_chart_app_version(tmp_path: Path) -> None:
    values = "image:\n  repository: vllm/vllm-openai\n  tag: ''\nmodel: m\n"
    [launch] = launches(chart(tmp_path, values=values))
    assert launch.target == "0.30.0"


def test_values_naming_another_image_give_no_launch(tmp_path: Path) -> None:
    values = "image:\n  repository: example/router\n  tag: '1.0'\nmodel: m\n"
    assert launches(chart(tmp_path, values=values)) == []


def test_image_alone_from_values_is_the_server(tmp_path: Path) -> None:
    template = TEMPLATE.split("          args:\n")[0]
    [launch] = launches(chart(tmp_path, template=template))
    assert launch.args == () and launch.target == "0.32.0"
    assert launch.anchor == at(8, 19, 8, 101)


INCLUDE = TEMPLATE.replace(
    '"{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"',
    '{{ include "vllm.image" .Values.image | quote }}')


def test_include_falls_back_to_its_text_and_the_arguments(tmp_path: Path) -> None:
    [launch] = launches(chart(tmp_path, template=INCLUDE))
    assert launch.target is None  # a named template vlint does not expand names no release
    assert launch.image is None
    other = INCLUDE.replace("--swap-space", "--concurrency")  # no vLLM release has it
    assert launches(chart(tmp_path, template=other)) == []
    named = INCLUDE.replace('"vllm.image"', '"server.image"')  # nothing says vLLM
    assert launches(chart(tmp_path, template=named)) == []


def test_values_outside_the_repository_are_not_read(tmp_path: Path) -> None:
    repository, outside = tmp_path / "repo", tmp_path / "outside"
    repository.mkdir()
    outside.mkdir()
    (outside / "values.yaml").write_text(VALUES, "utf-8")
    path = chart(repository, values=None)
    os.symlink(outside / "values.yaml", repository / "chart" / "values.yaml")
    assert launches(path) == []  # unread: the image is unknown, and names no vLLM itself


def test_values_that_are_no_regular_file_are_not_read(tmp_path: Path) -> None:
    path = chart(tmp_path, values=None)
    os.mkfifo(tmp_path / "chart" / "values.yaml")  # opening it to read would block
    assert launches(path) == []


def test_huge_values_are_not_read(tmp_path: Path) -> None:
    values = VALUES + "# padding\n" * (MAX_VALUES_SIZE // 10 + 1)
    assert launches(chart(tmp_path, values=values)) == []


def test_aliases_are_followed_never_expanded(tmp_path: Path) -> None:
    laughs = "".join(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]\n" for i in range(1, 30))
    values = ("l0: &l0 [lol]\n" + laughs + "base: &img {repository: vllm/vllm-openai, "
              "tag: v0.31.0}\nimage: *img\nmodel: m\n")
    [launch] = launches(chart(tmp_path, values=values))
    assert launch.target == "0.31.0"


def defaults(values: str, chart_yaml: str = CHART) -> ChartDefaults:
    return ChartDefaults(yamlpos.parse_documents(values)[0], values,
                         yamlpos.parse_documents(chart_yaml)[0])


def test_render_reads_only_what_it_knows() -> None:
    known = defaults("a: {b: x, n: 8, f: 0.10, on: yes, e: ''}\nq: \"y\"\n")
    assert known.render("{{ .Values.a.b }}:{{ $.Values.q }}") == "x:y"
    assert known.render("{{ .Values.a.missing | default \"d\" }}") == "d"
    assert known.render("{{ .Values.a.missing }}/z") == "/z"  # Helm drops "<no value>"
    assert known.render("{{ .Values.a.e | default .Chart.AppVersion }}") == "v0.30.0"
    assert known.render("{{ .Values.a.b | quote }}") == "x"  # the quotes are YAML's
    assert known.render('p-{{ .Values.a.b | quote }}') == 'p-"x"'  # a plain scalar's text
    assert known.render("{{ .Values.a.b | quote }}", plain=False) is None  # ""x"" in quotes
    assert known.render("{{ .Values.a.b }}{{ .Values.q | quote }}") == 'x"y"'
    assert known.render('{{ printf "%s:%s" .Values.a.b .Values.a.n }}') == "x:8"
    assert known.render("a {{- .Values.a.b -}} b") == "axb"
    assert known.render("{{ required \"set it\" .Values.a.b }}") == "x"
    # Go prints a float64 0.10 as 0.1 and YAML 1.1's yes as true.
    assert known.render("{{ .Values.a.f }}") == "0.1"
    assert known.render("{{ .Values.a.on }}") == "true"
    assert known.render("{{ (.Values.a.b) | upper }}") == "X"
    for unknown in ("{{ .Values.nothing.b }}", "{{ .Values.a }}", "{{ include \"x\" . }}",
                    "{{ .Release.Name }}", "{{ required \"m\" .Values.a.e }}", "{{ x }}" * 17):
        assert known.render(unknown) is None, unknown


UNREAD_VALUES = (
    "image:\n"                                  # 1
    "  repository: vllm/vllm-openai\n"          # 2
    "  tag: latest\n"                           # 3
    "model:\n"                                  # 4
    "  maxModelLen: 32768\n"                    # 5
    "service:\n"                                # 6
    "  port: 8000\n"                            # 7
)


def test_unread_values_report_their_vllm_image_once() -> None:
    image = unread_values_image("values.yaml", UNREAD_VALUES)
    assert image is not None and image.value == "vllm/vllm-openai:latest"
    assert image.span == at(2, 15, 2, 31)
    [finding] = unread("values.yaml", "helm", UNREAD_VALUES, [])
    assert finding.code == "VL004" and finding.span == at(2, 15, 2, 31)


def test_values_without_argument_like_keys_are_quiet() -> None:
    quiet = UNREAD_VALUES.replace("maxModelLen", "storageSize")
    assert unread_values_image("values.yaml", quiet) is None
    assert unread("values.yaml", "helm", quiet, []) == []


def test_values_name_a_vllm_image_in_any_key_and_args_lists() -> None:
    text = ("svc:\n  image:\n    version: \"vllm/vllm-openai:v0.7.0\"\n"
            "llm:\n  args: '--dtype auto'\n")
    image = unread_values_image("values.yaml", text)
    assert image is not None and image.span == at(3, 15, 3, 38)
    curated = "image:\n  registry: registry.redhat.io\n  repository: rhaiis/vllm-cuda-rhel9\n" \
              "extraArgs: []\n"
    found = unread_values_image("values.yaml", curated)
    assert found is not None and found.value == "registry.redhat.io/rhaiis/vllm-cuda-rhel9"
    bare = "image:\n  repository: vllm\nextraArgs: []\n"  # the bare word is no image path
    assert unread_values_image("values.yaml", bare) is None
