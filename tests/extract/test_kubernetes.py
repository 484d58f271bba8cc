from __future__ import annotations

import pytest

from tests._support.invocations import args
from vlint.discover import kind_of
from vlint.errors import Unparsable
from vlint.extract import manifests
from vlint.extract.kubernetes import claims, expand, extract
from vlint.model import Invocation, Pos, Span, Token


def run(text: str) -> list[Invocation]:
    return extract("deploy.yaml", text)


def one(text: str) -> Invocation:
    found = run(text)
    assert len(found) == 1, found
    return found[0]


def texts(invocation: Invocation) -> list[str]:
    return [token.text for token in invocation.args]


def arg(invocation: Invocation, text: str) -> Token:
    return next(token for token in invocation.args if token.text == text)


DEPLOYMENT = (
    "apiVersion: apps/v1\n"                          # 1
    "kind: Deployment\n"                             # 2
    "spec:\n"                                        # 3
    "  template:\n"                                  # 4
    "    spec:\n"                                    # 5
    "      containers:\n"                            # 6
    "        - name: vllm\n"                         # 7
    "          image: vllm/vllm-openai:v0.32.0\n"    # 8
    "          command: [\"vllm\", \"serve\"]\n"     # 9
    "          args:\n"                              # 10
    "            - Qwen/Qwen3-8B\n"                  # 11
    "            - --max-num-seqs\n"                 # 12
    "            - \"16\"\n"                         # 13
    "          env:\n"                               # 14
    "            - name: VLLM_LOGGING_LEVEL\n"       # 15
    "              value: DEBUG\n"                   # 16
)


def test_claims_top_level_api_version_and_kind() -> None:
    assert claims("x.yaml", DEPLOYMENT.encode())
    assert not claims("x.yaml", b"spec:\n  apiVersion: v1\n  kind: Pod\n")
    assert kind_of("deploy.yaml", DEPLOYMENT.encode()) == "kubernetes"


def test_command_and_args_are_joined() -> None:
    invocation = one(DEPLOYMENT)
    assert invocation.kind == "kubernetes"
    assert invocation.entry == "serve"
    assert texts(invocation) == ["Qwen/Qwen3-8B", "--max-num-seqs", "16"]
    assert invocation.anchor == Span(Pos(9, 22), Pos(9, 35))
    assert arg(invocation, "--max-num-seqs").span == Span(Pos(12, 15), Pos(12, 29))
    assert arg(invocation, "16").positions == (Pos(13, 16), Pos(13, 17), Pos(13, 18))
    assert invocation.image == "vllm/vllm-openai:v0.32.0"
    assert invocation.target == "0.32.0"
    assert invocation.env["VLLM_LOGGING_LEVEL"].text == "DEBUG"
    assert invocation.env["VLLM_LOGGING_LEVEL"].span == Span(Pos(16, 22), Pos(16, 27))


def test_args_alone_on_a_server_image_are_the_server_arguments() -> None:
    text = (
        "apiVersion: v1\n"
        "kind: Pod\n"
        "spec:\n"
        "  containers:\n"
        "  - image: vllm/vllm-openai:v0.31.0\n"
        "    args: [\"--model\", \"m\", \"--dtype auto\"]\n"
    )
    invocation = one(text)
    assert invocation.entry == "serve"
    assert texts(invocation) == ["--model", "m", "--dtype auto"]
    assert arg(invocation, "--dtype auto").span == Span(Pos(6, 29), Pos(6, 41))


def test_args_alone_on_another_image_launch_nothing() -> None:
    text = "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - image: busybox\n    args: [--model, m]\n"
    assert run(text) == []


def test_command_on_a_server_image_replaces_its_entrypoint() -> None:
    text = (
        "apiVersion: v1\n"
        "kind: Pod\n"
        "spec:\n"
        "  containers:\n"
        "  - image: vllm/vllm-openai:v0.31.0\n"
        "    command: [/bin/bash, /start.sh]\n"
        "    args: [--max-num-seqs, \"8\"]\n"
    )
    assert run(text) == []


