"""Python: commands built in strings (f-strings, ``+``, ``join``, names), and Ray Serve
``LLMConfig(...)`` as a keyword launch."""

from __future__ import annotations

import time

from vlint.extract.python import extract
from vlint.model import Invocation, Pos, Span, Token
from tests._support.invocations import arg, args, at


BUILT = (
    "import os, shlex, subprocess\n"  # 1
    'cmd = f"vllm serve {model} --tensor-parallel-size 2"\n'  # 2
    'cmd += " --max-model-len 4096"\n'  # 3
    "subprocess.Popen(shlex.split(cmd))\n"  # 4
    "subprocess.run(cmd, shell=True)\n"  # 5
    "os.system(cmd)\n"  # 6
    "args = cmd.split()\n"  # 7
)


def test_a_command_built_in_an_f_string_and_augmented_is_read_at_every_use() -> None:
    found = extract("serve.py", BUILT)
    assert len(found) == 4
    for invocation in found:
        assert args(invocation) == [
            "{model}", "--tensor-parallel-size", "2", "--max-model-len", "4096"
        ]
        model = invocation.args[0]
        assert not model.literal
        assert model.span == at(2, 20, 27)
        assert arg(invocation, "--tensor-parallel-size").span == at(2, 28, 50)
        assert arg(invocation, "2").span == at(2, 51, 52)
        assert arg(invocation, "--max-model-len").span == at(3, 10, 25)
        assert arg(invocation, "4096").span == at(3, 26, 30)
        assert not any(token.gathered for token in invocation.args)


def test_the_string_written_inline_in_the_call() -> None:
    text = (
        "import subprocess\n"
        'subprocess.check_output(f"vllm serve m --port {port} --dtype half", shell=True)\n'
    )
    (invocation,) = extract("serve.py", text)
    assert args(invocation) == ["m", "--port", "{port}", "--dtype", "half"]
    assert arg(invocation, "{port}").span == at(2, 47, 53)
    assert arg(invocation, "half").span == at(2, 62, 66)


def test_escapes_and_doubled_braces_keep_their_places() -> None:
    text = (
        "import os\n"
        'os.system(f"vllm serve m --chat-template-content-format \\"{{x}}\\" --x={v}\\tend")\n'
    )
    (invocation,) = extract("serve.py", text)
    assert args(invocation)[2:] == ["{x}", "--x={v}", "end"]
    braces = arg(invocation, "{x}")
    assert braces.positions[:3] == (Pos(2, 59), Pos(2, 61), Pos(2, 62))  # "{{", "x", "}}"
    mixed = arg(invocation, "--x={v}")
    assert not mixed.literal and not mixed.gathered
    assert mixed.span == at(2, 67, 74)
    assert arg(invocation, "end").span == at(2, 76, 79)  # after the "\\t" escape


def test_concatenation_and_join_of_literals() -> None:
    text = (
        "import subprocess\n"  # 1
        'base = "vllm serve " + model_name\n'  # 2
        'line = " ".join([base, "--max-num-seqs", str(seqs), "--enforce-eager"])\n'  # 3
        "subprocess.call(line, shell=True)\n"  # 4
    )
    (invocation,) = extract("serve.py", text)
    assert args(invocation) == ["model_name", "--max-num-seqs", "str(seqs)", "--enforce-eager"]
    assert arg(invocation, "model_name").span == at(2, 24, 34)
    assert not arg(invocation, "str(seqs)").literal
    assert arg(invocation, "--max-num-seqs").span == at(3, 25, 39)


def test_a_word_made_of_two_literals_is_gathered() -> None:
    text = 'import os\nos.system("vllm serve m --max-model-" + "len 8")\n'
    (invocation,) = extract("serve.py", text)
    joined = arg(invocation, "--max-model-len")
    assert joined.gathered
    assert joined.pos(0) == Pos(2, 25)
    assert joined.pos(11) == Pos(2, 36)  # the last "-" of the first literal
    assert joined.pos(12) == Pos(2, 42)  # "l", in the second


def test_a_name_assigned_in_a_branch_is_not_followed() -> None:
    text = (
        "import os\n"
        'cmd = "vllm serve a"\n'
        "if big:\n"
        '    cmd = "vllm serve b --max-model-len 32768"\n'
        "os.system(cmd)\n"
    )
    assert extract("serve.py", text) == []


def test_the_last_assignment_before_the_use_counts() -> None:
    text = (
        "import os\n"
        'cmd = "vllm serve a"\n'
        "os.system(cmd)\n"
        'cmd = "vllm serve b"\n'
        "os.system(cmd)\n"
    )
    first, second = extract("serve.py", text)
    assert args(first) == ["a"] and args(second) == ["b"]
    assert second.args[0].span == at(4, 19, 20)


