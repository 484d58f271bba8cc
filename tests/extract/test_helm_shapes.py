"""Chart values shapes read as the commands their charts' templates write (production stack,
bjw-s app-template, llm-d ModelService), Flux HelmReleases, image shapes, and the template
masking that keeps shell continuations and block scalars as Helm renders them."""

from __future__ import annotations

from vlint.discover import kind_of
from vlint.extract.helm import extract, mask
from vlint.model import Invocation, Pos, Span, Token


def texts(invocation: Invocation) -> list[str]:
    return [token.text for token in invocation.args]


def arg(invocation: Invocation, text: str, nth: int = 0) -> Token:
    return [token for token in invocation.args if token.text == text][nth]


def at(line: int, column: int, end_line: int, end_column: int) -> Span:
    return Span(Pos(line, column), Pos(end_line, end_column))


STACK = (
    "servingEngineSpec:\n"                                   # 1
    "  vllmApiKey:\n"                                        # 2
    "    secretName: keys\n"                                 # 3
    "    secretKey: api\n"                                   # 4
    "  containerPort: 8080\n"                                # 5
    "  modelSpec:\n"                                         # 6
    "  - name: llama\n"                                      # 7
    "    repository: vllm/vllm-openai\n"                     # 8
    "    tag: v0.32.0\n"                                     # 9
    "    modelURL: meta-llama/Llama-3.1-8B-Instruct\n"       # 10
    "    requestGPU: 2\n"                                    # 11
    "    enableTool: true\n"                                 # 12
    "    toolCallParser: llama3_json\n"                      # 13
    "    chatTemplate: tool.jinja\n"                         # 14
    "    vllmConfig:\n"                                      # 15
    "      enableChunkedPrefill: false\n"                    # 16
    "      enablePrefixCaching: \"false\"\n"                 # 17
    "      maxModelLen: 16384\n"                             # 18
    "      gpuMemoryUtilization: 0.85\n"                     # 19
    "      v0: \"1\"\n"                                      # 20
    "      extraArgs: [\"--max-num-seqs\", \"8\"]\n"         # 21
    "    env:\n"                                             # 22
    "    - name: HF_HOME\n"                                  # 23
    "      value: /data\n"                                   # 24
    "  - name: off\n"                                        # 25
    "    enabled: false\n"                                   # 26
    "    repository: vllm/vllm-openai\n"                     # 27
    "    modelURL: other\n"                                  # 28
)


def test_production_stack_model_spec_is_the_command_the_template_writes() -> None:
    (launch,) = extract("values.yaml", STACK)
    assert launch.entry == "serve" and launch.kind == "helm"
    assert texts(launch) == [
        "meta-llama/Llama-3.1-8B-Instruct", "--port", "8080",
        "--enable-auto-tool-choice", "--tool-call-parser", "llama3_json",
        "--no-enable-chunked-prefill",
        # A quoted "false" is a non-empty string: Go templates take it as true.
        "--enable-prefix-caching",
        "--max-model-len", "16384", "--gpu_memory_utilization", "0.85",
        "--max-num-seqs", "8",
        "--chat-template", "/templates/tool.jinja",
    ]
    assert launch.args[0].span == at(10, 15, 10, 47)
    assert launch.anchor == at(10, 15, 10, 47)
    # A flag the chart writes sits at its key; its value at the YAML value.
    assert arg(launch, "--max-model-len").span == at(18, 7, 18, 18)
    assert arg(launch, "16384").span == at(18, 20, 18, 25)
    assert arg(launch, "--no-enable-chunked-prefill").span == at(16, 7, 16, 27)
    assert arg(launch, "--port").span == at(5, 3, 5, 16)
    assert arg(launch, "--max-num-seqs").span == at(21, 20, 21, 34)
    template = arg(launch, "/templates/tool.jinja")
    assert template.span == at(14, 19, 14, 29) and template.literal
    assert launch.image == "vllm/vllm-openai:v0.32.0"
    assert launch.image_span == at(8, 17, 8, 33)
    assert launch.target == "0.32.0"
    gpus = launch.deployment.gpus
    assert gpus is not None and gpus.value == 2 and gpus.span == at(11, 17, 11, 18)
    env = launch.deployment.env
    assert env["HF_HOME"].value.text == "/data"
    assert env["VLLM_USE_V1"].value.text == "0"
    assert env["VLLM_USE_V1"].name_span == at(20, 7, 20, 9)
    assert not env["VLLM_API_KEY"].value.literal
    assert env["VLLM_API_KEY"].name_span == at(2, 3, 2, 13)