def test_bare_server_image_is_an_invocation_without_arguments() -> None:
    text = "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - image: vllm/vllm-openai:v0.33.0\n"
    invocation = one(text)
    assert invocation.args == ()
    assert invocation.anchor == Span(Pos(5, 12), Pos(5, 36))


def test_sh_c_script_keeps_positions() -> None:
    text = (
        "apiVersion: batch/v1\n"
        "kind: CronJob\n"
        "spec:\n"
        "  jobTemplate:\n"
        "    spec:\n"
        "      template:\n"
        "        spec:\n"
        "          initContainers:\n"
        "          - image: busybox\n"
        "            command: [sh, -c, 'echo hi']\n"
        "          containers:\n"
        "          - image: python:3.11\n"
        "            command: [\"/bin/sh\", \"-c\"]\n"
        "            args:\n"
        "            - |\n"
        "              vllm serve m \\\n"
        "                --max-num-seqs 8\n"
    )
    invocation = one(text)
    assert texts(invocation) == ["m", "--max-num-seqs", "8"]
    assert arg(invocation, "--max-num-seqs").span == Span(Pos(17, 17), Pos(17, 31))
    assert invocation.image == "python:3.11"
    assert invocation.target is None


def test_bash_lc_double_dash_script() -> None:
    text = (
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n"
        "  - image: vllm/vllm-openai:v0.31.0\n"
        "    command: [\"/bin/bash\", \"-lc\", \"--\"]\n"
        "    args: [\"ulimit -n 65536; vllm serve m --max-num-seqs 4\"]\n"
    )
    invocation = one(text)
    assert texts(invocation) == ["m", "--max-num-seqs", "4"]
    assert arg(invocation, "4").span == Span(Pos(7, 58), Pos(7, 59))


def test_dollar_paren_expansion_from_literal_env() -> None:
    text = (
        "apiVersion: v1\n"
        "kind: Pod\n"
        "spec:\n"
        "  containers:\n"
        "  - image: vllm/vllm-openai:v0.31.0\n"
        "    env:\n"
        "    - name: SEQS\n"
        "      value: \"16\"\n"
        "    - name: TOKEN\n"
        "      valueFrom: {secretKeyRef: {name: s, key: k}}\n"
        "    args:\n"
        "    - --max-num-seqs=$(SEQS)\n"
        "    - --api-key=$(TOKEN)\n"
        "    - --served-model-name=$$(SEQS)\n"
        "    - $(UNDEFINED)\n"
    )
    invocation = one(text)
    seqs, key, served, undefined = invocation.args
    assert seqs.text == "--max-num-seqs=16" and seqs.literal
    # The value's characters sit where the reference starts.
    assert seqs.positions[15:] == (Pos(12, 22), Pos(12, 22), Pos(12, 29))
    assert key.text == "--api-key=$(TOKEN)" and not key.literal
    assert served.text == "--served-model-name=$(SEQS)" and served.literal
    assert undefined.text == "$(UNDEFINED)" and not undefined.literal
    assert not invocation.env["TOKEN"].literal


def test_expand_without_references_is_identity() -> None:
    token = Token.located("--x", 0, lambda offset: Pos(1, offset + 1))
    assert expand(token, {}) is token


