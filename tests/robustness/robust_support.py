"""Shared helpers for the robustness tests: running one text through the pipeline, turning
spans into offsets, and building valid launches in every host format (with where each word is
written, so a test can check that vlint's spans point at exactly that text)."""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

from vlint.knowledge import catalog
from vlint.extract import EXTRACTORS
from vlint.engine.lint import Report, lint_text
from vlint.model import Finding, Pos

KINDS = tuple(sorted(EXTRACTORS))


def examples(count: int) -> int:
    """``count`` hypothesis examples, times ``VLINT_HYPOTHESIS_SCALE`` (default 1): CI runs the
    budgets as written; a longer run outside CI sets the scale (``=10``)."""
    return count * max(1, int(os.environ.get("VLINT_HYPOTHESIS_SCALE", "1")))
SAFE_WORD = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


def run_pipeline(kind: str, text: str, path: str = "robust.txt") -> list[Finding]:
    """The findings of the pipeline for ``text`` read as ``kind``, checked against the newest
    release (so no file pin, project pin or lock file around the test can change the result)."""
    return lint_text(path, kind, text, (catalog.newest(),), Report(), reraise=True)


def offset(text: str, pos: Pos) -> int:
    """The character offset of a 1-based line/column position; raises if it is outside."""
    lines = text.split("\n")
    assert 1 <= pos.line <= len(lines), f"line {pos.line} outside a {len(lines)}-line text"
    line = lines[pos.line - 1]
    assert 1 <= pos.column <= len(line) + 1, f"column {pos.column} outside line {pos.line}"
    return sum(len(earlier) + 1 for earlier in lines[: pos.line - 1]) + pos.column - 1


def sliced(text: str, start: Pos, end: Pos) -> str:
    first, last = offset(text, start), offset(text, end)
    assert first <= last, f"span {start} .. {end} runs backwards"
    return text[first:last]


@dataclass(frozen=True)
class Option:
    string: str
    takes_value: bool
    values: tuple[str, ...]  # example values the option's type accepts


@cache
def known_options() -> tuple[Option, ...]:
    """Long options of the newest release's ``vllm serve`` with simple values (from the catalog)."""
    release = catalog.load(catalog.newest())
    parser = release.parser("serve")
    assert parser is not None
    found: list[Option] = []
    for option in parser.options:
        long = [s for s in option.strings if s.startswith("--") and SAFE_WORD.match(s[2:])]
        if not long or option.action in ("help", "version"):
            continue
        if not option.takes_value:
            found.append(Option(long[0], False, ()))
            continue
        if option.nargs not in (None, "+", "?"):
            continue
        kind = str(release.types.get(str(option.type), {}).get("kind")) if option.type else "str"
        if option.choices:
            values = tuple(str(c) for c in option.choices if SAFE_WORD.match(str(c)))
        elif kind == "human_int":
            values = ("4096", "16k", "8K", "2m", "1G", "1.5k", "32768")
        elif kind == "int":
            values = ("1", "8", "64", "4096")
        elif kind == "float":
            values = ("0.5", "0.9", "1.0")
        elif kind in ("str", "opaque", "none"):
            values = ("auto", "value1", "my.model")
        else:  # JSON kinds need quoting that differs per host: left to the arbitrary-text tests
            continue
        if values:
            found.append(Option(long[0], True, values))
    return tuple(found)


@dataclass(frozen=True)
class Launch:
    """A host file, its kind, and the argv after ``vllm serve`` as written in it."""

    name: str
    kind: str
    text: str
    argv: tuple[str, ...]


def random_argv(
    rng: random.Random, count: int, unknown: str | None, exclude: Sequence[Option] = ()
) -> list[str]:
    """``MODEL`` and ``count`` known flags (with values), plus an unknown flag if given."""
    options = [option for option in known_options() if option not in exclude]
    argv = [rng.choice(["facebook/opt-125m", "m", "Qwen/Qwen3-8B", "./model"])]
    for option in rng.sample(options, min(count, len(options))):
        if not option.takes_value:
            argv.append(option.string)
        elif rng.random() < 0.25:
            argv.append(f"{option.string}={rng.choice(option.values)}")
        else:
            argv.extend([option.string, rng.choice(option.values)])
    if unknown is not None:
        argv.insert(rng.randrange(1, len(argv) + 1), unknown)
    return argv


def _shell_word(rng: random.Random, word: str) -> str:
    return rng.choice([word, word, f"'{word}'", f'"{word}"'])


def shell_command(rng: random.Random, words: Sequence[str], indent: str = "") -> str:
    out = [_shell_word(rng, words[0])]
    for word in words[1:]:
        out.append(rng.choice([" ", " ", f" \\\n{indent}  "]))
        out.append(_shell_word(rng, word))
    return "".join(out)


def _yaml_item(rng: random.Random, word: str) -> str:
    # A plain scalar that YAML would type (8, 0.5, true) is quoted, as Kubernetes requires.
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9_./-]*", word) and word.lower() not in (
        "true", "false", "yes", "no", "on", "off", "null", "y", "n"
    ):
        return rng.choice([word, f'"{word}"', f"'{word}'"])
    return rng.choice([f'"{word}"', f"'{word}'"])


def _block_list(rng: random.Random, words: Sequence[str], indent: str) -> str:
    return "".join(f"{indent}- {_yaml_item(rng, w)}\n" for w in words)


def _flow_list(words: Sequence[str]) -> str:
    return "[" + ", ".join(json.dumps(w) for w in words) + "]"


