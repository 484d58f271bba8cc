from __future__ import annotations

from vlint.extract.makefile import extract
from vlint.model import Invocation, LineIndex, Pos, Span, Token
from vlint.syntax.makefile import recipes


def written(text: str, span: Span) -> str:
    index = LineIndex(text)
    return text[index.offset(span.start) : index.offset(span.end)]


def arg(invocation: Invocation, text: str) -> Token:
    return next(token for token in invocation.args if token.text == text)


def scripts(text: str) -> list[str]:
    return [recipe.script.text for recipe in recipes(text)]


def test_recipe_after_at_prefix_with_make_variable() -> None:
    text = ("MODEL ?= meta-llama/Llama-3.1-8B\n"
            "serve:\n"
            "\t@vllm serve $(MODEL) --max-num-seqs 8 --port ${PORT}\n")
    (found,) = extract("Makefile", text)
    assert found.origin == ("makefile", "shell")
    assert written(text, found.anchor) == "vllm serve"
    assert found.anchor.start == Pos(3, 3)
    # MODEL is assigned once with a plain value: its reference reads it, at the assignment
    # (the default a run without overrides expands); PORT is not assigned: unresolved.
    assert [(t.text, t.literal) for t in found.args] == [
        ("meta-llama/Llama-3.1-8B", True), ("--max-num-seqs", True), ("8", True),
        ("--port", True), ("${PORT}", False)]
    assert arg(found, "meta-llama/Llama-3.1-8B").span == Span(Pos(1, 10), Pos(1, 33))
    assert written(text, arg(found, "--max-num-seqs").span) == "--max-num-seqs"


def test_a_variable_assigned_twice_or_appended_to_stays_unresolved() -> None:
    text = ("IMAGE = vllm/vllm-openai:v0.9.2\nIMAGE = other\nARGS = --port 1\nARGS += --x\n"
            "LEN := $(shell cat len)\n"
            "run:\n\tvllm serve m $(ARGS) --max-model-len $(LEN) --served-model-name $(IMAGE)\n")
    (found,) = extract("Makefile", text)
    assert [(t.text, t.literal) for t in found.args] == [
        ("m", True), ("$(ARGS)", False), ("--max-model-len", True), ("$(LEN)", False),
        ("--served-model-name", True), ("$(IMAGE)", False)]


def test_a_docker_run_of_an_image_held_in_make_variables() -> None:
    text = ("IMAGE_NAME = vllm/vllm-openai\nIMAGE_TAG := v0.9.2\nMODEL = org/m\n"
            "up:\n\tdocker run -d --gpus all $(IMAGE_NAME):$(IMAGE_TAG) --model $(MODEL)"
            " --max-num-seqs 8\n")
    (found,) = extract("Makefile", text)
    assert found.image == "vllm/vllm-openai:v0.9.2" and found.target == "0.9.2"
    assert arg(found, "org/m").span == Span(Pos(3, 9), Pos(3, 14))


def test_make_references_are_unresolved_even_in_single_quotes() -> None:
    text = "run:\n\t-vllm serve '$(MODEL)' --served-model-name '$@' --port $<\n"
    (found,) = extract("Makefile", text)
    assert [(t.text, t.literal) for t in found.args] == [
        ("$(MODEL)", False), ("--served-model-name", True), ("$@", False), ("--port", True),
        ("$<", False)]


def test_double_dollar_is_the_shell_dollar() -> None:
    text = "run:\n\t+vllm serve m --port $$PORT --api-key \"$${KEY}\"\n"
    (found,) = extract("Makefile", text)
    port = arg(found, "$PORT")
    assert not port.literal
    assert written(text, port.span) == "$$PORT"
    assert scripts(text) == ["vllm serve m --port $PORT --api-key \"${KEY}\"\n"]


def test_continuation_joined_as_make_passes_it() -> None:
    text = ("serve: deps\n"
            "\tvllm serve m \\\n"
            "\t\t--max-num-seqs 8 \\\n"
            "\t  --port 8000\n")
    (found,) = extract("Makefile", text)
    assert [t.text for t in found.args] == ["m", "--max-num-seqs", "8", "--port", "8000"]
    assert arg(found, "--max-num-seqs").span == Span(Pos(3, 3), Pos(3, 17))
    assert arg(found, "--port").span == Span(Pos(4, 4), Pos(4, 10))
    assert found.line_breaks == ()


def test_recipe_after_semicolon_on_the_rule_line() -> None:
    text = "quick: deps ; @vllm serve m --max-num-seqs 8 # comment\n"
    (found,) = extract("Makefile", text)
    assert written(text, arg(found, "--max-num-seqs").span) == "--max-num-seqs"


