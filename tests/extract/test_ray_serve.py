from __future__ import annotations

import time

import pytest

from vlint.discover import kind_of
from vlint.errors import Unparsable
from vlint.extract.ray_serve import MAX_CONFIGS, extract
from vlint.knowledge.ray_serve import ray_pin, ray_version_from_image, release_for_ray
from vlint.model import Invocation, Keyword, Pos, Span


def run(text: str) -> list[Invocation]:
    return extract("serve.yaml", text)


def keyword(invocation: Invocation, name: str) -> Keyword:
    return next(k for k in invocation.keywords if k.name.text == name)


def names(invocation: Invocation) -> list[str]:
    return [k.name.text for k in invocation.keywords]


SERVE = (
    "applications:\n"                                            # 1
    "- name: llm\n"                                              # 2
    "  import_path: ray.serve.llm:build_openai_app\n"            # 3
    "  args:\n"                                                  # 4
    "    llm_configs:\n"                                         # 5
    "      - model_loading_config:\n"                            # 6
    "          model_id: qwen\n"                                 # 7
    "          model_source: Qwen/Qwen2.5-7B-Instruct\n"         # 8
    "        accelerator_type: L4\n"                             # 9
    "        runtime_env:\n"                                     # 10
    "          env_vars:\n"                                      # 11
    "            VLLM_USE_V1: \"1\"\n"                           # 12
    "        engine_kwargs:\n"                                   # 13
    "          max_model_len: 8192\n"                            # 14
    "          enable_lora: True\n"                              # 15
    "          enable_auto_tool_choice: true\n"                  # 16
    "      - model_loading_config: {model_id: meta-llama/Llama-3.1-8B}\n"  # 17
    "        engine_kwargs: {tensor_parallel_size: 2}\n"         # 18
)


def test_each_llm_config_is_an_async_engine_args_launch() -> None:
    first, second = run(SERVE)
    assert (first.style, first.callee, first.origin) == ("python", "AsyncEngineArgs",
                                                         ("ray-serve",))
    # The model comes from model_source (else model_id); Ray forbids `model` in engine_kwargs.
    assert names(first) == ["model", "max_model_len", "enable_lora"]
    assert keyword(first, "model").value == "Qwen/Qwen2.5-7B-Instruct"
    assert keyword(first, "model").name.span.start == Pos(8, 11)
    assert keyword(first, "model").value_span == Span(Pos(8, 25), Pos(8, 49))
    length = keyword(first, "max_model_len")
    assert length.value == 8192
    assert length.name.span == Span(Pos(14, 11), Pos(14, 24))
    assert length.value_span == Span(Pos(14, 26), Pos(14, 30))
    assert keyword(first, "enable_lora").value is True  # YAML 1.1, as Ray's yaml.safe_load
    assert keyword(second, "model").value == "meta-llama/Llama-3.1-8B"
    assert keyword(second, "tensor_parallel_size").value_span == Span(Pos(18, 47), Pos(18, 48))


def test_frontend_options_are_left_to_the_frontend() -> None:
    # enable_auto_tool_choice is a `vllm serve` option but no AsyncEngineArgs field: Ray hands
    # it to vLLM's OpenAI frontend, so it is no engine keyword.
    first, _ = run(SERVE)
    assert "enable_auto_tool_choice" not in names(first)


def test_runtime_env_vars_are_the_engine_environment() -> None:
    first, second = run(SERVE)
    variable = first.deployment.env["VLLM_USE_V1"]
    assert variable.value.text == "1"
    assert variable.name_span == Span(Pos(12, 13), Pos(12, 24))
    assert second.deployment.env == {}


def test_an_unknown_engine_kwarg_stays_for_the_rules() -> None:
    text = (
        "applications:\n"
        "- args:\n"
        "    llm_config:\n"
        "      model_loading_config: {model_id: m}\n"
        "      engine_kwargs: {max_num_seq: 8}\n"
    )
    (found,) = run(text)
    assert names(found) == ["model", "max_num_seq"]


def test_prefill_and_decode_configs_are_two_launches() -> None:
    text = (
        "applications:\n"
        "  - args:\n"
        "      prefill_config:\n"
        "        model_loading_config: {model_id: m}\n"
        "        engine_kwargs: {max_model_len: 8192}\n"
        "      decode_config:\n"
        "        model_loading_config: {model_id: m}\n"
        "        engine_kwargs: {max_model_len: 4096}\n"
        "    import_path: ray.llm._internal.serve.deployments.prefill_decode_disagg:build_app\n"
    )
    found = run(text)
    assert [keyword(i, "max_model_len").value for i in found] == [8192, 4096]


def test_an_llm_config_file_of_its_own() -> None:
    text = "model_loading_config:\n  model_id: m\nengine_kwargs:\n  max_num_seqs: 4\n"
    (found,) = run(text)
    assert names(found) == ["model", "max_num_seqs"]


def test_an_application_without_llm_configs_launches_nothing() -> None:
    text = "applications:\n- name: app\n  import_path: app:deployment\n  args: {x: 1}\n"
    assert run(text) == []


RAY_LLM = (
    "deployment_config:\n"                                   # 1
    "  max_concurrent_queries: 192\n"                        # 2
    "engine_config:\n"                                       # 3
    "  model_id: mistralai/Mixtral-8x7B-Instruct-v0.1\n"     # 4
    "  type: VLLMEngine\n"                                   # 5
    "  engine_kwargs:\n"                                     # 6
    "    trust_remote_code: true\n"                          # 7
    "    max_num_seqs: 192\n"                                # 8
    "  max_total_tokens: 32768\n"                            # 9
    "scaling_config:\n"                                      # 10
    "  num_workers: 8\n"                                     # 11
)


