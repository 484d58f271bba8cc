"""Every span reachable from an extracted invocation slices the original text to what it claims.

Launches are drawn at random (flags, values, quoting, line continuations, an environment) and
written in every host kind and nesting: shell (and ``bash -c`` inside it), compose and
Kubernetes commands (lists, strings, ``sh -c`` scripts in YAML scalars), Dockerfile ``CMD`` and
``RUN``, systemd ``ExecStart=``, launcher YAML ``run:`` blocks, Python (keywords and argv lists),
and Markdown fences of bash, YAML (compose, Kubernetes, launcher), Dockerfile and Python, flush
or indented in a list.  For each
invocation found, every position of every field (tokens, keyword names and values, anchors,
environment names and values, the image, line breaks, deployment facts) is inside the file, and:

- a literal token's characters are the file's characters at their positions, its written form
  (``positions[0]`` to ``sub_span(0).end``) is its text, and its span covers that plus at most
  its closing quote;
- an environment name's span is the name, an image's span is the image reference, and a
  deployment fact's span holds what it states (a port, a GPU count, an IPC mode);
- a keyword's name token is the keyword, its value span the value as written;
- a line break is a backslash and blanks, or the column just past the end of a line (the only
  span allowed to reach past it), followed by the flag.
"""

from __future__ import annotations

import dataclasses
import json
import random
from keyword import iskeyword
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.reachable import positions, reachable
from tests.robustness.robust_support import examples, offset, sliced

from vlint.extract import extractor
from vlint.model import Invocation, Keyword, LineBreak, Located, Pos, Span, Token

FLAG = st.from_regex(r"--[a-z]{2,8}(-[a-z]{2,6})?", fullmatch=True)
VALUE = st.from_regex(r"[A-Za-z][A-Za-z0-9_./-]{0,9}", fullmatch=True)
ENV_NAME = st.from_regex(r"VLLM_[A-Z]{2,8}", fullmatch=True)
IMAGE = "vllm/vllm-openai:v0.10.1"


@dataclass(frozen=True)
class Host:
    name: str  # the file name, which decides its kind
    kind: str
    text: str


@st.composite
def argvs(draw: st.DrawFn) -> list[str]:
    words = ["m"]
    for flag, value in draw(st.lists(st.tuples(FLAG, st.none() | VALUE), max_size=5)):
        words.append(flag)
        if value is not None:
            words.append(value)
    return words


def _q(rng: random.Random, word: str, quotes: str = "'\"") -> str:
    quote = rng.choice(["", "", *quotes])
    return f"{quote}{word}{quote}"


def _shell(rng: random.Random, words: list[str], indent: str = "", quotes: str = "'\"") -> str:
    out = [_q(rng, words[0], quotes)]
    for word in words[1:]:
        breaks = [" ", " ", f" \\\n{indent}  "]
        if word.startswith("--") and rng.random() < 0.2:  # a continuation forgotten (VL406)
            breaks = [f"\n{indent}  ", f" \\  \n{indent}  "]
        out.append(rng.choice(breaks))
        out.append(_q(rng, word, quotes))
    return "".join(out)


def _yaml(rng: random.Random, word: str) -> str:
    return rng.choice([word, f'"{word}"', f"'{word}'"])


def _block(rng: random.Random, words: list[str], indent: str) -> str:
    return "".join(f"{indent}- {_yaml(rng, w)}\n" for w in words)


def _flow(words: list[str]) -> str:
    return "[" + ", ".join(json.dumps(w) for w in words) + "]"


def shell(rng: random.Random, argv: list[str], env: str) -> Host:
    command = _shell(rng, ["vllm", "serve", *argv])
    if rng.random() < 0.3:  # a script inside a word: bash -c "..."
        command = 'bash -c "' + _shell(rng, ["vllm", "serve", *argv], quotes="'") + '"'
    return Host("serve.sh", "shell", f"#!/bin/sh\n{env}=1 {command}\n")


