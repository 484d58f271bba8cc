"""Python: command strings run by other libraries (sandboxes, SSH, pexpect: ``command=``,
``cmd=``, ``conn.run(...)``), and strings written as several literals implicitly concatenated,
every word at its characters in the file (issue 15)."""

from __future__ import annotations

import time

import pytest

from vlint.extract.python import extract
from vlint.model import Invocation, LineIndex, Pos, Span, Token


def args(invocation: Invocation) -> list[str]:
    return [token.text for token in invocation.args]


def arg(invocation: Invocation, text: str) -> Token:
    return next(token for token in invocation.args if token.text == text)


def written(text: str, span: Span) -> str:
    """The characters of the file at ``span``."""
    index = LineIndex(text)
    return text[index.offset(span.start) : index.offset(span.end)]


SANDBOX = (
    "from sandboxes import Client, ExecRequest\n"  # 1
    "MODEL = 'org/model'\n"  # 2
    "box = Client().create()\n"  # 3
    "job = box.process.execute_session_command(\n"  # 4
    "    'serve',\n"  # 5
    "    ExecRequest(\n"  # 6
    "        command=(\n"  # 7
    '            f"vllm serve {MODEL} --port {PORT} "\n'  # 8
    "            # the parser options of the model\n"  # 9
    '            "--tool-call-parser hermes "\n'  # 10
    "            '--swap-space 4'\n"  # 11
    "        ),\n"  # 12
    "        run_async=True,\n"  # 13
    "    ),\n"  # 14
    ")\n"  # 15
)


def test_a_command_keyword_of_a_sandbox_request_is_a_launch_across_its_literals() -> None:
    (found,) = extract("serve.py", SANDBOX)
    assert args(found) == [
        "{MODEL}", "--port", "{PORT}", "--tool-call-parser", "hermes", "--swap-space", "4"
    ]
    assert found.origin[0] == "python"
    for token in found.args:
        assert written(SANDBOX, token.span) == token.text
    assert arg(found, "{MODEL}").span == Span(Pos(8, 26), Pos(8, 33))
    assert not arg(found, "{MODEL}").literal
    assert arg(found, "--tool-call-parser").span == Span(Pos(10, 14), Pos(10, 32))
    assert arg(found, "--swap-space").span == Span(Pos(11, 14), Pos(11, 26))
    assert arg(found, "4").span == Span(Pos(11, 27), Pos(11, 28))


@pytest.mark.parametrize(
    "call",
    [
        'conn.run("vllm serve m --swap-space 4")',
        'client.exec_command("vllm serve m --swap-space 4")',
        'sandbox.exec("vllm serve m --swap-space 4", timeout=60)',
        'pexpect.spawn("vllm serve m --swap-space 4")',
        'run_command("vllm serve m --swap-space 4")',
        'Task(name="server", cmd="vllm serve m --swap-space 4")',
        'remote.execute(command="vllm serve m --swap-space 4")',
    ],
)
def test_runners_and_command_keywords(call: str) -> None:
    text = f"{call}\n"
    (found,) = extract("serve.py", text)
    assert args(found) == ["m", "--swap-space", "4"]
    assert written(text, arg(found, "--swap-space").span) == "--swap-space"


def test_a_name_and_a_concatenation_given_to_a_runner() -> None:
    text = (
        "cmd = 'vllm serve ' + model + ' --port 8000'\n"  # 1
        "cmd += ' --max-num-seqs 8'\n"  # 2
        "conn.run(cmd, hide=True)\n"  # 3
        "ssh.exec_command('python3 -m vllm.entrypoints.openai.api_server --model m')\n"  # 4
    )
    served, module = extract("serve.py", text)
    assert args(served) == ["model", "--port", "8000", "--max-num-seqs", "8"]
    assert not served.args[0].literal
    assert arg(served, "--max-num-seqs").span == Span(Pos(2, 10), Pos(2, 24))
    assert args(module) == ["--model", "m"]
    assert written(text, arg(module, "--model").span) == "--model"


@pytest.mark.parametrize(
    "code",
    [
        'print("vllm serve m --swap-space 4")',
        'print(f"start it with: vllm serve {m}")',
        'logger.info(f"vllm serve {m} --swap-space 4")',
        'logging.warning("vllm serve m --swap-space 4")',
        'def f():\n    """vllm serve m --swap-space 4"""\n',
        'parser.add_argument("--cmd", help="vllm serve m --swap-space 4")',
        'parser.add_argument("--cmd", default="vllm serve m --swap-space 4")',
        'conn.run("echo vllm serve m --swap-space 4")',
        'conn.run("make serve")',
        'conn.run(f"{prefix} vllm serve m --swap-space 4")',
        'equivalent = {"command": "vllm serve m --swap-space 4"}',
        'conn.upload("vllm serve m --swap-space 4")',
        # Without ``shell=True`` subprocess runs a program of that name, not a command line.
        'import subprocess\nsubprocess.run("vllm serve m --swap-space 4")',
    ],
)
def test_strings_that_are_not_launches(code: str) -> None:
    assert extract("serve.py", code + "\n") == []


def test_a_shell_true_call_is_read_once() -> None:
    text = 'import subprocess\nsubprocess.run("vllm serve m --swap-space 4", shell=True)\n'
    (found,) = extract("serve.py", text)
    assert args(found) == ["m", "--swap-space", "4"]


