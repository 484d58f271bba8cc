"""Notebooks: the names a code cell's imports bind are seen by the cells after it, as Jupyter
runs them in one namespace (``from vllm import LLM`` in one cell, ``LLM(...)`` in a later one;
issue 15)."""

from __future__ import annotations

import json
import time

from vlint.extract.notebook import extract
from vlint.model import LineIndex, Span


def notebook(*cells: dict[str, object]) -> str:
    metadata = {"kernelspec": {"language": "python", "name": "python3"}}
    return json.dumps({"cells": list(cells), "metadata": metadata, "nbformat": 4,
                       "nbformat_minor": 5}, indent=1)


def code(*lines: str) -> dict[str, object]:
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": list(lines)}


def markdown(*lines: str) -> dict[str, object]:
    return {"cell_type": "markdown", "metadata": {}, "source": list(lines)}


def written(text: str, span: Span) -> str:
    """The characters of the file at ``span``."""
    index = LineIndex(text)
    return text[index.offset(span.start) : index.offset(span.end)]


def test_llm_built_in_a_later_cell_than_its_import() -> None:
    text = notebook(
        code("!pip install vllm==0.8.5\n"),
        code("import json\n", "from vllm import LLM, SamplingParams\n"),
        markdown("Load the model:\n"),
        code("llm = LLM(\n", '    model="org/model",\n', "    swap_space=4,\n", ")\n"),
    )
    (found,) = extract("n.ipynb", text)
    assert found.origin == ("notebook", "python")
    assert found.callee == "LLM"
    model, swap = found.keywords
    assert (model.value, swap.value) == ("org/model", 4)
    assert written(text, swap.name.span) == "swap_space"
    assert written(text, swap.value_span) == "4"
    assert written(text, found.anchor) == "LLM"


def test_aliases_and_modules_imported_earlier() -> None:
    text = notebook(
        code("import vllm as v\n", "from vllm import EngineArgs as Args\n"),
        code('engine = v.LLM(model="m", max_num_seqs=8)\n'),
        code('args = Args(model="m", max_model_len=4096)\n'),
    )
    first, second = extract("n.ipynb", text)
    assert (first.callee, second.callee) == ("LLM", "EngineArgs")
    assert written(text, first.keywords[1].name.span) == "max_num_seqs"
    assert written(text, second.keywords[1].value_span) == "4096"


def test_a_call_before_the_import_runs_is_not_vllms() -> None:
    text = notebook(
        code('llm = LLM(model="m")\n'),
        code("from vllm import LLM\n"),
    )
    assert extract("n.ipynb", text) == []


def test_a_later_import_rebinds_the_name() -> None:
    text = notebook(
        code("from vllm import LLM\n"),
        code("from my_project.clients import LLM\n"),
        code('client = LLM(model="m", swap_space=4)\n'),
    )
    assert extract("n.ipynb", text) == []


def test_a_cell_that_does_not_parse_binds_nothing_and_others_are_read() -> None:
    text = notebook(
        code("from vllm import LLM\n", "def broken(:\n"),
        code("from vllm import EngineArgs\n"),
        code('a = LLM(model="m")\n', 'b = EngineArgs(model="m")\n'),
    )
    (found,) = extract("n.ipynb", text)
    assert found.callee == "EngineArgs"


def test_modules_imported_earlier_run_commands_in_later_cells() -> None:
    text = notebook(
        code("import subprocess as sp\n"),
        code('cmd = "vllm serve m --max-num-seqs 8"\n', "server = sp.Popen(cmd, shell=True)\n"),
    )
    (found,) = extract("n.ipynb", text)
    assert [token.text for token in found.args] == ["m", "--max-num-seqs", "8"]
    assert written(text, found.args[1].span) == "--max-num-seqs"


def test_imports_carried_across_many_cells_cost_linear_work() -> None:
    cells = [code(f"import module{number} as m{number}\n") for number in range(3_000)]
    cells += [code('llm = LLM(model="m")\n')] * 3_000
    cells.insert(0, code("from vllm import LLM\n"))
    text = notebook(*cells)
    started = time.monotonic()
    found = extract("n.ipynb", text)
    assert time.monotonic() - started < 30
    assert len(found) == 3_000