def compose(rng: random.Random, argv: list[str], env: str) -> Host:
    head = (f"services:\n  vllm:\n    image: {IMAGE}\n    environment:\n      {env}: '1'\n"
            "    ipc: host\n    shm_size: 8g\n    ports:\n      - \"8000:8000\"\n")
    form = rng.randrange(4)
    if form == 0:
        body = "    command:\n" + _block(rng, ["vllm", "serve", *argv], "      ")
    elif form == 1:
        body = f"    command: {_flow(argv)}\n"
    elif form == 2:
        body = f"    command: {' '.join(argv)}\n"
    else:  # a shell script in a block scalar
        script = _shell(rng, ["vllm", "serve", *argv], indent="        ")
        body = "    entrypoint: [\"/bin/sh\", \"-c\"]\n    command:\n      - |\n        "
        body += script + "\n"
    return Host("compose.yaml", "compose", head + body)


def kubernetes(rng: random.Random, argv: list[str], env: str) -> Host:
    container = (f"        - name: vllm\n          image: {IMAGE}\n"
                 f"          env:\n            - name: {env}\n              value: \"1\"\n"
                 "          ports:\n            - containerPort: 8000\n"
                 "          resources:\n            limits:\n              nvidia.com/gpu: 2\n")
    if rng.random() < 0.5:
        container += "          args:\n" + _block(rng, argv, "            ")
    else:
        script = " ".join(["vllm", "serve", *argv])
        container += ('          command: ["/bin/sh", "-c"]\n'
                      f"          args:\n            - {script}\n")
    text = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: vllm\nspec:\n  template:\n"
            "    spec:\n      containers:\n" + container)
    return Host("deployment.yaml", "kubernetes", text)


def dockerfile(rng: random.Random, argv: list[str], env: str) -> Host:
    head = f"FROM {IMAGE}\nENV {env}=1\n"
    if rng.random() < 0.5:
        return Host("Dockerfile", "dockerfile", head + f"CMD {_flow(argv)}\n")
    run = _shell(rng, ["vllm", "serve", *argv], indent="    ")
    return Host("Dockerfile", "dockerfile", f"FROM python:3.11\nENV {env}=1\nRUN {run}\n")


def systemd(rng: random.Random, argv: list[str], env: str) -> Host:
    command = _shell(rng, ["/usr/bin/vllm", "serve", *argv])
    text = f"[Service]\nEnvironment={env}=1\nExecStart={command}\nRestart=always\n"
    return Host("vllm.service", "systemd", text)


def launcher(rng: random.Random, argv: list[str], env: str) -> Host:
    command = _shell(rng, ["vllm", "serve", *argv], indent="          ")
    text = ("name: serve\non: push\njobs:\n  serve:\n    runs-on: ubuntu-latest\n    steps:\n"
            f"      - run: |\n          {env}=1 {command}\n")
    return Host(".github/workflows/serve.yml", "launcher", text)


def python(rng: random.Random, argv: list[str], env: str) -> Host:
    if rng.random() < 0.5:
        words = ", ".join(repr(w) if rng.random() < 0.5 else json.dumps(w)
                          for w in ["vllm", "serve", *argv])
        return Host("launch.py", "python", f"import subprocess\n\nsubprocess.run([{words}])\n")
    pairs: dict[str, str] = {}
    for flag, value in zip(argv, argv[1:]):
        name = flag[2:].replace("-", "_")
        if flag.startswith("--") and not value.startswith("--") and not iskeyword(name):
            pairs.setdefault(name, value)
    keywords = ", ".join(f"{name}={value!r}" for name, value in pairs.items())
    call = ", ".join([f"model={argv[0]!r}", *([keywords] if keywords else [])])
    text = f"from vllm import LLM\n\nllm = LLM({call})\n"
    return Host("run.py", "python", text)


def markdown(rng: random.Random, argv: list[str], env: str) -> Host:
    inner, language = rng.choice([
        (shell, "bash"), (compose, "yaml"), (kubernetes, "yaml"), (launcher, "yaml"),
        (dockerfile, "dockerfile"), (python, "python"),
    ])
    body = inner(rng, argv, env).text.rstrip("\n").split("\n")
    indent = rng.choice(["", "   "])
    block = "".join(f"{indent}{line}\n" for line in [f"```{language}", *body, "```"])
    intro = "1. Start it:\n\n" if indent else "Start it:\n\n"
    return Host("README.md", "markdown", f"# Serving\n\n{intro}{block}\nDone.\n")


