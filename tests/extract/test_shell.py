from __future__ import annotations

import random

import pytest

from vlint.extract.shell import ShellCommand, extract, iter_commands, parse_words
from vlint.model import Pos, Span, Token, line_locator


def texts(command: ShellCommand) -> list[str]:
    return [word.text for word in command.words]


def only(text: str) -> ShellCommand:
    commands = parse_words(text)
    assert len(commands) == 1, [texts(c) for c in commands]
    return commands[0]


def word(command: ShellCommand, text: str) -> Token:
    return next(w for w in command.words if w.text == text)


def test_line_continuations_across_three_lines() -> None:
    command = only("vllm serve m \\\n  --max-num-batched-tokens 16k \\\n  --dtype auto\n")
    assert texts(command) == [
        "vllm", "serve", "m", "--max-num-batched-tokens", "16k", "--dtype", "auto"
    ]
    assert word(command, "--max-num-batched-tokens").span == Span(Pos(2, 3), Pos(2, 27))
    assert word(command, "16k").span == Span(Pos(2, 28), Pos(2, 31))
    assert word(command, "auto").span == Span(Pos(3, 11), Pos(3, 15))
    assert command.span == Span(Pos(1, 1), Pos(3, 15))


def test_continuation_inside_a_word_joins_it() -> None:
    command = only("vllm serve m --max-num\\\n-seqs 8")
    token = word(command, "--max-num-seqs")
    assert token.positions[0] == Pos(1, 14)
    assert token.positions[8] == Pos(1, 22)  # the last "m" before the backslash
    assert token.positions[9] == Pos(2, 1)  # the "-" after the continuation
    assert token.positions[-1] == Pos(2, 6)
    assert token.literal


def test_quoting() -> None:
    command = only("vllm serve m --dtype 'bfloat16' \"--chat-template x\" --x=\"a b\" 'it'\"'\"'s'")
    assert texts(command)[3:] == ["--dtype", "bfloat16", "--chat-template x", "--x=a b", "it's"]
    assert all(w.literal for w in command.words)
    single = word(command, "bfloat16")
    assert single.span == Span(Pos(1, 23), Pos(1, 32))  # starts after the quote, ends after it
    double = word(command, "--chat-template x")
    assert double.positions[0] == Pos(1, 34)
    assert double.positions[-2] == Pos(1, 50)
    mixed = word(command, "--x=a b")
    assert mixed.positions[0] == Pos(1, 53)
    assert mixed.positions[3] == Pos(1, 56)  # "="
    assert mixed.positions[4] == Pos(1, 58)  # "a", after the opening quote
    assert mixed.positions[-1] == Pos(1, 62)
    assert word(command, "it's").span == Span(Pos(1, 64), Pos(1, 73))


def test_escapes() -> None:
    command = only("cmd \"a\\\"b\\\\c\\$d\\x\" a\\ b $'t\\tx\\x41\\'' \"l\\\nm\" ''")
    assert texts(command)[1:] == ['a"b\\c$d\\x', "a b", "t\txA'", "lm", ""]
    escaped = command.words[1]
    assert escaped.positions[1] == Pos(1, 7)  # the escaped quote sits at its backslash
    ansi = command.words[3]
    assert ansi.positions[:5] == (Pos(1, 27), Pos(1, 28), Pos(1, 30), Pos(1, 31), Pos(1, 35))
    assert ansi.positions[-1] == Pos(1, 38)
    assert command.words[4].positions == (Pos(1, 40), Pos(2, 1), Pos(2, 3))
    assert command.words[5].span == Span(Pos(2, 6), Pos(2, 6))


def test_unknown_ansi_c_escapes_keep_the_backslash() -> None:
    command = only("printf $'\\q\\x\\c'")
    assert command.words[1].text == "\\q\\x\\c"
    assert command.words[1].positions[:2] == (Pos(1, 10), Pos(1, 11))