def test_a_ray_llm_model_yaml_is_read_as_ray_llm_builds_the_engine() -> None:
    (found,) = run(RAY_LLM)
    assert names(found) == ["model", "max_model_len", "tensor_parallel_size",
                            "trust_remote_code", "max_num_seqs"]
    # ray-llm passes max_total_tokens as max_model_len and num_workers as tensor_parallel_size:
    # each keyword points at the key that sets it.
    assert keyword(found, "max_model_len").value == 32768
    assert keyword(found, "max_model_len").name.span.start == Pos(9, 3)
    assert keyword(found, "tensor_parallel_size").value_span == Span(Pos(11, 16), Pos(11, 17))


def test_the_ray_release_of_an_anyscale_image_is_the_target() -> None:
    text = (
        "name: svc\n"
        "image_uri: anyscale/ray-llm:2.60.0-py311-cu128\n"
        "applications:\n"
        "- args:\n"
        "    llm_config:\n"
        "      model_loading_config: {model_id: m}\n"
        "      engine_kwargs: {max_model_len: 1024}\n"
    )
    (found,) = run(text)
    assert found.target == "0.29.0"
    nightly = text.replace("2.60.0-py311-cu128", "nightly-py311-cu128")
    assert run(nightly)[0].target is None


def test_release_for_ray_returns_only_exact_pins() -> None:
    assert release_for_ray("2.60.0") == "0.29.0"
    assert release_for_ray("2.56.0") == "0.22.0"
    # Before 2.56 Ray's llm extra asks only for vllm>=X: no release is pinned.
    assert release_for_ray("2.46.0") is None
    pin = ray_pin("2.46.0")
    assert pin is not None and str(pin.vllm) == "0.8.5" and not pin.exact
    assert release_for_ray("2.42.1") is None  # no llm extra yet
    assert release_for_ray("not a version") is None


@pytest.mark.parametrize(("image", "ray"), [
    ("anyscale/ray-llm:2.46.0-py311-cu128", "2.46.0"),
    ("rayproject/ray-llm:2.60.0-py311-cu128", "2.60.0"),
    ("docker.io/rayproject/ray:2.52.1", "2.52.1"),
    ("anyscale/ray-llm:nightly-py311-cu128", None),
    ("myrayproject/ray:2.1.0", None),
    ("vllm/vllm-openai:v0.9.0", None),
])
def test_ray_version_from_image(image: str, ray: str | None) -> None:
    assert ray_version_from_image(image) == ray


def test_many_configs_stop_being_read() -> None:
    entry = "  - model_loading_config: {model_id: m}\n"
    text = "applications:\n- args:\n    llm_configs:\n" + entry * (MAX_CONFIGS + 1)
    started = time.perf_counter()
    with pytest.raises(Unparsable):
        run(text)
    assert time.perf_counter() - started < 20


def test_aliases_do_not_expand_without_bound() -> None:
    lines = ["a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 8)]
    text = "\n".join(lines) + "\nmodel_loading_config: {model_id: m}\nengine_kwargs: {x: *a7}\n"
    with pytest.raises(Unparsable):
        run(text)


@pytest.mark.parametrize(("text", "kind"), [
    (SERVE, "ray-serve"),
    (RAY_LLM.replace("VLLMEngine", "VLLMEngine"), "ray-serve"),
    ("model_loading_config:\n  model_id: vllm-model\n", "ray-serve"),
    ("applications:\n- name: vllm\n  import_path: app:d\n", None),
])
def test_claims(text: str, kind: str | None) -> None:
    assert kind_of("serve.yaml", text.encode()) == kind


def test_an_applications_args_named_as_vllms_options_are_its_command_line() -> None:
    text = ("applications:\n  - name: llm\n    import_path: serve:model\n    args:\n"
            "      model: org/m\n      tensor-parallel-size: 2\n      max_num_seqs: 16k\n"
            "  - name: other\n    import_path: app:main\n    args:\n"
            "      model: org/m\n      temperature: 0.2\n")
    [launch] = extract("serve_config.yaml", text)
    assert launch.entry == "api_server"
    assert [t.text for t in launch.args] == [
        "--model", "org/m", "--tensor-parallel-size", "2", "--max_num_seqs", "16k"]
    flag = launch.args[2]
    assert flag.unwritten == 2 and flag.sub_span(2) == Span(Pos(6, 7), Pos(6, 27))


USER_CONFIG = (
    "applications:\n"                                        # 1
    "- name: app\n"                                          # 2
    "  import_path: src.main:deployment\n"                   # 3
    "  deployments:\n"                                       # 4
    "  - name: VLLMDeployment\n"                             # 5
    "    user_config:\n"                                     # 6
    "      engine_args:\n"                                   # 7
    "        model: org/m\n"                                 # 8
    "        tensor_parallel_size: 2\n"                      # 9
    "        worker_use_ray: false\n"                        # 10
)


def test_engine_args_in_a_deployments_user_config_are_read_as_vllms() -> None:
    [launch] = run(USER_CONFIG)
    assert launch.callee == "AsyncEngineArgs"
    assert names(launch) == ["model", "tensor_parallel_size", "worker_use_ray"]
    assert keyword(launch, "worker_use_ray").name.span.start == Pos(10, 9)
    assert kind_of("serve.yaml", USER_CONFIG.encode()) == "ray-serve"


@pytest.mark.parametrize("engine_args", [
    "        model: org/m\n",  # one key says nothing
    "        tensor_parallel_size: 2\n        max_model_len: 4096\n",  # no model
    "        model: org/m\n        temperature: 0.2\n",  # not vLLM's engine option
])
def test_user_config_that_is_not_unmistakably_vllms_is_not_read(engine_args: str) -> None:
    text = USER_CONFIG.split("        model:")[0] + engine_args
    assert run(text) == []