HOSTS: Mapping[str, Callable[[random.Random, list[str], str], Host]] = {
    "compose": compose, "dockerfile": dockerfile, "kubernetes": kubernetes,
    "launcher": launcher, "markdown": markdown, "python": python, "shell": shell,
    "systemd": systemd,
}


# -- what every span must slice to ------------------------------------------------------------


def _check_token(text: str, token: Token) -> None:
    if not token.literal or not token.text:
        return
    distinct = len(set(token.positions[:-1])) == len(token.text)
    if not distinct:
        return  # a made-up word (the entry an image implies) maps to one place
    for index, char in enumerate(token.text):
        written = text[offset(text, token.pos(index))]
        assert written == char or (char == " " and written in "\n\\"), (token, written)
    if "\n" in sliced(text, token.pos(0), token.pos(-1)):
        return  # joined across a continuation or a folded line
    assert sliced(text, token.pos(0), token.sub_span(0).end) == token.text, token
    covered = sliced(text, token.span.start, token.span.end)
    assert covered in (token.text, token.text + "'", token.text + '"'), (token, covered)


def _check_keyword(text: str, keyword: Keyword) -> None:
    assert sliced(text, keyword.name.span.start, keyword.name.span.end) == keyword.name.text
    if keyword.literal and isinstance(keyword.value, str):
        written = sliced(text, keyword.value_span.start, keyword.value_span.end)
        assert written in (repr(keyword.value), json.dumps(keyword.value)), (keyword, written)


def _check_line_break(text: str, line_break: LineBreak) -> None:
    if line_break.trailing_blanks:
        written = sliced(text, line_break.span.start, line_break.span.end)
        assert written.startswith("\\") and written[1:].strip(" \t") == "", written
        following = text[offset(text, line_break.span.end):]
    else:
        # One column from just past the line's end: where the backslash should go.
        start, end = line_break.span.start, line_break.span.end
        assert end == Pos(start.line, start.column + 1), line_break
        at = offset(text, start)
        assert text[at:at + 1] == "\n", line_break
        following = text[at:]
    assert following.lstrip().startswith(line_break.orphan), line_break


def check_invocation(text: str, invocation: Invocation) -> None:
    for pos in positions(dataclasses.replace(invocation, line_breaks=())):
        offset(text, pos)  # inside the file
    assert invocation.anchor.start <= invocation.anchor.end
    for token in reachable(invocation, Token):
        _check_token(text, token)
    for keyword in invocation.keywords:
        _check_keyword(text, keyword)
    for line_break in invocation.line_breaks:
        _check_line_break(text, line_break)
    for name, variable in invocation.deployment.env.items():
        if variable.name_span is not None:
            assert sliced(text, variable.name_span.start, variable.name_span.end) == name
    image = invocation.deployment.image
    if isinstance(image, Located) and image.value is not None and "$" not in image.value:
        assert sliced(text, image.span.start, image.span.end) == image.value
    for fact in reachable(invocation.deployment, Located):
        written = sliced(text, fact.span.start, fact.span.end)
        assert written.strip(), fact  # a fact's span is where it is written
        if isinstance(fact.value, (str, int)) and not isinstance(fact.value, bool):
            if fact.value != "all" and not (isinstance(fact.value, int) and fact.value > 65535):
                assert str(fact.value) in written, (fact, written)


@settings(max_examples=examples(300), deadline=None)
@given(st.sampled_from(sorted(HOSTS)), argvs(), ENV_NAME, st.randoms(use_true_random=False))
def test_every_span_slices_the_text_to_what_it_claims(
    host_name: str, argv: list[str], env: str, rng: random.Random
) -> None:
    host = HOSTS[host_name](rng, argv, env)
    found = extractor(host.kind).extract(host.name, host.text)
    assert found, host.text
    for invocation in found:
        check_invocation(host.text, invocation)


def test_the_checks_catch_a_span_that_is_off_by_one() -> None:
    text = "vllm serve m --port 8000\n"
    (invocation,) = extractor("shell").extract("s.sh", text)
    check_invocation(text, invocation)
    shifted = invocation.args[-1].moved(lambda p: Pos(p.line, p.column + 1))
    broken = dataclasses.replace(invocation, args=(*invocation.args[:-1], shifted))
    try:
        check_invocation(text, broken)
    except AssertionError:
        return
    raise AssertionError("a span one column off passed the checks")