def test_missing_backslash_is_a_line_break() -> None:
    text = "serve:\n\tvllm serve m --port 8000\n\t  --max-num-seqs 8\n"
    (found,) = extract("Makefile", text)
    (broken,) = found.line_breaks
    assert broken.span.start == Pos(2, 26)
    assert scripts(text) == ["vllm serve m --port 8000\n--max-num-seqs 8\n"]


def test_define_blocks_and_assignments_are_not_recipes() -> None:
    text = ("define RUN\n"
            "\tvllm serve in-define\n"
            "endef\n"
            "URL := http://localhost:8000\n"
            "serve: MODEL = m\n"
            "\tvllm serve after-target-variable\n"
            "export CMD = vllm serve exported\n")
    assert extract("Makefile", text) == []


def test_blank_comment_and_conditional_lines_do_not_end_a_recipe() -> None:
    text = ("serve:\n"
            "\techo start\n"
            "\n"
            "# a make comment\n"
            "ifeq ($(GPU),1)\n"
            "\tvllm serve a\n"
            "else\n"
            "\tvllm serve b\n"
            "endif\n"
            "other:\n"
            "\tvllm serve c\n")
    assert [i.args[0].text for i in extract("Makefile", text)] == ["a", "b", "c"]
    assert len(recipes(text)) == 2


def test_recipe_prefix_variable() -> None:
    text = ".RECIPEPREFIX = >\nserve:\n>vllm serve m --max-num-seqs 8\n"
    (found,) = extract("Makefile", text)
    assert written(text, arg(found, "--max-num-seqs").span) == "--max-num-seqs"


def test_tab_lines_outside_a_rule_and_rule_without_recipe() -> None:
    text = ".PHONY: serve\nVAR = x\n\tvllm serve stray\nserve:\n"
    assert extract("Makefile", text) == []


def test_shell_function_and_targets_with_references() -> None:
    text = ("$(BUILD)/%.log: $(SRC) | dirs\n"
            "\tvllm serve $(shell cat model.txt) --max-num-seqs 8 > $@\n")
    (found,) = extract("Makefile", text)
    assert [(t.text, t.literal) for t in found.args[:2]] == [
        ("$(shell cat model.txt)", False), ("--max-num-seqs", True)]


def test_crlf_makefile() -> None:
    text = "serve:\r\n\tvllm serve m \\\r\n\t  --max-num-seqs 8\r\n"
    (found,) = extract("Makefile", text)
    assert written(text, arg(found, "--max-num-seqs").span) == "--max-num-seqs"


def test_hostile_makefiles_cost_linear_work() -> None:
    unterminated = "serve:\n\tvllm serve " + "$(" * 50_000 + "\n"
    (found,) = extract("Makefile", unterminated)
    assert not found.args[0].literal
    many = "serve:\n" + "\tvllm serve $(M) --port $(P)\n" * 2_000
    assert len(extract("Makefile", many)) == 2_000
    assert extract("Makefile", "define X\n" * 50_000) == []


def test_exported_variables_are_every_recipes_environment() -> None:
    text = ("serve:\n"
            "\tvllm serve m\n"
            "export VLLM_USE_V1 = 0  # the old engine\n"
            "export HF_HOME := $(CURDIR)/.cache\n"
            "export VLLM_API_KEY ?= $$KEY\n"
            "export PATH += /opt/bin\n"
            "export MODEL\n")
    (found,) = extract("Makefile", text)
    assert {name: (value.text, value.literal) for name, value in found.env.items()} == {
        "VLLM_USE_V1": ("0", True), "HF_HOME": ("$(CURDIR)/.cache", False),
        "VLLM_API_KEY": ("$KEY", True), "PATH": ("/opt/bin", False)}
    assert written(text, found.env["VLLM_USE_V1"].span) == "0"
    assert written(text, found.env_names["HF_HOME"]) == "HF_HOME"


def test_exported_environment_is_bounded() -> None:
    text = "".join(f"export V{index} = x\n" for index in range(2_000))
    (found,) = extract("Makefile", text + "serve:\n\tvllm serve m\n")
    assert len(found.env) == 200  # MAX_VARIABLES


def test_a_target_specific_value_or_an_include_leaves_the_variable_unresolved() -> None:
    text = "LEN := 16k\nserve: LEN := 32768\nserve:\n\tvllm serve m --max-model-len $(LEN)\n"
    (found,) = extract("Makefile", text)
    assert [(t.text, t.literal) for t in found.args][-1] == ("$(LEN)", False)
    included = "include local.mk\nLEN := 16k\nserve:\n\tvllm serve m --max-model-len $(LEN)\n"
    (found,) = extract("Makefile", included)
    assert not found.args[-1].literal
