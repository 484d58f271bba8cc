from __future__ import annotations

import pytest

from vlint.errors import Unparsable

from vlint.extract.python import extract
from vlint.model import Invocation, Keyword, Pos, Span, Token


def one(text: str) -> Invocation:
    found = extract("app.py", text)
    assert len(found) == 1, found
    return found[0]


def keyword(invocation: Invocation, name: str) -> Keyword:
    return next(item for item in invocation.keywords if item.name.text == name)


def arg(invocation: Invocation, text: str) -> Token:
    return next(token for token in invocation.args if token.text == text)


@pytest.mark.parametrize(
    ("imports", "call", "callee"),
    [
        ("from vllm import LLM", "LLM", "LLM"),
        ("import vllm", "vllm.LLM", "LLM"),
        ("from vllm import LLM as L", "L", "LLM"),
        ("import vllm as v", "v.LLM", "LLM"),
        ("from vllm import EngineArgs", "EngineArgs", "EngineArgs"),
        ("from vllm.engine.arg_utils import AsyncEngineArgs as A", "A", "AsyncEngineArgs"),
        ("import vllm.engine.arg_utils", "vllm.engine.arg_utils.EngineArgs", "EngineArgs"),
        ("import vllm.engine.arg_utils as au", "au.AsyncEngineArgs", "AsyncEngineArgs"),
    ],
)
def test_import_styles(imports: str, call: str, callee: str) -> None:
    invocation = one(f"{imports}\nx = {call}(max_num_seqs=8)\n")
    assert invocation.callee == callee
    assert invocation.style == "python"
    assert invocation.kind == "python"
    assert invocation.anchor == Span(Pos(2, 5), Pos(2, 5 + len(call)))
    seqs = keyword(invocation, "max_num_seqs")
    assert seqs.name.span == Span(Pos(2, 6 + len(call)), Pos(2, 18 + len(call)))
    assert (seqs.value, seqs.literal) == (8, True)
    assert seqs.value_span == Span(Pos(2, 19 + len(call)), Pos(2, 20 + len(call)))


def test_unrelated_llm_is_not_matched() -> None:
    text = (
        "class LLM:\n    pass\n\nLLM(max_num_seqs=8)\n"
        "from mylib import EngineArgs\nEngineArgs(x=1)\n"
    )
    assert extract("app.py", text) == []


def test_non_literal_keyword_and_positional_model() -> None:
    invocation = one("from vllm import LLM\nLLM('org/m', max_model_len=n * 2, dtype='half')\n")
    model = keyword(invocation, "model")
    assert model.value == "org/m"
    assert model.value_span == Span(Pos(2, 5), Pos(2, 12))
    length = keyword(invocation, "max_model_len")
    assert (length.value, length.literal) == (None, False)
    assert length.value_span == Span(Pos(2, 28), Pos(2, 33))
    assert keyword(invocation, "dtype").value == "half"
    assert not invocation.has_unpacked_kwargs


def test_unpacked_dict_literal_is_expanded() -> None:
    invocation = one(
        'from vllm import LLM\nLLM(model="m", **{"max_num_seqs": 8, \'dtype\': "half"})\n'
    )
    seqs = keyword(invocation, "max_num_seqs")
    assert seqs.name.span == Span(Pos(2, 20), Pos(2, 32))
    assert seqs.value == 8
    assert seqs.value_span == Span(Pos(2, 35), Pos(2, 36))
    assert keyword(invocation, "dtype").name.span == Span(Pos(2, 39), Pos(2, 44))
    assert not invocation.has_unpacked_kwargs


def test_other_unpacking_is_flagged() -> None:
    invocation = one("from vllm import LLM\nLLM(model='m', **settings)\n")
    assert invocation.has_unpacked_kwargs
    partly = one("from vllm import LLM\nLLM(**{'max_num_seqs': 8, key: 1})\n")
    assert partly.has_unpacked_kwargs
    assert [item.name.text for item in partly.keywords] == ["max_num_seqs"]


def test_non_ascii_before_the_call() -> None:
    text = "from vllm import LLM\nmodèle = 'é'; llm = LLM(max_num_seqs=8)  # ü\n"
    invocation = one(text)
    assert invocation.anchor == Span(Pos(2, 21), Pos(2, 24))
    assert keyword(invocation, "max_num_seqs").name.span == Span(Pos(2, 25), Pos(2, 37))


def test_non_ascii_in_dict_key_string() -> None:
    invocation = one("from vllm import LLM\nLLM(**{'ü': 1, 'max_num_seqs': 2})\n")
    assert keyword(invocation, "max_num_seqs").name.span == Span(Pos(2, 17), Pos(2, 29))


def test_argv_list() -> None:
    text = (
        "import subprocess\n"
        "model = 'm'\n"
        'subprocess.run(["vllm", "serve", model, "--max-num-seqs", "8"], check=True)\n'
    )
    invocation = one(text)
    assert invocation.style == "cli"
    assert invocation.entry == "serve"
    assert [token.text for token in invocation.args] == ["model", "--max-num-seqs", "8"]
    assert not invocation.args[0].literal
    assert invocation.args[0].span == Span(Pos(3, 34), Pos(3, 39))
    assert arg(invocation, "--max-num-seqs").span == Span(Pos(3, 42), Pos(3, 56))
    assert arg(invocation, "8").span == Span(Pos(3, 60), Pos(3, 61))


def test_argv_tuple_with_sys_executable() -> None:
    text = (
        "import sys\n"
        "cmd = (sys.executable, '-m', 'vllm.entrypoints.openai.api_server', '--port', '8000')\n"
    )
    invocation = one(text)
    assert invocation.entry == "api_server"
    assert arg(invocation, "8000").span == Span(Pos(2, 79), Pos(2, 83))


def test_unrelated_lists_are_ignored() -> None:
    assert extract("app.py", "x = ['ls', '-l']\ny = [1, 2]\nz = ['vllm']\n") == []


def test_shell_string_with_shell_true() -> None:
    text = "import subprocess\nsubprocess.run('vllm serve m --max-num-seqs 8', shell=True)\n"
    invocation = one(text)
    assert invocation.kind == "python"
    assert arg(invocation, "8").span == Span(Pos(2, 45), Pos(2, 46))


def test_shlex_split_with_escape() -> None:
    text = 'import shlex\nargs = shlex.split("vllm serve m\\t--max-num-seqs 8")\n'
    invocation = one(text)
    assert arg(invocation, "--max-num-seqs").span == Span(Pos(2, 35), Pos(2, 49))


def test_string_without_shell_is_not_a_command() -> None:
    assert extract("app.py", "import subprocess\nsubprocess.run('vllm serve m')\n") == []


@pytest.mark.parametrize(
    ("text", "where"),
    [("def (:\n", Pos(1, 5)), ("x = 'unterminated\n", Pos(1, 5)), ("\0", Pos(1, 1))],
)
def test_syntax_error_is_unparsable_at_the_error(text: str, where: Pos) -> None:
    with pytest.raises(Unparsable) as raised:
        extract("app.py", text)
    assert raised.value.where == where
    assert raised.value.message.startswith("invalid Python: ")