def test_env_prefix() -> None:
    command = only('VLLM_USE_V1=0 HF_HOME="/x y" EMPTY= vllm serve m')
    assert texts(command) == ["vllm", "serve", "m"]
    assert set(command.env) == {"VLLM_USE_V1", "HF_HOME", "EMPTY"}
    assert command.env["VLLM_USE_V1"].text == "0"
    assert command.env["VLLM_USE_V1"].span == Span(Pos(1, 13), Pos(1, 14))
    assert command.env["HF_HOME"].text == "/x y"
    assert command.env["HF_HOME"].positions[0] == Pos(1, 24)
    assert command.env["EMPTY"].text == ""
    assert command.span.start == Pos(1, 1)


def test_assignments_only_yield_nothing() -> None:
    assert parse_words("A=1\nB=2 C=3\n") == []


def test_exec_nohup_background_and_redirections() -> None:
    commands = parse_words(
        "exec vllm serve m --port 1\nnohup vllm serve m > log 2>&1 --max-num-seqs 8 &\n"
    )
    assert [texts(c) for c in commands] == [
        ["exec", "vllm", "serve", "m", "--port", "1"],
        ["nohup", "vllm", "serve", "m", "--max-num-seqs", "8"],
    ]
    assert word(commands[1], "--max-num-seqs").span == Span(Pos(2, 31), Pos(2, 45))
    assert commands[1].span == Span(Pos(2, 1), Pos(2, 47))


def test_pipelines_and_lists() -> None:
    commands = parse_words("a | vllm serve m\ncd x && vllm serve m --max-num-seqs 8 || true; b &")
    assert [texts(c) for c in commands] == [
        ["a"],
        ["vllm", "serve", "m"],
        ["cd", "x"],
        ["vllm", "serve", "m", "--max-num-seqs", "8"],
        ["true"],
        ["b"],
    ]
    assert commands[1].span == Span(Pos(1, 5), Pos(1, 17))
    assert word(commands[3], "8").span == Span(Pos(2, 37), Pos(2, 38))


def test_compound_bodies() -> None:
    script = (
        "f() { vllm serve a; }\n"
        "if x; then (vllm serve b); else { vllm serve c; }; fi\n"
        "while y; do vllm serve d; done\n"
        "for i in 1; do vllm serve e; done\n"
        "case $m in a) vllm serve f;; esac\n"
    )
    served = [c.words[2].text for c in parse_words(script) if texts(c)[:2] == ["vllm", "serve"]]
    assert served == ["a", "b", "c", "d", "e", "f"]


def test_expansions_stay_as_written() -> None:
    commands = parse_words(
        'vllm serve "$MODEL" --max-num-seqs=$N --port $(get_port x) --x=${A:-1} `b` $((1+2)) *.yaml'
    )
    # Substitutions are parts of words: the commands inside them are not yielded.
    (command,) = commands
    assert texts(command)[2:] == [
        "$MODEL",
        "--max-num-seqs=$N",
        "--port",
        "$(get_port x)",
        "--x=${A:-1}",
        "`b`",
        "$((1+2))",
        "*.yaml",
    ]
    literal = {w.text: w.literal for w in command.words}
    assert not literal["$MODEL"] and not literal["--max-num-seqs=$N"]
    assert not literal["$(get_port x)"] and not literal["--x=${A:-1}"]
    assert literal["--port"] and literal["*.yaml"]
    assert word(command, "$MODEL").span == Span(Pos(1, 13), Pos(1, 20))
    seqs = word(command, "--max-num-seqs=$N")
    assert seqs.positions[15] == Pos(1, 36)
    assert seqs.span == Span(Pos(1, 21), Pos(1, 38))


def test_heredoc_body_is_not_a_command() -> None:
    script = "cat <<EOF > out.sh\nvllm serve hidden\n$(vllm serve hidden2)\nEOF\nvllm serve real\n"
    commands = parse_words(script)
    assert [texts(c) for c in commands] == [["cat"], ["vllm", "serve", "real"]]
    assert commands[1].span == Span(Pos(5, 1), Pos(5, 16))


