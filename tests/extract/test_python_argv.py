"""Python argv lists built in steps (``vlint.extract.python_argv``): every step's words follow
the list's at their own places; a step inside a block carries its test as a condition."""

from __future__ import annotations

from vlint.extract.python import extract
from vlint.model import Invocation, Pos, Span, Token

BUILT = '''\
import subprocess
import sys


def start(port, tp=1):
    cmd = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", "m"]
    cmd += ["--port", str(port), "--max-model-len", "16k"]
    cmd.extend(["--tensor-parallel-size", str(tp)])
    cmd.append("--enforce-eager")
    if tp > 1:
        cmd += ["--distributed-executor-backend", "mp"]
    else:
        cmd = cmd + ["--max-num-seqs", "8"]
    subprocess.Popen(cmd)
'''


def arg(invocation: Invocation, text: str) -> Token:
    return next(token for token in invocation.args if token.text == text)


def texts(invocation: Invocation) -> list[str]:
    return [token.text for token in invocation.args]


def test_every_step_is_read_in_order_at_its_place() -> None:
    [launch] = extract("launch.py", BUILT)
    assert launch.entry == "api_server"
    assert texts(launch) == [
        "--model", "m", "--port", "str(port)", "--max-model-len", "16k",
        "--tensor-parallel-size", "str(tp)", "--enforce-eager",
        "--distributed-executor-backend", "mp", "--max-num-seqs", "8"]
    assert arg(launch, "16k").span == Span(Pos(7, 54), Pos(7, 57))
    assert arg(launch, "--enforce-eager").span == Span(Pos(9, 17), Pos(9, 32))
    assert not arg(launch, "str(port)").literal


def test_a_step_in_a_branch_is_conditional() -> None:
    [launch] = extract("launch.py", BUILT)
    assert arg(launch, "mp").condition == "if tp > 1"
    assert arg(launch, "--max-num-seqs").condition == "if not tp > 1"
    assert arg(launch, "16k").condition is None


def test_lists_joined_with_plus_are_one_argv() -> None:
    text = 'import subprocess\nsubprocess.run(["vllm", "serve", "m"] + ["--max-num-seqs", "8"])\n'
    [launch] = extract("a.py", text)
    assert texts(launch) == ["m", "--max-num-seqs", "8"]
    assert arg(launch, "8").span == Span(Pos(2, 61), Pos(2, 62))


def test_reading_stops_where_the_list_is_given_another_value() -> None:
    text = ('cmd = ["vllm", "serve", "m"]\ncmd += ["--port", "1"]\ncmd = ["echo"]\n'
            'cmd += ["--max-num-seqs", "8"]\n')
    [launch] = extract("a.py", text)
    assert texts(launch) == ["m", "--port", "1"]


def test_a_loop_that_adds_words_ends_the_reading() -> None:
    text = ('cmd = ["vllm", "serve", "m", "--port", "1"]\nfor flag in extra:\n'
            '    cmd.append(flag)\ncmd += ["--max-num-seqs", "8"]\n')
    [launch] = extract("a.py", text)
    assert texts(launch) == ["m", "--port", "1"]


def test_another_functions_steps_are_not_read() -> None:
    text = ('cmd = ["vllm", "serve", "m"]\ndef more():\n    cmd.append("--port")\n'
            'cmd.append("--max-num-seqs")\ncmd.append("8")\n')
    [launch] = extract("a.py", text)
    assert texts(launch) == ["m", "--max-num-seqs", "8"]


def test_many_steps_stay_bounded() -> None:
    text = 'cmd = ["vllm", "serve", "m"]\n' + 'cmd += ["--port", "1"]\n' * 5000
    [launch] = extract("a.py", text)
    assert len(launch.args) < 600


CLI_DICT = '''\
from vllm.entrypoints.openai.cli_args import make_arg_parser
from vllm.utils import FlexibleArgumentParser


def parse_vllm_args(cli_args):
    parser = make_arg_parser(FlexibleArgumentParser())
    arg_strings = []
    for key, value in cli_args.items():
        arg_strings.extend([f"--{key}", str(value)])
    return parser.parse_args(args=arg_strings)


def build_app(cli_args):
    return parse_vllm_args(cli_args)


model = build_app({"model": "org/m", "max-num-seqs": "16k", "tensor-parallel-size": tp})
'''


def test_a_dict_of_options_handed_to_vllms_parser_is_a_launch() -> None:
    [launch] = extract("serve.py", CLI_DICT)
    assert launch.entry == "api_server" and launch.anchor == Span(Pos(17, 9), Pos(17, 18))
    assert texts(launch) == ["--model", "org/m", "--max-num-seqs", "16k",
                             "--tensor-parallel-size", "tp"]
    flag = arg(launch, "--max-num-seqs")
    assert flag.unwritten == 2 and flag.sub_span(2) == Span(Pos(17, 39), Pos(17, 51))
    assert arg(launch, "16k").span == Span(Pos(17, 55), Pos(17, 58))
    assert not arg(launch, "tp").literal


def test_without_vllms_parser_a_dict_is_no_launch() -> None:
    text = CLI_DICT.replace("from vllm.entrypoints.openai.cli_args import make_arg_parser\n", "")
    text = text.replace("from vllm.utils import FlexibleArgumentParser\n", "")
    assert extract("serve.py", text) == []


def test_a_list_a_loop_adds_to_may_hold_more_arguments() -> None:
    text = ('cmd = ["vllm", "serve", "m", "--port", "1"]\nfor flag in extra:\n'
            '    cmd.append(flag)\n')
    [launch] = extract("a.py", text)
    assert not launch.args_complete
    assert extract("b.py", 'cmd = ["vllm", "serve", "m"]\ncmd += ["--port", "1"]\n')[0].args_complete


def test_a_key_no_vllm_release_has_is_left_to_the_builder() -> None:
    text = CLI_DICT.replace('"tensor-parallel-size": tp', '"accelerator": "GPU"')
    [launch] = extract("serve.py", text)
    assert texts(launch) == ["--model", "org/m", "--max-num-seqs", "16k"]