def test_every_workload_kind_and_custom_resources() -> None:
    text = (
        "apiVersion: leaderworkerset.x-k8s.io/v1\n"
        "kind: LeaderWorkerSet\n"
        "spec:\n"
        "  leaderWorkerTemplate:\n"
        "    leaderTemplate:\n"
        "      spec:\n"
        "        containers:\n"
        "        - image: vllm/vllm-openai:v0.31.0\n"
        "          args: [--max-num-seqs, \"1\"]\n"
        "    workerTemplate:\n"
        "      spec:\n"
        "        containers:\n"
        "        - image: vllm/vllm-openai:v0.31.0\n"
        "          command: [sh, -c, \"ray start --block\"]\n"
        "---\n"
        "apiVersion: ray.io/v1\n"
        "kind: RayService\n"
        "spec:\n"
        "  rayClusterConfig:\n"
        "    headGroupSpec:\n"
        "      template:\n"
        "        spec:\n"
        "          containers:\n"
        "          - image: vllm/vllm-openai:v0.32.0\n"
        "            args: [--max-num-seqs, \"2\"]\n"
        "---\n"
        "apiVersion: example.com/v1\n"
        "kind: Anything\n"
        "spec:\n"
        "  deeply:\n"
        "    nested:\n"
        "      - pod:\n"
        "          containers:\n"
        "          - image: vllm/vllm-openai:v0.33.0\n"
        "            args: [--max-num-seqs, \"3\"]\n"
    )
    found = run(text)
    assert [texts(i)[1] for i in found] == ["1", "2", "3"]
    assert [i.target for i in found] == ["0.31.0", "0.32.0", "0.33.0"]


def test_kserve_model_args_join_the_runtime_container() -> None:
    text = (
        "apiVersion: serving.kserve.io/v1alpha1\n"
        "kind: ServingRuntime\n"
        "metadata:\n"
        "  name: my-vllm\n"
        "spec:\n"
        "  containers:\n"
        "  - image: vllm/vllm-openai:v0.32.0\n"
        "    args: [--port, \"8000\"]\n"
        "---\n"
        "apiVersion: serving.kserve.io/v1beta1\n"
        "kind: InferenceService\n"
        "spec:\n"
        "  predictor:\n"
        "    model:\n"
        "      runtime: my-vllm\n"
        "      modelFormat: {name: huggingface}\n"
        "      args: [--max-num-seqs, \"8\"]\n"
    )
    runtime, service = run(text)
    assert texts(runtime) == ["--port", "8000"]
    assert texts(service) == ["--port", "8000", "--max-num-seqs", "8"]
    assert service.target == "0.32.0"
    assert arg(service, "8").span == Span(Pos(17, 31), Pos(17, 32))


def test_kserve_vllm_model_format_and_kubeai_engine_feed_the_api_server() -> None:
    text = (
        "apiVersion: serving.kserve.io/v1beta1\n"
        "kind: InferenceService\n"
        "spec:\n"
        "  predictor:\n"
        "    model:\n"
        "      modelFormat:\n"
        "        name: vLLM\n"
        "      args: [--max-num-seqs=8]\n"
        "---\n"
        "apiVersion: kubeai.org/v1\n"
        "kind: Model\n"
        "spec:\n"
        "  engine: VLLM\n"
        "  args:\n"
        "    - --max-num-batched-token=8192\n"
    )
    kserve, kubeai = run(text)
    assert kserve.entry == kubeai.entry == "api_server"
    assert texts(kubeai) == ["--max-num-batched-token=8192"]
    assert kubeai.anchor == Span(Pos(15, 7), Pos(15, 35))


def test_ray_image_tag_other_than_vllm_sets_no_target() -> None:
    text = (
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n"
        "  - image: ghcr.io/llm-d/llm-d-cuda:v0.9.0\n"
        "    command: [vllm, serve, m]\n"
    )
    assert one(text).target is None


def test_malformed_manifest_is_unparsable() -> None:
    with pytest.raises(Unparsable) as caught:
        run("apiVersion: v1\nkind: Pod\nspec:\n  containers: [\n")
    assert caught.value.where.line == 5


def test_trailing_tab_is_white_space() -> None:
    text = (
        "apiVersion: v1\nkind: Service\nspec:\n  type: LoadBalancer\t\n---\n"
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - image: vllm/vllm-openai:v0.31.0\n"
    )
    assert len(run(text)) == 1


def test_a_substitution_for_a_tool_run_before_kubectl_is_not_a_value() -> None:
    text = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
            "    - name: vllm\n      image: ${VLLM_IMAGE}\n"
            '      args: ["--model", "${MODEL}", "--max-model-len", "${MAX_LEN:-4096}"]\n')
    [launch] = extract("pod.yaml", text)
    assert launch.target is None and launch.image is None
    assert [(t.text, t.literal) for t in launch.args] == [
        ("--model", True), ("${MODEL}", False), ("--max-model-len", True),
        ("${MAX_LEN:-4096}", False)]