def test_comments_are_not_words() -> None:
    command = only("# vllm serve commented\nvllm serve m # --dtype half\n")
    assert texts(command) == ["vllm", "serve", "m"]
    assert command.span == Span(Pos(2, 1), Pos(2, 13))


def test_non_ascii_before_the_command() -> None:
    script = "# ünïcødé ☃ 🎉\necho \"héllo 🎉\" && vllm serve m --port 8000\n"
    commands = parse_words(script)
    assert [texts(c) for c in commands] == [
        ["echo", "héllo 🎉"],
        ["vllm", "serve", "m", "--port", "8000"],
    ]
    assert commands[0].words[1].span == Span(Pos(2, 7), Pos(2, 15))
    assert word(commands[1], "--port").span == Span(Pos(2, 32), Pos(2, 38))
    assert word(commands[1], "8000").span == Span(Pos(2, 39), Pos(2, 43))


def test_locator_with_a_base_offset() -> None:
    text = "vllm serve m --port 8000 \\\n  --dtype half"
    (command,) = iter_commands(text, line_locator(text, Pos(10, 7)))
    assert word(command, "--port").span == Span(Pos(10, 20), Pos(10, 26))
    assert word(command, "half").span == Span(Pos(11, 11), Pos(11, 15))
    assert command.span == Span(Pos(10, 7), Pos(11, 15))


def test_deep_nesting_does_not_crash() -> None:
    depth = 2000
    (command,) = parse_words("( " * depth + "vllm serve m" + " )" * depth)
    assert command.words[0].span == Span(Pos(1, 2 * depth + 1), Pos(1, 2 * depth + 5))
    parse_words("(" * depth + "vllm serve m" + ")" * depth)  # "((" is arithmetic: garbage
    parse_words("echo " + "$(" * depth + "x" + ")" * depth)
    parse_words("{ " * depth + "x;" + " }" * depth)
    commands = parse_words("if a; then " * 300 + "vllm serve m" + "; fi" * 300)
    assert ["vllm", "serve", "m"] in [texts(c) for c in commands]


@pytest.mark.parametrize(
    "garbage",
    [
        "",
        "\\",
        '"unterminated',
        "'unterminated",
        "$'\\",
        "$'\\x",
        "$'\\u{",
        "$((",
        ")))(((",
        "<<",
        "cat <<EOF",
        "a=(",
        "${",
        "\x00\x01\x02",
        "\ud800 vllm",
        "vllm serve m ;; ;; }",
        "fi done esac then",
        "\r\n\r\n",
    ],
)
def test_garbage_does_not_crash(garbage: str) -> None:
    parse_words(garbage)


def test_random_input_keeps_positions_in_order() -> None:
    rng = random.Random(7)
    pieces = [*"ab=-$'\"\\ \n\t(){}[];&|<>`#*~!é🎉0123456789EOFcux"]
    pieces += ["<<EOF\n", "\nEOF\n", "$(", "${", "$((", "$'", "\\\n", "\\x", "2>&1 ", "a="]
    pieces += ["case ", " in ", " esac", "if ", " then ", " fi", "export "]
    for _ in range(1000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(60)))
        for command in parse_words(text):
            assert command.span.start <= command.span.end
            for token in (*command.words, *command.env.values()):
                assert list(token.positions) == sorted(token.positions), (text, token)


def test_extract_hands_words_to_the_recogniser() -> None:
    script = "# vllm serve no\nVLLM_LOGGING_LEVEL=DEBUG nohup vllm serve m --port 1 &\ncd x && ls\n"
    (invocation,) = extract("run.sh", script)
    assert invocation.path == "run.sh"
    assert invocation.kind == "shell"
    assert "--port" in [a.text for a in invocation.args]
    assert invocation.env["VLLM_LOGGING_LEVEL"].text == "DEBUG"
