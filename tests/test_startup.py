"""A lint run (a pre-commit hook on one compose file) imports only what it uses; the shortcuts
that let it do so read what the libraries they stand in for read."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import click
from dotenv import dotenv_values
from hypothesis import given, settings
from hypothesis import strategies as st

from vlint import cli

from vlint.commands import explain as cli_explain
from vlint.extract.dotenv_files import simple_dotenv

ROOT = Path(__file__).parent.parent
# A compose file with a ``.env`` beside it and a ``sh -c`` launch.
COMPOSE = ROOT / "examples" / "compose" / "docker-compose.yml"
# Modules a plain lint run has no use for (other commands, policies, other formats, fixes).
NOT_IMPORTED = (
    "vlint.commands.explain", "vlint.commands.confirm", "vlint.commands.flags", "vlint.policy.policies",
    "vlint.render.json_output", "vlint.render.sarif", "dotenv", "difflib",
)

RUN = """
import json, sys
from vlint.cli import main
try:
    main(["--exit-zero", sys.argv[1]])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def test_a_lint_run_imports_no_other_command_nor_unused_library() -> None:
    assert (COMPOSE.parent / ".env").is_file()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", RUN, str(COMPOSE)], capture_output=True,
                          text=True, check=True, env=env)
    imported = set(json.loads(done.stderr.strip().splitlines()[-1]))
    assert "vlint.engine.lint" in imported and done.stdout  # it did lint, and found something
    assert not imported & set(NOT_IMPORTED)


def test_every_command_is_listed_and_loads_under_its_name() -> None:
    explained = {command.name for command in cli_explain.COMMANDS}
    assert explained <= set(cli.LAZY_COMMANDS)
    for name, (module, attribute) in cli.LAZY_COMMANDS.items():
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command) and command.name == name
    context = click.Context(cli._group)
    assert cli._group.list_commands(context) == sorted({"check", *cli.LAZY_COMMANDS})


def _both(text: str) -> tuple[dict[str, str | None] | None, dict[str, str | None]]:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, ".env")
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        return simple_dotenv(path), dict(dotenv_values(path, interpolate=False))


def test_simple_dotenv_files_read_as_python_dotenv_reads_them() -> None:
    for text in ("", "A=1\n", "# c\nA=1\r\nB=\n\nA=2", "MODEL=Qwen/Qwen2.5-7B\nX=${Y:-z}\n",
                 "export=1\n_x9=a=b\n", "A=1\rB=2"):
        simple, reference = _both(text)
        assert simple == reference, text
    # Anything else is left to python-dotenv.
    for text in ("A = 1\n", "A='1'\n", 'A="1"\n', "A=1 # c\n", "export A=1\n", " A=1\n",
                 "A=a\\b\n", "A=1 \n", "A=a b\n", "A\n", "\ufeffA=1\n", "A=1\tB\n"):
        assert _both(text)[0] is None, text


_NOISE = "AB_=1#$ {}'\"\\\t\r\n-:/.é\u00a0\x1c"
# Mostly lines it reads, some near misses, a few of anything.
_NAME = st.text(alphabet="AB_a1", min_size=1, max_size=3) | st.text(alphabet="AB_a1é -",
                                                                      max_size=4)
_VALUE = st.text(alphabet="ab1/:.-${}é=", max_size=6)
_LINE = st.one_of(
    st.builds("{}={}".format, _NAME, _VALUE),
    st.builds("{}={}".format, _NAME, _VALUE),
    st.builds("{}={}{}{}".format, _NAME, _VALUE, st.text(alphabet=" \t#'\"\\\u00a0", max_size=2),
              st.just("") | _VALUE),
    st.text(alphabet="# a=", max_size=5),
    st.text(alphabet=_NOISE, max_size=10),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_LINE, max_size=4), st.sampled_from(["\n", "\r\n", "\r"]))
def test_simple_dotenv_agrees_with_python_dotenv_whenever_it_answers(
    lines: list[str], newline: str
) -> None:
    simple, reference = _both(newline.join(lines))
    assert simple is None or simple == reference