WORKFLOWS = """\
apiVersion: argoproj.io/v1alpha1
kind: WorkflowTemplate
metadata: {name: serve}
spec:
  templates:
    - name: main
      steps:
        - - name: up
            template: serve
    - name: serve
      container:
        image: vllm/vllm-openai:v0.9.2
        args: ["--model", "m", "--max-num-seqs", "8"]
    - name: bench
      script:
        image: vllm/vllm-openai:v0.9.2
        command: [bash]
        source: |
          vllm serve m --port 8001
---
apiVersion: tekton.dev/v1
kind: Task
metadata: {name: serve}
spec:
  steps:
    - name: serve
      image: vllm/vllm-openai:v0.9.2
      script: |
        #!/bin/sh
        vllm serve m --port 8002
    - name: report
      image: python:3.12
      script: |
        #!/usr/bin/env python3
        print("vllm serve m")
"""


def test_workflow_engines_containers_and_scripts() -> None:
    found = extract("wf.yaml", WORKFLOWS)
    assert [launch.anchor.start.line for launch in found] == [13, 19, 30]
    argo, script, tekton = found
    assert [t.text for t in argo.args] == ["--model", "m", "--max-num-seqs", "8"]
    assert script.args[-1].span == Span(Pos(19, 31), Pos(19, 35))
    assert tekton.args[-1].span == Span(Pos(30, 29), Pos(30, 33))
    assert tekton.target == "0.9.2"


CONFIGURED = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: vllm-config}
data:
  MODEL: org/m
  ARGS: "--max-num-seqs 16k --port 8000"
  HF_HOME: /cache
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.9.2
          command: ["/bin/sh", "-c"]
          args: ["vllm serve $(MODEL) $(ARGS)"]
          envFrom:
            - configMapRef: {name: vllm-config}
          env:
            - name: MODEL
              valueFrom:
                configMapKeyRef: {name: vllm-config, key: MODEL}
            - name: TOKEN
              valueFrom:
                secretKeyRef: {name: hf, key: token}
"""


def test_a_config_map_of_the_same_file_gives_its_values() -> None:
    [launch] = extract("vllm.yaml", CONFIGURED)
    assert [t.text for t in launch.args] == ["org/m", "--max-num-seqs", "16k", "--port", "8000"]
    # (An expanded $(VAR) is placed where the reference is written, as for env values.)
    assert launch.args[2].span.start.line == 19 and launch.args[2].literal
    assert launch.env["HF_HOME"].text == "/cache" and not launch.env["TOKEN"].literal
    assert not launch.env_unknown
    other = CONFIGURED.replace("configMapRef: {name: vllm-config}", "secretRef: {name: s}")
    assert extract("vllm.yaml", other)[0].env_unknown


CONFIG_MAP_SCRIPTS = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: serve-scripts
data:
  serve.py: |
    from vllm import AsyncEngineArgs
    args = AsyncEngineArgs(model="org/m", swap_space=4)
  start.sh: |
    #!/bin/bash
    exec vllm serve org/m --max-model-len 16k
  notes.txt: |
    vllm serve org/m --max-model-len 8k
  broken.py: |
    vllm serve (
"""


def test_the_scripts_a_config_map_holds_are_read_at_their_places() -> None:
    python_launch, shell_launch = manifests.extract("scripts.yaml", CONFIG_MAP_SCRIPTS)
    assert python_launch.origin == ("kubernetes", "python")
    assert python_launch.callee == "AsyncEngineArgs"
    swap = next(k for k in python_launch.keywords if k.name.text == "swap_space")
    assert swap.name.span == Span(Pos(8, 43), Pos(8, 53))
    assert shell_launch.origin == ("kubernetes", "shell")
    assert args(shell_launch) == ["org/m", "--max-model-len", "16k"]
    assert arg(shell_launch, "16k").span == Span(Pos(11, 43), Pos(11, 46))