def test_production_stack_ray_entries_follow_the_ray_script() -> None:
    text = (
        "servingEngineSpec:\n"                      # 1
        "  modelSpec:\n"                            # 2
        "  - name: big\n"                           # 3
        "    repository: vllm/vllm-openai\n"        # 4
        "    tag: v0.31.0\n"                        # 5
        "    modelURL: m\n"                         # 6
        "    raySpec:\n"                            # 7
        "      enabled: true\n"                     # 8
        "    vllmConfig:\n"                         # 9
        "      enablePrefixCaching: false\n"        # 10
        "      pipelineParallelSize: 2\n"           # 11
        "      gpuMemoryUtilization: 0.9\n"         # 12
    )
    (launch,) = extract("values.yaml", text)
    assert texts(launch) == [
        "m", "--distributed-executor-backend", "ray",
        "--pipeline-parallel-size", "2", "--gpu-memory-utilization", "0.9",
    ]
    assert arg(launch, "ray").span == at(7, 5, 7, 12)


def test_production_stack_without_engine_deploys_nothing() -> None:
    text = STACK.replace("servingEngineSpec:\n", "servingEngineSpec:\n  enableEngine: false\n")
    assert extract("values.yaml", text) == []


HELM_RELEASE = (
    "---\n"                                                          # 1
    "apiVersion: helm.toolkit.fluxcd.io/v2\n"                        # 2
    "kind: HelmRelease\n"                                            # 3
    "metadata:\n"                                                    # 4
    "  name: vllm\n"                                                 # 5
    "spec:\n"                                                        # 6
    "  chartRef: {kind: OCIRepository, name: app-template}\n"        # 7
    "  values:\n"                                                    # 8
    "    controllers:\n"                                             # 9
    "      vllm:\n"                                                  # 10
    "        defaultContainerOptions:\n"                             # 11
    "          resources:\n"                                         # 12
    "            limits:\n"                                          # 13
    "              nvidia.com/gpu: 1\n"                              # 14
    "        containers:\n"                                          # 15
    "          app:\n"                                               # 16
    "            image:\n"                                           # 17
    "              repository: vllm/vllm-openai\n"                   # 18
    "              tag: v0.33.0\n"                                   # 19
    "            args:\n"                                            # 20
    "              - Qwen/Qwen3-8B\n"                                # 21
    "              - --max-model-len=${MAX_LEN}\n"                   # 22
    "              - --served-model-name={{ .Release.Name }}\n"      # 23
    "            env:\n"                                             # 24
    "              TZ: ${TIMEZONE}\n"                                # 25
    "              VLLM_API_KEY:\n"                                  # 26
    "                valueFrom:\n"                                   # 27
    "                  secretKeyRef: {name: vllm, key: key}\n"       # 28
    "              HF_HOME:\n"                                       # 29
    "                value: /models\n"                               # 30
    "          helper:\n"                                            # 31
    "            image: {repository: busybox, tag: '1.36'}\n"        # 32
    "            command: sh -c 'sleep 1'\n"                         # 33
    "      off:\n"                                                   # 34
    "        enabled: false\n"                                       # 35
    "        containers:\n"                                          # 36
    "          app:\n"                                               # 37
    "            image: {repository: vllm/vllm-openai, tag: v0.33.0}\n"  # 38
    "            args: [m]\n"                                        # 39
)


def test_helm_release_is_claimed_as_helm() -> None:
    assert kind_of("vllm/app/helmrelease.yaml", HELM_RELEASE.encode()) == "helm"