def test_plain_literals_implicitly_concatenated_keep_their_places() -> None:
    text = (
        "import os\n"  # 1
        "os.system('vllm serve m '\n"  # 2
        "          \"--max-model\" '-len 4096' # a comment's 'quote'\n"  # 3
        "          r\" --chat-template 'a\\b'\")\n"  # 4
    )
    (found,) = extract("serve.py", text)
    assert args(found) == ["m", "--max-model-len", "4096", "--chat-template", "a\\b"]
    joined = arg(found, "--max-model-len")
    assert joined.positions[0] == Pos(3, 12)
    assert joined.positions[len("--max-model")] == Pos(3, 26)  # "-len", in the next literal
    assert arg(found, "4096").span == Span(Pos(3, 31), Pos(3, 35))
    raw = arg(found, "a\\b")  # (the shell's word ends after its closing quote)
    assert raw.positions[:3] == (Pos(4, 31), Pos(4, 32), Pos(4, 33))


def test_an_f_string_joined_with_plain_literals_keeps_its_fields_in_place() -> None:
    text = (
        "import os\n"  # 1
        'os.system(f"vllm serve {m} "  "--port "  f"{port:>{width}} --dtype {{x}}")\n'  # 2
    )
    (found,) = extract("serve.py", text)
    assert args(found) == ["{m}", "--port", "{port:>{width}}", "--dtype", "{x}"]
    for name in ("{m}", "--port", "{port:>{width}}", "--dtype"):
        assert written(text, arg(found, name).span) == name


def test_an_f_string_that_still_cannot_be_placed_gets_its_whole_span() -> None:
    # ``{p=}`` is written as one field but is two values in ast (the text "p=" and the value).
    text = 'import os\nos.system(f"vllm serve m --port {p=}")\n'
    (found,) = extract("serve.py", text)
    whole = Span(Pos(2, 11), Pos(2, 38))
    assert all(token.span == whole for token in found.args)


def test_runner_heads_stay_bounded() -> None:
    parts = " + ".join(["x"] * 900)
    text = (
        f"cmd = 'make ' + {parts}\n"
        + "conn.run(cmd)\n" * 20_000
        + "conn.run('vllm serve m --port 1')\n"
    )
    started = time.monotonic()
    found = extract("serve.py", text)
    assert time.monotonic() - started < 30
    assert [args(invocation) for invocation in found] == [["m", "--port", "1"]]


MAPPED = (
    "from vllm import LLM\n"  # 1
    "from ray.serve.llm import LLMConfig\n"  # 2
    "\n"  # 3
    "def engine(model: str) -> LLM:\n"  # 4
    "    config = {\n"  # 5
    '        "model": model,\n'  # 6
    '        "swap_space": 4,\n'  # 7
    "    }\n"  # 8
    "    return LLM(**config)\n"  # 9
    "\n"  # 10
    "engine_kwargs = dict(max_model_len=8192, tensor_parallel_size=2)\n"  # 11
    "if quantized:\n"  # 12
    '    engine_kwargs["quantization"] = "awq"\n'  # 13
    "app = LLMConfig(\n"  # 14
    '    model_loading_config={"model_id": "m", "model_source": "org/m"},\n'  # 15
    "    engine_kwargs=engine_kwargs,\n"  # 16
    ")\n"  # 17
)


def test_keywords_in_a_mapping_assigned_to_a_name_before_the_call() -> None:
    llm, ray = extract("serve.py", MAPPED)
    assert [keyword.name.text for keyword in llm.keywords] == ["model", "swap_space"]
    assert not llm.has_unpacked_kwargs
    swap = llm.keywords[1]
    assert swap.name.span == Span(Pos(7, 10), Pos(7, 20))
    assert (swap.value, swap.value_span) == (4, Span(Pos(7, 23), Pos(7, 24)))
    assert [keyword.name.text for keyword in ray.keywords] == [
        "model", "max_model_len", "tensor_parallel_size"
    ]
    assert ray.keywords[1].name.span == Span(Pos(11, 22), Pos(11, 35))
    assert ray.has_unpacked_kwargs  # a key is added in a branch: not every keyword is known


@pytest.mark.parametrize(
    "change",
    [
        "config = load()",
        'config.pop("swap_space")',
        'del config["swap_space"]',
        "config.clear()",
        "config |= extra",
        "if flag:\n    config = {}",
    ],
)
def test_a_mapping_changed_before_the_call_is_not_followed(change: str) -> None:
    text = (
        "from vllm import LLM\n"
        'config = {"model": "m", "swap_space": 4}\n'
        f"{change}\n"
        "llm = LLM(**config)\n"
    )
    (found,) = extract("serve.py", text)
    assert found.keywords == ()
    assert found.has_unpacked_kwargs


def test_keys_added_to_a_mapping_leave_it_incomplete() -> None:
    text = (
        "from vllm import LLM\n"
        'config = {"model": "m"}\n'
        'config.update(extra)\n'
        "llm = LLM(**config)\n"
    )
    (found,) = extract("serve.py", text)
    assert [keyword.name.text for keyword in found.keywords] == ["model"]
    assert found.has_unpacked_kwargs


def test_a_mapping_of_another_scope_is_not_followed() -> None:
    text = (
        "from vllm import LLM\n"
        'CONFIG = {"model": "m", "swap_space": 4}\n'
        "def start():\n"
        "    return LLM(**CONFIG)\n"
    )
    (found,) = extract("serve.py", text)
    assert found.keywords == () and found.has_unpacked_kwargs


def test_many_mappings_and_changes_cost_linear_work() -> None:
    text = (
        "from vllm import LLM\n"
        + "".join(f'c{number} = {{"model": "m", "seed": {number}}}\n' for number in range(5_000))
        + "".join(f'if flag:\n    c{number}["k"] = 1\n' for number in range(5_000))
        + "".join(f'c{number}["k"] = 1\n' for number in range(5_000))
        + "llm = LLM(**c7)\n"
    )
    started = time.monotonic()
    (found,) = extract("serve.py", text)
    assert time.monotonic() - started < 30
    assert [keyword.value for keyword in found.keywords] == ["m", 7]
    assert found.has_unpacked_kwargs
