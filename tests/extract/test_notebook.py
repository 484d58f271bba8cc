from __future__ import annotations

import json

import pytest

from vlint.errors import Unparsable
from vlint.extract.notebook import extract
from vlint.model import Invocation, LineIndex, Pos, Span, Token
from vlint.syntax.notebook import ipython, parse


def notebook(*cells: dict[str, object], language: str | None = "python") -> str:
    metadata = {"kernelspec": {"language": language, "name": "k"}} if language else {}
    return json.dumps({"cells": list(cells), "metadata": metadata, "nbformat": 4,
                       "nbformat_minor": 5}, indent=1)


def code(*lines: str) -> dict[str, object]:
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": list(lines)}


def written(text: str, span: Span) -> str:
    """The characters of the file at ``span``."""
    index = LineIndex(text)
    return text[index.offset(span.start) : index.offset(span.end)]


def arg(invocation: Invocation, text: str) -> Token:
    return next(token for token in invocation.args if token.text == text)


def test_shell_escape_flag_lands_on_the_file_characters() -> None:
    text = notebook(code("import os\n", "!vllm serve \"m\" --max-num-seqs 8\n"))
    (found,) = extract("n.ipynb", text)
    assert found.origin == ("notebook", "shell")
    flag = arg(found, "--max-num-seqs")
    assert written(text, flag.span) == "--max-num-seqs"
    assert written(text, arg(found, "8").span) == "8"
    assert written(text, found.anchor) == "vllm serve"


def test_bash_cell_with_continuation_and_escapes() -> None:
    cell = code("%%bash\n", "vllm serve m \\\n", "  --max-num-seqs 8 --served-model-name \"é\"\n")
    text = notebook(cell)
    (found,) = extract("n.ipynb", text)
    assert found.origin == ("notebook", "shell")
    assert [t.text for t in found.args] == ["m", "--max-num-seqs", "8", "--served-model-name", "é"]
    assert written(text, arg(found, "--max-num-seqs").span) == "--max-num-seqs"
    # json.dumps escapes é as \u00e9: six characters of the file for one of the text.
    assert written(text, arg(found, "é").span).startswith("\\u00e9")


def test_script_bash_cell_and_other_cell_magics() -> None:
    text = notebook(
        code("%%script bash\n", "vllm serve a --max-num-seqs 8\n"),
        code("%%script --bg --out log /bin/bash -e\n", "vllm serve a2\n"),
        code("%%html\n", "<p>vllm serve b</p>\n"),
        code("%%time\n", "import subprocess\n", "subprocess.run(['vllm', 'serve', 'c'])\n"),
    )
    assert [i.args[0].text for i in extract("n.ipynb", text)] == ["a", "a2", "c"]


def test_subprocess_argv_in_a_code_cell_with_magics_around_it() -> None:
    # A surrogate pair and an escaped quote before the flag, on the same file line.
    source = ("%pip install vllm\n"
              "import subprocess\n"
              "if True:\n"
              "    !nvidia-smi\n"
              "banner = '\U0001F600 \"x\"'\n"
              "subprocess.run(['vllm', 'serve', 'm', '--max-num-seqs', '8'])  # \U0001F680\n")
    raw = json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [],
                                  "source": source}], "metadata": {}, "nbformat": 4})
    assert "\\ud83d\\ude00" in raw and "\\n" in raw  # one file line holds every cell line
    (found,) = extract("n.ipynb", raw)
    assert found.origin == ("notebook", "python")
    flag = arg(found, "--max-num-seqs")
    assert written(raw, flag.span) == "--max-num-seqs"
    assert written(raw, arg(found, "8").span) == "8"


def test_shell_string_in_python_through_the_notebook() -> None:
    text = notebook(code("import os\n", "os.system(\"vllm serve m --max-num-seqs 8\")\n"))
    (found,) = extract("n.ipynb", text)
    assert found.origin == ("notebook", "python", "shell")
    assert written(text, arg(found, "--max-num-seqs").span) == "--max-num-seqs"


def test_llm_keywords_in_a_code_cell() -> None:
    text = notebook(code("from vllm import LLM\n", "llm = LLM(model=\"m\", max_num_seqs=8)\n"))
    (found,) = extract("n.ipynb", text)
    (model, seqs) = found.keywords
    assert written(text, seqs.name.span) == "max_num_seqs"
    assert written(text, seqs.value_span) == "8"


def test_interpolated_python_values_are_unresolved() -> None:
    text = notebook(code("port = 8000\n", "!vllm serve {model} --port {port} --api-key '{k}'\n"))
    (found,) = extract("n.ipynb", text)
    assert [(t.text, t.literal) for t in found.args] == [
        ("{model}", False), ("--port", True), ("{port}", False), ("--api-key", True),
        ("{k}", False)]
    assert written(text, arg(found, "{port}").span) == "{port}"