def test_app_template_container_in_a_helm_release() -> None:
    (launch,) = extract("helmrelease.yaml", HELM_RELEASE)
    assert launch.kind == "helm" and launch.entry == "serve"
    assert texts(launch) == [
        "Qwen/Qwen3-8B", "--max-model-len=${MAX_LEN}", "--served-model-name={{ .Release.Name }}",
    ]
    model, length, name = launch.args
    assert model.literal and model.span == at(21, 17, 21, 30)
    # Flux substitutes ${VAR} and app-template renders {{ }}: both are unresolved.
    assert not length.literal and length.span == at(22, 17, 22, 43)
    assert not name.literal
    assert launch.image == "vllm/vllm-openai:v0.33.0" and launch.target == "0.33.0"
    assert launch.image_span == at(18, 27, 18, 43)
    gpus = launch.deployment.gpus  # from the controller's defaultContainerOptions
    assert gpus is not None and gpus.value == 1 and gpus.span == at(14, 31, 14, 32)
    env = launch.deployment.env
    assert not env["TZ"].value.literal
    assert not env["VLLM_API_KEY"].value.literal
    assert env["VLLM_API_KEY"].name_span == at(26, 15, 26, 27)
    assert env["HF_HOME"].value.text == "/models" and env["HF_HOME"].value.literal


def test_app_template_command_string_is_one_word_and_image_alone_is_a_launch() -> None:
    text = (
        "controllers:\n"                                          # 1
        "  main:\n"                                               # 2
        "    containers:\n"                                       # 3
        "      main:\n"                                           # 4
        "        image: {repository: vllm/vllm-openai, tag: v0.31.0}\n"   # 5
        "        command: vllm serve m --max-num-seqs 4\n"        # 6
        "      bare:\n"                                           # 7
        "        image: {repository: vllm/vllm-openai, tag: v0.31.0}\n"   # 8
    )
    # One string is one word (the container would run a program named "vllm serve m ..."):
    # no launch there; the image alone runs its own entrypoint.
    (bare,) = extract("values.yaml", text)
    assert bare.args == () and bare.anchor == at(8, 29, 8, 45)
    assert bare.target == "0.31.0"


def test_app_template_unrelated_args_are_no_launch() -> None:
    text = (
        "controllers:\n"
        "  main:\n"
        "    containers:\n"
        "      main:\n"
        "        image: {repository: ghcr.io/example/router, tag: '1.0'}\n"
        "        args: [--max-num-seqs, '8', --port, '8000']\n"
        "        env: {VLLM_URL: http://vllm:8000}\n"
    )
    assert extract("values.yaml", text) == []


MODELSERVICE = (
    "modelArtifacts:\n"                                      # 1
    "  uri: hf://Qwen/Qwen3-0.6B\n"                          # 2
    "  name: qwen3\n"                                        # 3
    "routing:\n"                                             # 4
    "  servicePort: 8000\n"                                  # 5
    "  proxy:\n"                                             # 6
    "    targetPort: 8200\n"                                 # 7
    "decode:\n"                                              # 8
    "  parallelism:\n"                                       # 9
    "    tensor: 4\n"                                        # 10
    "  containers:\n"                                        # 11
    "  - name: vllm\n"                                       # 12
    "    image: ghcr.io/llm-d/llm-d-cuda:v0.3.0\n"           # 13
    "    modelCommand: vllmServe\n"                          # 14
    "    args: [--max-model-len, '4096']\n"                  # 15
    "    env:\n"                                             # 16
    "    - name: VLLM_LOGGING_LEVEL\n"                       # 17
    "      value: DEBUG\n"                                   # 18
    "prefill:\n"                                             # 19
    "  create: false\n"                                      # 20
    "  containers:\n"                                        # 21
    "  - name: vllm\n"                                       # 22
    "    image: ghcr.io/llm-d/llm-d-cuda:v0.3.0\n"           # 23
    "    modelCommand: vllmServe\n"                          # 24
)


def test_modelservice_vllm_serve_builds_the_chart_argv() -> None:
    (launch,) = extract("values.yaml", MODELSERVICE)
    assert launch.entry == "serve"
    assert texts(launch) == [
        "Qwen/Qwen3-0.6B", "--port", "8200", "--tensor-parallel-size", "4",
        "--served-model-name", "qwen3", "--max-model-len", "4096",
    ]
    assert launch.args[0].span == at(2, 13, 2, 28)
    assert arg(launch, "--port").span == at(7, 5, 7, 15)
    assert arg(launch, "8200").span == at(7, 17, 7, 21)
    assert arg(launch, "--tensor-parallel-size").span == at(10, 5, 10, 11)
    assert arg(launch, "--served-model-name").span == at(14, 19, 14, 28)
    assert arg(launch, "qwen3").span == at(3, 9, 3, 14)
    assert launch.anchor == at(14, 19, 14, 28)
    assert launch.deployment.env["VLLM_LOGGING_LEVEL"].value.text == "DEBUG"
    assert launch.image == "ghcr.io/llm-d/llm-d-cuda:v0.3.0"


