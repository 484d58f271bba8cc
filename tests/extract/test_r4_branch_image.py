"""A container image held in a variable that an option loop may reassign, and an expansion
holding run options before the others: the ``docker run`` is still read."""

from __future__ import annotations

from pathlib import Path

from tests._support.files import write_tree
from tests._support.invocations import arg, args, at
from vlint.engine.lint import lint
from vlint.extract.shell import extract, parse_words
from vlint.model import Pos, Span
from vlint.settings import Settings

# The shape of a launcher script: defaults, an option loop whose branches replace them, then
# one ``docker run`` whose GPU options sit in a variable.
SCRIPT = (
    "IMAGE=vllm/vllm-openai:v0.10.1\n"  # 1
    'GPU_FLAGS="--gpus all"\n'  # 2
    "MODEL=Qwen/Qwen2.5-1.5B-Instruct\n"  # 3
    "while [ $# -gt 0 ]; do\n"  # 4
    '  case "$1" in\n'  # 5
    "    --cpu) IMAGE=vllm-cpu-env; GPU_FLAGS=\"\"; shift ;;\n"  # 6
    "    --small) MODEL=Qwen/Qwen2.5-0.5B-Instruct; shift ;;\n"  # 7
    "    *) shift ;;\n"  # 8
    "  esac\n"  # 9
    "done\n"  # 10
    "docker run --rm \\\n"  # 11
    "  ${GPU_FLAGS} \\\n"  # 12
    "  --ipc=host -p 8000:8000 \\\n"  # 13
    "  ${IMAGE} \\\n"  # 14
    "  --model ${MODEL} --swap-space 4\n"  # 15
)


def test_an_image_an_option_loop_may_replace_is_read_as_its_default() -> None:
    (launch,) = extract("run.sh", SCRIPT)
    assert args(launch) == ["--model", "Qwen/Qwen2.5-1.5B-Instruct", "--swap-space", "4"]
    # The default, where it is written; not literal: the loop may have replaced it.
    assert launch.image == "vllm/vllm-openai:v0.10.1"
    assert launch.image_span == at(1, 7, 31)
    model = arg(launch, "Qwen/Qwen2.5-1.5B-Instruct")
    assert not model.literal and model.span == at(3, 7, 33)
    assert arg(launch, "--swap-space").span == at(15, 20, 32)
    assert launch.target is None  # the tag is no release: the script may run another image
    # ``${GPU_FLAGS}`` held run options: the options after it are read, the facts incomplete.
    facts = launch.deployment
    assert facts.ipc is not None and facts.ipc.value == "host"
    assert [port.container.value for port in facts.ports] == [8000]


def test_the_flags_are_checked_where_they_are_written(tmp_path: Path) -> None:
    write_tree(tmp_path, {"run.sh": SCRIPT})
    report = lint([str(tmp_path / "run.sh")], Settings(target="0.33.0"))
    found = [(finding.code, finding.span) for finding in report.findings]
    # --swap-space, removed after 0.17.1; with its value, as `vllm serve` reports it: the
    # image's entry point at 0.33.0 (its tag is not the release checked).
    assert ("VL103", at(15, 20, 34)) in found
    assert not any(code == "VL004" for code, _ in found)


def test_a_branch_giving_an_unknown_value_leaves_the_image_unknown() -> None:
    script = SCRIPT.replace("IMAGE=vllm-cpu-env", 'IMAGE="$2"')
    assert extract("run.sh", script) == []
    words = [c.words for c in parse_words(script) if c.words[0].text == "docker"][0]
    assert "${IMAGE}" in [word.text for word in words]


def test_a_default_of_several_words_stays_as_written() -> None:
    (command,) = [c for c in parse_words(SCRIPT) if c.words[0].text == "docker"]
    assert command.words[3].text == "${GPU_FLAGS}" and not command.words[3].literal


def test_a_variable_read_in_a_branch_stays_unknown() -> None:
    script = SCRIPT.replace("IMAGE=vllm-cpu-env;", "read -r IMAGE;")
    assert extract("run.sh", script) == []


def test_a_default_that_is_not_a_vllm_image_gives_no_launch() -> None:
    script = SCRIPT.replace("IMAGE=vllm/vllm-openai:v0.10.1", "IMAGE=myorg/chat:1.2")
    # Its own entry point may read ``--swap-space``: no vLLM option no release has decides.
    assert extract("run.sh", script.replace("--swap-space 4", "--workers 4")) == []


def test_an_expansion_before_the_options_holds_options() -> None:
    line = "docker run ${EXTRA} --ipc=host vllm/vllm-openai:v0.10.1 --model m"
    (launch,) = extract("run.sh", line + "\n")
    assert launch.target == "0.10.1" and args(launch) == ["--model", "m"]
    assert launch.deployment.ipc is not None and launch.deployment.ipc.value == "host"


def test_an_image_variable_that_names_vllm_stays_the_image() -> None:
    # ``--device`` is a docker option too: the image named for vLLM is read first.
    (launch,) = extract("run.sh", "docker run $VLLM_IMAGE --device cuda --model m\n")
    assert args(launch) == ["--device", "cuda", "--model", "m"]



def test_a_finding_on_a_default_says_when_it_is_passed(tmp_path: Path) -> None:
    script = (
        "FLAG=--swap-space\n"
        'if [ -n "$EAGER" ]; then FLAG=--enforce-eager; fi\n'
        "vllm serve m $FLAG 4\n"
    )
    write_tree(tmp_path, {"run.sh": script})
    report = lint([str(tmp_path / "run.sh")], Settings(target="0.33.0"))
    (finding,) = report.findings
    # From the flag, where the default is written, to its value on the command's line.
    assert finding.code == "VL103" and finding.span == Span(Pos(1, 6), Pos(3, 21))
    assert finding.message.endswith("(passed only when $FLAG keeps its earlier value)")