def test_env_magic_applies_to_later_launches_only() -> None:
    text = notebook(
        code("!vllm serve a\n", "%env VLLM_API_KEY=one\n", "!vllm serve b\n"),
        code("%set_env HF_HOME /data\n", "!vllm serve c\n"),
        {"cell_type": "markdown", "metadata": {}, "source": ["```sh\n", "vllm serve d\n", "```\n"]},
    )
    first, second, third, docs = extract("n.ipynb", text)
    assert dict(first.env) == {}
    assert second.env["VLLM_API_KEY"].text == "one"
    assert written(text, second.env["VLLM_API_KEY"].span) == "one"
    assert {name: value.text for name, value in third.env.items()} == {
        "VLLM_API_KEY": "one", "HF_HOME": "/data"}
    assert docs.origin == ("notebook", "markdown", "shell") and dict(docs.env) == {}


def test_markdown_cell_fence() -> None:
    text = notebook({"cell_type": "markdown", "metadata": {},
                     "source": ["Run:\n", "\n", "```bash\n", "vllm serve m --max-num-seqs 8\n",
                                "```"]})
    (found,) = extract("n.ipynb", text)
    assert written(text, arg(found, "--max-num-seqs").span) == "--max-num-seqs"


def test_magic_lines_inside_a_string_are_text() -> None:
    cell = code("import subprocess\n", "HELP = '''\n", "!vllm serve not-a-command\n", "'''\n",
                "subprocess.run(['vllm', 'serve', 'real'])\n")
    (found,) = extract("n.ipynb", notebook(cell))
    assert found.args[0].text == "real"


def test_cell_that_is_not_python_is_skipped_alone() -> None:
    text = notebook(code("def broken(:\n", "!vllm serve a\n"), code("!vllm serve b\n"))
    assert [i.args[0].text for i in extract("n.ipynb", text)] == ["a", "b"]


def test_kernels_that_are_not_python() -> None:
    r_notebook = notebook(code("system('vllm serve m')\n"), language="R")
    assert extract("n.ipynb", r_notebook) == []
    bash_notebook = notebook(code("vllm serve m --max-num-seqs 8\n"), language="bash")
    (found,) = extract("n.ipynb", bash_notebook)
    assert written(bash_notebook, arg(found, "--max-num-seqs").span) == "--max-num-seqs"


def test_nbformat_3_worksheets() -> None:
    text = json.dumps({"nbformat": 3, "metadata": {}, "worksheets": [{"cells": [
        {"cell_type": "code", "input": ["!vllm serve m --max-num-seqs 8\n"], "outputs": []}]}]})
    (found,) = extract("n.ipynb", text)
    assert written(text, arg(found, "--max-num-seqs").span) == "--max-num-seqs"


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"cells": [}', Pos(1, 12)),
        ('{\n "cells": [],\n}', Pos(3, 1)),
        ('{"cells": ["x\\q"]}', Pos(1, 14)),
        ("not json", Pos(1, 1)),
        ("[" * 5000 + "]" * 5000, Pos(1, 201)),
    ],
)
def test_malformed_notebook_is_unparsable_at_its_position(text: str, where: Pos) -> None:
    with pytest.raises(Unparsable) as raised:
        extract("n.ipynb", text)
    assert raised.value.where == where
    assert raised.value.message.startswith("invalid JSON")


def test_json_that_is_not_a_notebook_is_unparsable() -> None:
    with pytest.raises(Unparsable, match="no list of cells"):
        extract("n.ipynb", '{"metadata": {}}')


def test_outputs_deeply_nested_are_refused_not_recursed() -> None:
    text = '{"cells": [], "metadata": {"x": ' + "[" * 100_000 + "]" * 100_000 + "}}"
    with pytest.raises(Unparsable, match="nested too deeply"):
        parse(text)


def test_ipython_masking_keeps_length_and_python_validity() -> None:
    (cell,) = parse(notebook(code("for x in y:\n", "    !echo {x} \\\n", "      more\n",
                                  "    %time f()\n", "obj?\n", "files = !ls\n"))).cells
    read = ipython(cell.source)
    assert read.python is not None and len(read.python.text) == len(cell.source.text)
    compile(read.python.text, "cell", "exec")
    assert [command.text for command in read.shell] == ["echo {x} \\\n      more", "ls"]


def test_hostile_cells_cost_linear_work() -> None:
    # Quadratic scans of these would take minutes: braces with no end, a line of many
    # commands, many magic lines, an unterminated triple quote.
    braces = notebook(code("!vllm serve " + "{" * 50_000 + "\n"))
    (found,) = extract("n.ipynb", braces)
    assert found.args[0].text == "{" * 50_000 and found.args[0].literal
    many = notebook(code("!" + "; ".join(["vllm serve a --port {p}"] * 2_000) + "\n"))
    assert len(extract("n.ipynb", many)) == 2_000
    magics = notebook(code("%%time\n", *["%x\n"] * 20_000, "'''" * 10_000))
    assert extract("n.ipynb", magics) == []


def test_environment_carried_to_launches_is_bounded() -> None:
    source = "".join(f"%env V{index}=x\n!vllm serve m\n" for index in range(2_000))
    found = extract("n.ipynb", notebook(code(source)))
    assert len(found) == 2_000
    assert len(found[0].env) == 1 and len(found[-1].env) == 200  # MAX_VARIABLES
