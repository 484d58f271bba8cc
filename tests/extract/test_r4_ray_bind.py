"""A vLLM call that unpacks its function's ``**kwargs`` takes its keywords from the callers:
Ray Serve's ``Deployment.bind(...)``, a plain call of the class or of the function."""

from __future__ import annotations

from pathlib import Path

from tests._support.files import write_tree
from tests._support.invocations import at
from vlint.engine.lint import lint
from vlint.extract.python import extract
from vlint.model import Invocation
from vlint.settings import Settings

# The shape of Ray Serve's early vLLM example: a deployment class whose constructor hands its
# keywords to the engine, bound at the end of the module.
DEPLOYMENT = (
    "from ray import serve\n"  # 1
    "from vllm.engine.arg_utils import AsyncEngineArgs\n"  # 2
    "from vllm.engine.async_llm_engine import AsyncLLMEngine\n"  # 3
    "\n"  # 4
    "\n"  # 5
    '@serve.deployment(ray_actor_options={"num_gpus": 1})\n'  # 6
    "class Completion:\n"  # 7
    "    def __init__(self, **kwargs):\n"  # 8
    "        args = AsyncEngineArgs(**kwargs)\n"  # 9
    "        self.engine = AsyncLLMEngine.from_engine_args(args)\n"  # 10
    "\n"  # 11
    "\n"  # 12
    "app = Completion.bind(model=\"Qwen/Qwen2.5-1.5B-Instruct\",\n"  # 13
    "                      max_model_len=8192, swap_space=4)\n"  # 14
)


def keywords(invocation: Invocation) -> dict[str, object]:
    return {keyword.name.text: keyword.value for keyword in invocation.keywords}


def test_the_bind_keywords_are_the_launchs_at_their_places() -> None:
    (launch,) = extract("serve_app.py", DEPLOYMENT)
    assert launch.callee == "AsyncEngineArgs"
    assert launch.anchor == at(9, 16, 31)  # the call that builds the engine's arguments
    assert keywords(launch) == {
        "model": "Qwen/Qwen2.5-1.5B-Instruct", "max_model_len": 8192, "swap_space": 4,
    }
    assert not launch.has_unpacked_kwargs
    by_name = {keyword.name.text: keyword for keyword in launch.keywords}
    assert by_name["model"].name.span == at(13, 23, 28)
    assert by_name["swap_space"].value_span == at(14, 54, 55)


def test_each_bind_is_a_launch_of_its_own() -> None:
    text = DEPLOYMENT + 'small = Completion.options(name="small").bind(model="m", dtype="half")\n'
    first, second = extract("serve_app.py", text)
    assert keywords(first)["model"] == "Qwen/Qwen2.5-1.5B-Instruct"
    assert keywords(second) == {"model": "m", "dtype": "half"}


def test_a_named_parameter_takes_its_keyword() -> None:
    text = DEPLOYMENT.replace("(self, **kwargs)", "(self, max_model_len, **kwargs)")
    (launch,) = extract("serve_app.py", text)
    assert set(keywords(launch)) == {"model", "swap_space"}


def test_a_changed_mapping_leaves_the_launch_as_written() -> None:
    text = DEPLOYMENT.replace(
        "        args = AsyncEngineArgs(**kwargs)\n",
        '        self.name = kwargs.pop("name", "default")\n'
        "        args = AsyncEngineArgs(**kwargs)\n",
    )
    (launch,) = extract("serve_app.py", text)
    assert launch.keywords == () and launch.has_unpacked_kwargs
    assert launch.anchor.start.line == 10


def test_without_a_caller_the_launch_is_read_as_written() -> None:
    text = DEPLOYMENT[: DEPLOYMENT.index("app = ")]
    (launch,) = extract("serve_app.py", text)
    assert launch.keywords == () and launch.has_unpacked_kwargs


def test_a_callers_mapping_is_read_as_a_launchs_is() -> None:
    text = DEPLOYMENT.replace(
        'app = Completion.bind(model="Qwen/Qwen2.5-1.5B-Instruct",\n'
        "                      max_model_len=8192, swap_space=4)\n",
        'engine = {"model": "m", "max_model_len": 4096}\n'
        "app = Completion.bind(**engine)\n"
        "other = Completion.bind(**load_settings())\n",
    )
    known, unknown = extract("serve_app.py", text)
    assert keywords(known) == {"model": "m", "max_model_len": 4096}
    assert not known.has_unpacked_kwargs
    assert unknown.keywords == () and unknown.has_unpacked_kwargs


def test_a_module_function_forwards_its_keywords() -> None:
    text = (
        "from vllm import LLM\n"
        "def make_llm(**settings):\n"
        "    return LLM(**settings)\n"
        'llm = make_llm(model="m", gpu_memory_utilization=0.8)\n'
    )
    (launch,) = extract("offline.py", text)
    assert launch.callee == "LLM" and keywords(launch) == {
        "model": "m", "gpu_memory_utilization": 0.8}


def test_findings_point_at_the_bind_and_the_launch_is_read(tmp_path: Path) -> None:
    write_tree(tmp_path, {"serve_app.py": DEPLOYMENT})
    report = lint([str(tmp_path / "serve_app.py")], Settings(target="0.33.0"))
    found = [(finding.code, finding.span) for finding in report.findings]
    # ``swap_space`` is no engine keyword of 0.33.0 (unknown-engine-kwarg), reported where the bind writes it; the
    # engine's own calls (lines 9 and 10) are the launch read, not unread ones.
    assert found == [("VL106", at(14, 43, 53))]
    assert report.invocations == 1
