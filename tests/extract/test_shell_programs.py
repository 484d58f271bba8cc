"""Python programs a shell script feeds an interpreter through here-documents
(``vlint.extract.shell_programs``), in a script and in a Markdown fence."""

from __future__ import annotations

from vlint.extract import markdown, shell_programs
from vlint.model import Pos, Span

JOB = """\
#!/bin/bash
#SBATCH --gres=gpu:1
python3 - <<'EOF'
from vllm import LLM
llm = LLM(model="org/m", swap_space=4)
EOF
python <<EOF
from vllm import LLM
llm = LLM(model="$MODEL")
EOF
python script.py <<EOF
from vllm import LLM
llm = LLM(model="org/m")
EOF
python -c 'print(1)' <<EOF
from vllm import LLM
llm = LLM(model="org/m")
EOF
"""


def test_a_python_here_document_is_read_at_its_place() -> None:
    [launch] = shell_programs.extract("job.sbatch", JOB)
    assert launch.origin == ("shell", "python") and launch.callee == "LLM"
    swap = next(keyword for keyword in launch.keywords if keyword.name.text == "swap_space")
    assert swap.name.span == Span(Pos(5, 26), Pos(5, 36))
    assert swap.value_span == Span(Pos(5, 37), Pos(5, 38))


def test_only_a_program_read_from_standard_input_is_code() -> None:
    # The unquoted body holding `$MODEL`, the script's input and `-c`'s input are not read.
    launches = shell_programs.extract("job.sbatch", JOB)
    assert [launch.anchor.start.line for launch in launches] == [5]


def test_a_here_document_in_a_markdown_fence() -> None:
    text = ("# Run\n\n```bash\npython3 <<EOF\nfrom vllm import LLM\n"
            'llm = LLM(model="org/m", max_model_len=4096)\nEOF\n```\n')
    [launch] = markdown.extract("README.md", text)
    assert launch.origin == ("markdown", "shell", "python")
    length = next(keyword for keyword in launch.keywords if keyword.name.text == "max_model_len")
    assert length.name.span.start == Pos(6, 26)