def test_modelservice_port_from_the_chart_default_is_unresolved() -> None:
    text = MODELSERVICE.replace("    targetPort: 8200\n", "    connector: nixlv2\n")
    (launch,) = extract("values.yaml", text)
    port = launch.args[launch.args.index(arg(launch, "--port")) + 1]
    assert not port.literal and port.span == at(14, 19, 14, 19)


def test_modelservice_custom_and_image_default_commands() -> None:
    text = (
        "modelArtifacts: {uri: 'pvc://models/llama', name: llama}\n"          # 1
        "decode:\n"                                                           # 2
        "  containers:\n"                                                     # 3
        "  - image: vllm/vllm-openai:v0.31.0\n"                               # 4
        "    modelCommand: imageDefault\n"                                    # 5
        "prefill:\n"                                                          # 6
        "  containers:\n"                                                     # 7
        "  - image: example/tool:1\n"                                         # 8
        "    command: [python3, -m, vllm.entrypoints.openai.api_server]\n"    # 9
        "    args: [--model, m]\n"                                            # 10
    )
    default, custom = extract("values.yaml", text)
    assert texts(default)[:2] == ["--model", "pvc://models/llama"]
    assert not default.args[1].literal  # a path of the chart's making
    assert default.target == "0.31.0"
    assert custom.entry == "api_server" and texts(custom) == ["--model", "m"]


def test_image_shapes_beyond_repository() -> None:
    text = (
        "server:\n"                                                   # 1
        "  image: {registry: docker.io, repository: vllm/vllm-openai, tag: v0.31.0}\n"  # 2
        "  args: [--max-num-seqs, '4']\n"                             # 3
        "other:\n"                                                    # 4
        "  image: {name: vllm/vllm-openai, tag: v0.32.0}\n"           # 5
        "  extraArgs: [--max-num-seqs, '2']\n"                        # 6
        "unrelated:\n"                                                # 7
        "  name: vllm\n"                                              # 8
        "  args: [--max-num-seqs, '1']\n"                             # 9
    )
    first, second = extract("values.yaml", text)
    assert first.image == "docker.io/vllm/vllm-openai:v0.31.0"
    assert first.image_span == at(2, 44, 2, 60)
    assert second.image == "vllm/vllm-openai:v0.32.0" and second.target == "0.32.0"


SHELL_TEMPLATE = (
    "apiVersion: apps/v1\n"                                              # 1
    "kind: Deployment\n"                                                 # 2
    "spec:\n"                                                            # 3
    "  template:\n"                                                      # 4
    "    spec:\n"                                                        # 5
    "      containers:\n"                                                # 6
    "      - name: vllm\n"                                               # 7
    "        command: [/bin/sh, -c]\n"                                   # 8
    "        args:\n"                                                    # 9
    "        - |\n"                                                      # 10
    "          {{- if .Values.lmcache }}\n"                              # 11
    "          export URL=${POD_IP} && \\\n"                             # 12
    "          {{- end }}\n"                                             # 13
    "          vllm serve {{ .Values.model }} \\\n"                      # 14
    "          {{- if .Values.chunked }}\n"                              # 15
    "          --enable-chunked-prefill \\{{- else }}--no-x \\\n"        # 16
    "          {{- end }}\n"                                             # 17
    "          --block-size 16\n"                                        # 18
)


def test_mask_keeps_continuations_and_the_block_indentation() -> None:
    masked, _ = mask(SHELL_TEMPLATE)
    assert len(masked) == len(SHELL_TEMPLATE)
    lines = masked.split("\n")
    assert lines[10].lstrip().startswith("#")  # a blanked first line of the block
    assert lines[14].endswith("\\") and not lines[14].strip(" \\")
    assert "--no-x" not in lines[15] and lines[15].endswith("\\")
    (launch,) = extract("deploy.yaml", SHELL_TEMPLATE)
    assert texts(launch) == [
        "{{ .Values.model }}", "--enable-chunked-prefill", "--block-size", "16",
    ]
    assert arg(launch, "--block-size").span == at(18, 11, 18, 23)
    assert not launch.line_breaks


