"""VL503's secret never reaches any output format, and the VL5xx findings on the real corpus are
exactly the reviewed set (the corpus is read in place, never copied)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vlint.engine.lint import lint
from vlint.settings import Settings
from vlint.render import RENDERERS, renderer

SECRET = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345"
KEY = "s3cr3t-k3y-value"
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "real"


@pytest.mark.parametrize("fmt", sorted(RENDERERS))
def test_secret_masked_in_every_format(fmt: str, tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text(f"HF_TOKEN={SECRET} vllm serve m --api-key {KEY}\n", "utf-8")
    compose = tmp_path / "docker-compose.yml"
    compose.write_text(
        "services:\n  vllm:\n    image: vllm/vllm-openai:v0.32.0\n"
        f"    environment:\n      HF_TOKEN: {SECRET}\n    command: [m, --api-key, {KEY}]\n",
        "utf-8",
    )
    report = lint([str(script), str(compose)], Settings(target="0.32.0"))
    assert sum(f.code == "VL503" for f in report.findings) == 4
    out = renderer(fmt).render(report)
    assert SECRET not in out and SECRET[4:] not in out and KEY not in out
    if fmt == "full":
        assert "HF_TOKEN=" + "*" * len(SECRET) in out


def test_corpus_security_findings() -> None:
    if not CORPUS.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"no corpus at {CORPUS}")
        pytest.skip("../shared/corpus/real is not beside this checkout")
    report = lint([str(CORPUS)], Settings(target="0.32.0", select=("VL5",)))
    found = sorted(
        (str(Path(f.path).relative_to(CORPUS)), f.span.start.line, f.code)
        for f in report.findings
    )
    assert found == sorted(EXPECTED)


# Reviewed by hand (file, line, code); linted as 0.32.0 so that files pinning releases outside
# the catalog are judged too.  Every entry was judged a true positive.
EXPECTED: list[tuple[str, int, str]] = [
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 30, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 45, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 63, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 81, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 100, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 115, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 133, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 151, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 170, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 185, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 203, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 221, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 240, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 255, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 273, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 291, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 450, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 467, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 487, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 507, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 528, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 545, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 565, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 585, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 606, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 623, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 643, 'VL502'),
    ('a_compose/AMD-melliott__ai-infra-summit__docker-compose.vllm.yaml', 663, 'VL502'),
    ('a_compose/Austontatious__lex__docker-compose.yml', 111, 'VL501'),
    ('a_compose/Cloud-Linuxer__gpt-oss__vllm__docker-compose.yml', 25, 'VL501'),
    ('a_compose/NASTP-ce__vllm-deployment__docker-compose.yml', 13, 'VL501'),
    ('a_compose/NapthaAI__node__node__compose-files__vllm-models__DeepSeek-R1-Distill-Qwen-32B.yml', 3, 'VL504'),
    ('a_compose/NapthaAI__node__node__compose-files__vllm-models__DeepSeek-R1-Distill-Qwen-32B.yml', 5, 'VL501'),
    ('a_compose/NapthaAI__node__node__compose-files__vllm-models__DeepSeek-R1-Distill-Qwen-32B.yml', 9, 'VL502'),
    ('a_compose/Trinq2003__vllm-docker-compose__vllm__qwen25-14b-instruct-1m__docker-compose.yaml', 27, 'VL501'),
    ('a_compose/Trinq2003__vllm-docker-compose__vllm__qwen25-14b-instruct-1m__docker-compose.yaml', 32, 'VL502'),
    ('a_compose/fabric-testbed__llms__vllm__gpt-oss-120b__docker-compose-gpu.yml', 3, 'VL504'),
    ('a_compose/fabric-testbed__llms__vllm__gpt-oss-120b__docker-compose-gpu.yml', 49, 'VL501'),
    ('a_compose/fabric-testbed__llms__vllm__gpt-oss-120b__docker-compose-gpu.yml', 55, 'VL502'),
    ('a_compose/hoangphuc10x__lfm2-otp__docker-compose.yml', 17, 'VL501'),
    ('a_compose/jjzha__chat-aau__docker-compose.yaml', 15, 'VL502'),
    ('a_compose/jjzha__chat-aau__docker-compose.yaml', 20, 'VL503'),
    ('a_compose/joshsanz__vllm-serve-multi__vllm__qwen36-35b-a3b__docker-compose.yml', 43, 'VL501'),
    ('a_compose/joshsanz__vllm-serve-multi__vllm__qwen36-35b-a3b__docker-compose.yml', 54, 'VL502'),
    ('a_compose/lianshufeng__docker_llm__vllm__docker-compose-v0.5.2.yml', 32, 'VL501'),
    ('a_compose/tacos8me__vllm-docker-unfucked__docker-compose.yml', 87, 'VL501'),
    ('a_compose/tacos8me__vllm-docker-unfucked__docker-compose.yml', 100, 'VL502'),
    ('b_k8s/GoogleCloudPlatform__kubernetes-engine-samples__ai-ml__llm-serving-gemma__vllm__vllm-3-27b-it.yaml', 51, 'VL501'),
    ('b_k8s/GoogleCloudPlatform__kubernetes-engine-samples__ai-ml__llm-serving-llama__vllm__vllm-llama4-maverick-17b-128e-instruct-fp8.yaml', 48, 'VL501'),
    ('b_k8s/GoogleCloudPlatform__kubernetes-engine-samples__ai-ml__vllm-tpu__vllm-llama3-70b.yaml', 45, 'VL501'),
    ('b_k8s/NASTP-ce__vllm-deployment__k8s__deployment.yaml', 18, 'VL504'),
    # The chart template passes --trust-remote-code when model.trustRemoteCode is set.
    ('b_k8s/benhurjoel__vllm-deployment-ocp-helm__charts__vllm-hf__templates__deployment.yaml', 246, 'VL502'),
    ('b_k8s/hanneshapke__DevFest2024-LLM-vllm-k8s__src__vllm-kubernetes__vllm-gemma2-2b.yaml', 37, 'VL503'),
    ('b_k8s/substratusai__kubeai__charts__models__values.yaml', 565, 'VL502'),
    ('b_k8s/substratusai__kubeai__manifests__models__deepseek-r1-mi300x.yaml', 11, 'VL502'),
    ('b_k8s/vllm-project__aibrix__brixbench__benchmark__testdata__deployments__vllm__qwen3-32b-tp4-replicas2.yaml', 31, 'VL501'),
    ('b_k8s/vllm-project__aibrix__brixbench__benchmark__testdata__deployments__vllm__qwen3-32b-tp4-replicas2.yaml', 55, 'VL505'),
    ('b_k8s/vllm-project__production-stack__tutorials__assets__values-02-basic-config.yaml', 5, 'VL504'),
    ('g_markdown/dstackai__dstack__mkdocs__docs__examples__inference__vllm.md', 29, 'VL501'),
    ('g_markdown/dstackai__dstack__mkdocs__docs__examples__inference__vllm.md', 63, 'VL501'),
    ('g_markdown/meta-llama__llama-stack__docs__source__deploying__kubernetes_deployment.md', 68, 'VL504'),
    ('g_markdown/vllm-project__production-stack__tutorials__02-basic-vllm-config.md', 53, 'VL504'),
    ('g_markdown/vllm-project__production-stack__tutorials__02-basic-vllm-config.md', 159, 'VL504'),
    ('g_markdown/vllm-project__recipes__GLM__GLM.md', 194, 'VL502'),
    ('g_markdown/vllm-project__recipes__Google__Gemma4.md', 134, 'VL504'),
    ('g_markdown/vllm-project__recipes__Google__Gemma4.md', 139, 'VL501'),
    ('g_markdown/vllm-project__recipes__Google__Gemma4.md', 157, 'VL501'),
    ('g_markdown/vllm-project__recipes__Google__Gemma4.md', 180, 'VL504'),
    ('g_markdown/vllm-project__recipes__Google__Gemma4.md', 182, 'VL501'),
    ('g_markdown/vllm-project__recipes__Google__Gemma4.md', 197, 'VL501'),
    ('g_markdown/vllm-project__recipes__Google__Gemma4.md', 220, 'VL501'),
    ('g_markdown/vllm-project__recipes__Google__Gemma4.md', 240, 'VL501'),
    ('g_markdown/vllm-project__recipes__Google__Gemma4.md', 307, 'VL502'),
    ('g_markdown/vllm-project__recipes__Google__Gemma4.md', 412, 'VL502'),
    ('g_markdown/vllm-project__recipes__Google__Gemma4.md', 572, 'VL502'),
    ('g_markdown/vllm-project__recipes__Google__Gemma4.md', 988, 'VL502'),
    ('g_markdown/vllm-project__recipes__Google__Gemma4.md', 1058, 'VL502'),
    ('g_markdown/vllm-project__recipes__Google__Gemma4.md', 1258, 'VL501'),
    ('g_markdown/vllm-project__recipes__OpenAI__GPT-OSS.md', 32, 'VL504'),
    ('h_launcher/meta-llama__llama-stack__.github__actions__setup-vllm__action.yml', 15, 'VL501'),
    ('h_launcher/skypilot-org__skypilot__llm__vllm__mixtral-service.yaml', 20, 'VL501'),
    ('h_launcher/skypilot-org__skypilot__llm__vllm__serve-openai-api.yaml', 32, 'VL501'),
    ('h_launcher/skypilot-org__skypilot__llm__vllm__vllm-multinode.sky.yaml', 57, 'VL502'),
]