def test_names_are_followed_within_their_own_function() -> None:
    text = (
        "import subprocess\n"
        'cmd = "vllm serve outer"\n'
        "def launch(model):\n"
        '    cmd = f"vllm serve {model}"\n'
        "    subprocess.run(cmd, shell=True)\n"
        "def other():\n"
        "    subprocess.run(cmd, shell=True)\n"
    )
    (invocation,) = extract("serve.py", text)
    assert args(invocation) == ["{model}"]


def test_an_f_string_that_cannot_be_placed_gets_its_whole_span() -> None:
    # A self-documenting `{p=}` writes text no character of the file holds one for one.
    text = 'import os\nos.system(f"vllm serve m --port {p=}")\n'
    (invocation,) = extract("serve.py", text)
    assert args(invocation) == ["m", "--port", "p={p}"]
    for token in invocation.args:
        assert token.span == at(2, 11, 38)


def test_implicitly_concatenated_pieces_are_each_placed() -> None:
    text = 'import os\nos.system("vllm serve m " f"--port {p}")\n'
    (invocation,) = extract("serve.py", text)
    assert args(invocation) == ["m", "--port", "{p}"]
    assert [token.span for token in invocation.args] == [at(2, 23, 24), at(2, 29, 35),
                                                          at(2, 36, 39)]


def test_split_keeps_quotes_as_written() -> None:
    text = "cmd = \"vllm serve m --served-model-name 'a b'\"\nwords = cmd.split()\n"
    (invocation,) = extract("serve.py", text)
    assert args(invocation) == ["m", "--served-model-name", "'a", "b'"]


RAY = (
    "from ray.serve.llm import LLMConfig, build_openai_app\n"  # 1
    "config = LLMConfig(\n"  # 2
    '    model_loading_config=dict(model_id="qwen", model_source="Qwen/Qwen2.5-7B"),\n'  # 3
    "    engine_kwargs=dict(tensor_parallel_size=2, max_model_len=8192),\n"  # 4
    '    runtime_env={"env_vars": {"HF_HOME": "/cache"}},\n'  # 5
    ")\n"  # 6
    "other = LLMConfig(model_loading_config={'model_id': 'm'}, engine_kwargs={\n"  # 7
    "    'enable_prefix_caching': True, **extra})\n"  # 8
)


def test_ray_llm_config_is_a_keyword_launch_of_the_engine() -> None:
    first, second = extract("serve.py", RAY)
    assert first.style == "python" and first.callee == "AsyncEngineArgs"
    values = {keyword.name.text: keyword.value for keyword in first.keywords}
    assert values == {
        "model": "Qwen/Qwen2.5-7B", "tensor_parallel_size": 2, "max_model_len": 8192
    }
    model = first.keywords[0]
    assert model.name.span == at(3, 48, 60)  # on the ``model_source`` key
    assert model.value_span == at(3, 61, 78)
    size = first.keywords[1]
    assert size.name.span == at(4, 24, 44)
    assert size.value_span == at(4, 45, 46)
    assert first.anchor == at(2, 10, 19)
    assert first.deployment.env["HF_HOME"].value.text == "/cache"
    assert not first.has_unpacked_kwargs


def test_ray_llm_config_with_a_dict_literal_and_unpacked_rest() -> None:
    _, second = extract("serve.py", RAY)
    assert [keyword.name.text for keyword in second.keywords] == ["model", "enable_prefix_caching"]
    assert second.keywords[1].name.span == at(8, 6, 27)
    assert second.has_unpacked_kwargs


def test_llm_config_not_from_ray_is_not_a_launch() -> None:
    text = "from mylib import LLMConfig\nLLMConfig(engine_kwargs=dict(tensor_parallel_size=2))\n"
    assert extract("serve.py", text) == []


def test_self_doubling_strings_stay_bounded() -> None:
    text = (
        'import os\ncmd = "vllm serve m --port 1"\n'
        + 'cmd = cmd + " " + cmd\n' * 10_000
        + "os.system(cmd)\n"
        + "".join(f'v{number} = "vllm serve m{number}"\n' for number in range(5_000))
        + "if flag:\n    v1 = 'x'\n" * 2_000
        + "os.system(v2)\n"
    )
    started = time.monotonic()
    found = extract("serve.py", text)
    assert time.monotonic() - started < 30
    assert [args(invocation) for invocation in found] == [["m2"]]


def test_a_command_line_split_at_single_spaces_is_read() -> None:
    text = ('import subprocess\n'
            'subprocess.Popen("vllm serve m --max-model-len=4096".split(" "))\n')
    [launch] = extract("a.py", text)
    assert [t.text for t in launch.args] == ["m", "--max-model-len=4096"]