def test_aliased_entries_are_read_once_and_nesting_is_bounded() -> None:
    entry = "&e {name: a, repository: vllm/vllm-openai, tag: v0.31.0, modelURL: m}"
    text = ("servingEngineSpec:\n  modelSpec: [" + entry + ", "
            + ", ".join(["*e"] * 20_000) + "]\n")
    (launch,) = extract("values.yaml", text)
    assert texts(launch) == ["m"]

    def nested(depth: int) -> str:
        keys = "".join("  " * level + "sub:\n" for level in range(depth))
        indent = "  " * depth
        return (keys + indent + "servingEngineSpec:\n" + indent + "  modelSpec:\n"
                + indent + "  - {name: a, modelURL: m}\n")

    # An umbrella chart's sub-chart values are found at their depth; the walk stops at 64.
    (launch,) = extract("values.yaml", nested(30))
    assert launch.args[0].span.start.line == 33
    assert extract("values.yaml", nested(200)) == []


def test_helm_release_with_trailing_tabs_still_parses() -> None:
    text = HELM_RELEASE.replace("kind: HelmRelease\n", "kind: HelmRelease\t\n")
    (launch,) = extract("helmrelease.yaml", text)
    assert launch.args[0].text == "Qwen/Qwen3-8B"


def test_chart_values_are_claimed_by_content_not_only_by_name() -> None:
    assert kind_of("deploy/llama.yaml", STACK.encode()) == "helm"
    assert kind_of("deploy/ms.yaml", MODELSERVICE.encode()) == "helm"
    app = b"controllers:\n  main:\n    containers:\n      main: {image: {repository: x}}\n"
    assert kind_of("deploy/app.yaml", app) == "helm"
    assert kind_of("deploy/other.yaml", b"controllers: [a, b]\n") is None
    # A manifest stays a manifest.
    manifest = b"apiVersion: v1\nkind: ConfigMap\ndata:\n  x: |\n    servingEngineSpec:\n"
    assert kind_of("deploy/cm.yaml", manifest) == "kubernetes"


def test_app_template_probes_and_shared_memory() -> None:
    text = (
        "controllers:\n"                                                      # 1
        "  vllm:\n"                                                           # 2
        "    containers:\n"                                                   # 3
        "      app:\n"                                                        # 4
        "        image: {repository: vllm/vllm-openai, tag: v0.31.0}\n"       # 5
        "        args: [m]\n"                                                 # 6
        "        probes:\n"                                                   # 7
        "          startup:\n"                                                # 8
        "            enabled: true\n"                                         # 9
        "            custom: true\n"                                          # 10
        "            spec:\n"                                                 # 11
        "              httpGet: {path: /health, port: 8000}\n"                # 12
        "              failureThreshold: 60\n"                                # 13
        "          liveness:\n"                                               # 14
        "            enabled: false\n"                                        # 15
        "persistence:\n"                                                      # 16
        "  shm:\n"                                                            # 17
        "    type: emptyDir\n"                                                # 18
        "    medium: Memory\n"                                                # 19
        "    sizeLimit: 8Gi\n"                                                # 20
        "    advancedMounts:\n"                                               # 21
        "      vllm:\n"                                                       # 22
        "        app:\n"                                                      # 23
        "          - path: /dev/shm\n"                                        # 24
        "  cache:\n"                                                          # 25
        "    existingClaim: models\n"                                         # 26
    )
    (launch,) = extract("values.yaml", text)
    (probe,) = launch.deployment.probes
    assert probe.kind == "startup" and probe.handler == "httpGet"
    assert probe.span == at(8, 11, 8, 18)
    assert probe.port is not None and probe.port.value == 8000
    assert probe.failure_threshold is not None and probe.failure_threshold.value == 60
    shm = launch.deployment.shm_size
    assert shm is not None and shm.value == 8 * 2**30 and shm.span == at(20, 16, 20, 19)
    targets = sorted(str(m.target.value) for m in launch.deployment.volumes)
    assert targets == ["/cache", "/dev/shm"]