IMAGE = "vllm/vllm-openai:v{release}"


def _image() -> str:
    return IMAGE.format(release=catalog.newest())


def shell(rng: random.Random, argv: Sequence[str]) -> Launch:
    prefix = rng.choice(["", "exec ", "nohup ", "CUDA_VISIBLE_DEVICES=0 "])
    text = "#!/bin/bash\nset -e\n" + prefix + shell_command(rng, ["vllm", "serve", *argv]) + "\n"
    return Launch("serve.sh", "shell", text, tuple(argv))


def compose_list(rng: random.Random, argv: Sequence[str]) -> Launch:
    head = f"services:\n  vllm:\n    image: {_image()}\n"
    if rng.random() < 0.5:
        body = "    command:\n" + _block_list(rng, argv, "      ")
    else:
        body = f"    command: {_flow_list(argv)}\n"
    return Launch("compose.yaml", "compose", head + body, tuple(argv))


def compose_string(rng: random.Random, argv: Sequence[str]) -> Launch:
    words = " ".join(argv)
    text = f"services:\n  vllm:\n    image: {_image()}\n    command: {words}\n"
    if rng.random() < 0.5:
        text = f"services:\n  vllm:\n    image: {_image()}\n    command: >\n      {words}\n"
    return Launch("docker-compose.yml", "compose", text, tuple(argv))


def kubernetes(rng: random.Random, argv: Sequence[str]) -> Launch:
    container = f"        - name: vllm\n          image: {_image()}\n"
    if rng.random() < 0.5:
        container += "          args:\n" + _block_list(rng, argv, "            ")
    else:
        container += f'          command: ["vllm", "serve"]\n          args: {_flow_list(argv)}\n'
    text = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: vllm\nspec:\n  template:\n"
        "    spec:\n      containers:\n" + container
    )
    return Launch("deployment.yaml", "kubernetes", text, tuple(argv))


def dockerfile_exec(rng: random.Random, argv: Sequence[str]) -> Launch:
    if rng.random() < 0.5:
        text = f"FROM {_image()}\nCMD {_flow_list(argv)}\n"
    else:
        text = f'FROM python:3.11\nENTRYPOINT ["vllm", "serve"]\nCMD {_flow_list(argv)}\n'
    return Launch("Dockerfile", "dockerfile", text, tuple(argv))


def dockerfile_shell(rng: random.Random, argv: Sequence[str]) -> Launch:
    command = shell_command(rng, ["vllm", "serve", *argv], indent="    ")
    return Launch("Dockerfile", "dockerfile", f"FROM python:3.11\nCMD {command}\n", tuple(argv))


def markdown(rng: random.Random, argv: Sequence[str]) -> Launch:
    command = shell_command(rng, ["vllm", "serve", *argv])
    fence = rng.choice(["bash", "sh", "shell", "console"])
    if fence == "console":
        command = "$ " + command
    if rng.random() < 0.5:
        block = f"```{fence}\n{command}\n```\n"
    else:  # inside a list item: every line indented
        lines = [f"```{fence}", *command.split("\n"), "```"]
        block = "".join(f"   {line}\n" for line in lines)
        block = "1. Start the server:\n\n" + block
    return Launch("README.md", "markdown", f"# Serving\n\nRun:\n\n{block}\nDone.\n", tuple(argv))


def systemd(rng: random.Random, argv: Sequence[str]) -> Launch:
    command = shell_command(rng, ["/usr/bin/vllm", "serve", *argv])
    text = f"[Unit]\nDescription=vLLM\n\n[Service]\nExecStart={command}\nRestart=always\n"
    return Launch("vllm.service", "systemd", text, tuple(argv))


def python_argv(rng: random.Random, argv: Sequence[str]) -> Launch:
    words = ", ".join(json.dumps(w) if rng.random() < 0.5 else repr(w)
                      for w in ["vllm", "serve", *argv])
    text = f"import subprocess\n\nsubprocess.run([{words}], check=True)\n"
    return Launch("launch.py", "python", text, tuple(argv))


def launcher(rng: random.Random, argv: Sequence[str]) -> Launch:
    command = shell_command(rng, ["vllm", "serve", *argv], indent="          ")
    text = (
        "name: serve\non: push\njobs:\n  serve:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: |\n          " + command.replace("\n", "\n") + "\n"
    )
    return Launch(".github/workflows/serve.yml", "launcher", text, tuple(argv))


def helm_values(rng: random.Random, argv: Sequence[str]) -> Launch:
    """A chart's values: ``vllmConfig.extraArgs`` follow the chart's own ``vllm serve MODEL``
    (an unresolved model word, so the written argv is the flags alone)."""
    flags = list(argv[1:])
    if not flags:
        flags = ["--trust-remote-code"]
    text = (f"image:\n  repository: vllm/vllm-openai\n  tag: v{catalog.newest()}\n"
            "vllmConfig:\n  extraArgs:\n" + _block_list(rng, flags, "    "))
    return Launch("values.yaml", "helm", text, tuple(flags))


HOSTS: dict[str, Callable[[random.Random, Sequence[str]], Launch]] = {
    "compose-list": compose_list,
    "compose-string": compose_string,
    "dockerfile-exec": dockerfile_exec,
    "dockerfile-shell": dockerfile_shell,
    "helm-values": helm_values,
    "kubernetes": kubernetes,
    "launcher": launcher,
    "markdown": markdown,
    "python": python_argv,
    "shell": shell,
    "systemd": systemd,
}
