"""Commands built in shell variables: strings, arrays, ``eval``, ``bash -c``, ``${VAR:+...}``.

Every word of an expanded command must sit at the characters of the assignment where it was
written; a variable vlint cannot be sure of stays as written (unresolved, never a guess).
"""

from __future__ import annotations

import time
from pathlib import Path

from vlint.engine.lint import lint
from vlint.extract.shell import extract, parse_words
from vlint.model import Finding, Invocation, Pos, Span, Token
from vlint.settings import Settings
from tests._support.invocations import arg, args, at


def launches(text: str) -> list[Invocation]:
    return extract("run.sh", text)


BUILT = (
    'CMD="vllm serve facebook/opt-125m --port 8000"\n'  # 1
    'CMD="$CMD --max-model-len 4096"\n'  # 2
    "eval $CMD\n"  # 3
    'eval "$CMD"\n'  # 4
    "$CMD\n"  # 5
    'bash -c "$CMD"\n'  # 6
    'sh -c "$CMD --dtype half"\n'  # 7
)


def test_a_command_built_in_two_assignments_is_read_at_every_use() -> None:
    found = launches(BUILT)
    assert len(found) == 5
    for invocation in found[:4]:
        assert args(invocation) == [
            "facebook/opt-125m", "--port", "8000", "--max-model-len", "4096"
        ]
    assert args(found[4])[-2:] == ["--dtype", "half"]


def test_expanded_words_sit_in_the_assignments_that_wrote_them() -> None:
    for invocation in launches(BUILT)[:3]:  # eval $CMD, eval "$CMD", $CMD
        assert arg(invocation, "facebook/opt-125m").span == at(1, 17, 34)
        assert arg(invocation, "8000").span == at(1, 42, 46)
        assert arg(invocation, "--max-model-len").span == at(2, 11, 26)
        assert arg(invocation, "4096").span == at(2, 27, 31)
        assert all(token.literal and not token.gathered for token in invocation.args[:5])
    # Through ``bash -c`` every word starts where it was written.
    for invocation in launches(BUILT)[3:]:
        assert arg(invocation, "facebook/opt-125m").pos(0) == Pos(1, 17)
        assert arg(invocation, "8000").pos(0) == Pos(1, 42)
        assert arg(invocation, "--max-model-len").span == at(2, 11, 26)
        assert arg(invocation, "4096").pos(0) == Pos(2, 27)


def test_the_word_written_after_the_variable_keeps_its_own_place() -> None:
    (*_, nested) = launches(BUILT)
    assert arg(nested, "--dtype").span == at(7, 13, 20)
    assert arg(nested, "half").span == at(7, 21, 25)


def test_a_word_joined_from_two_assignments_is_gathered() -> None:
    text = 'CMD="vllm serve m --max-model-len=40"\nCMD="${CMD}96"\n$CMD\n'
    (invocation,) = launches(text)
    joined = arg(invocation, "--max-model-len=4096")
    assert joined.gathered
    assert joined.pos(0) == Pos(1, 19)
    assert joined.pos(16) == Pos(1, 35)  # "4"
    assert joined.pos(18) == Pos(2, 12)  # "9", written in the second assignment
    assert joined.span == Span(Pos(1, 19), Pos(2, 14))


def test_a_value_assigned_above_its_use_gives_a_span_in_file_order() -> None:
    text = "LEN=4096\nvllm serve m --max-model-len=$LEN\n"
    (invocation,) = launches(text)
    token = arg(invocation, "--max-model-len=4096")
    assert token.gathered and token.literal
    assert token.pos(0) == Pos(2, 14)
    assert token.pos(16) == Pos(1, 5)
    assert token.sub_span(16) == at(1, 5, 9)
    assert token.span.start <= token.span.end


def test_arrays_and_their_expansions() -> None:
    text = (
        "ARGS=(--tensor-parallel-size 2 \"--served-model-name\" 'a b')\n"  # 1
        "ARGS+=(--max-model-len 8192)\n"  # 2
        'vllm serve m "${ARGS[@]}"\n'  # 3
        "vllm serve m ${ARGS[*]}\n"  # 4
        "CMD=(vllm serve m --port 8000)\n"  # 5
        '"${CMD[@]}" "${ARGS[1]}"\n'  # 6
    )
    quoted, unquoted, whole = launches(text)
    assert args(quoted) == [
        "m", "--tensor-parallel-size", "2", "--served-model-name", "a b", "--max-model-len",
        "8192",
    ]
    assert args(unquoted)[4:6] == ["a", "b"]  # unquoted: the element is split again
    assert args(whole) == ["m", "--port", "8000", "2"]
    assert arg(quoted, "--tensor-parallel-size").span == at(1, 7, 29)
    assert arg(quoted, "a b").span == at(1, 55, 58)
    assert arg(quoted, "8192").span == at(2, 24, 28)
    assert whole.anchor == at(5, 6, 16)
    assert arg(whole, "2").span == at(1, 30, 31)


def test_an_empty_array_makes_no_word() -> None:
    (invocation,) = launches('EXTRA=()\nvllm serve m "${EXTRA[@]}" --port 1\n')
    assert args(invocation) == ["m", "--port", "1"]


def test_a_conditional_flag_is_kept_and_marked() -> None:
    text = 'vllm serve m ${LORA:+--enable-lora --max-lora-rank 64} "${Q:+--quantization fp8}"\n'
    (invocation,) = launches(text)
    assert args(invocation) == [
        "m", "--enable-lora", "--max-lora-rank", "64", "--quantization fp8"
    ]
    assert [token.condition for token in invocation.args] == [None, "LORA", "LORA", "LORA", "Q"]
    assert arg(invocation, "--enable-lora").span == at(1, 22, 35)
    assert arg(invocation, "64").span == at(1, 52, 54)


def test_a_known_variable_decides_the_conditional_flag() -> None:
    text = 'ON=1\nOFF=""\nvllm serve m ${ON:+--enforce-eager} ${OFF:+--trust-remote-code}\n'
    (invocation,) = launches(text)
    assert args(invocation) == ["m", "--enforce-eager"]
    assert arg(invocation, "--enforce-eager").condition is None


def test_defaults_of_known_and_unknown_variables() -> None:
    text = 'TP=4\nEMPTY=""\nvllm serve m --tensor-parallel-size ${TP:-1} --port ${EMPTY:-80} ${X:-9}\n'
    (invocation,) = launches(text)
    assert args(invocation)[1:5] == ["--tensor-parallel-size", "4", "--port", "80"]
    assert arg(invocation, "4").span == at(1, 4, 5)
    assert arg(invocation, "80").span == at(3, 62, 64)
    assert not arg(invocation, "${X:-9}").literal


def test_an_assignment_in_a_branch_makes_the_variable_unknown_after_it() -> None:
    text = (
        'CMD="vllm serve m"\n'
        'if [ -n "$BIG" ]; then CMD="$CMD --max-model-len 32768"; $CMD; fi\n'
        "$CMD --port 1\n"
        'MODEL="m"\n'
        '[ -z "$FAST" ] && MODEL="other"\n'
        "vllm serve $MODEL\n"
    )
    inside, after = launches(text)[:2]
    assert args(inside) == ["m", "--max-model-len", "32768"]
    assert arg(inside, "32768").condition is None  # inside its branch it is certain
    # An append in a branch is known after it, conditional (tests below); any other
    # assignment makes the variable unknown: its default, one literal word, is kept unknown.
    assert args(after) == ["m", "--max-model-len", "32768", "--port", "1"]
    words = [command.words for command in parse_words(text)]
    assert [w.text for w in words[-1]] == ["vllm", "serve", "m"]
    assert not words[-1][2].literal


def test_a_loop_forgets_what_it_assigns_from_its_start() -> None:
    text = (
        'PORT=8000\nMODEL=m\n'
        "for i in 1 2; do vllm serve $MODEL --port $PORT; PORT=8001; done\n"
        "vllm serve $MODEL --port $PORT\n"
    )
    first, second = launches(text)
    assert args(first) == ["m", "--port", "$PORT"]
    assert args(second) == ["m", "--port", "8000"]  # the default, unknown after the loop
    assert not arg(first, "$PORT").literal and not arg(second, "8000").literal


def test_functions_see_no_variable_and_a_call_forgets_what_they_assign() -> None:
    text = (
        'CMD="vllm serve m"\n'
        "reset() { CMD=other; }\n"
        "serve() { $CMD --port 1; }\n"
        "$CMD --port 2\n"
        "reset\n"
        "$CMD --port 3\n"
    )
    commands = [[w.text for w in c.words] for c in parse_words(text)]
    assert ["$CMD", "--port", "1"] in commands
    assert ["vllm", "serve", "m", "--port", "2"] in commands
    assert ["$CMD", "--port", "3"] in commands


def test_a_value_that_is_not_literal_stays_unresolved() -> None:
    text = 'CMD=$(make_cmd)\n$CMD --port 1\neval "$CMD"\nread -r NAME\nvllm serve $NAME\n'
    commands = [[(w.text, w.literal) for w in c.words] for c in parse_words(text)]
    assert commands[0] == [("$CMD", False), ("--port", True), ("1", True)]
    assert [("vllm", True), ("serve", True), ("$NAME", False)] in commands
    assert launches(text)[0].args[0].text == "$NAME"


def test_a_partly_known_command_keeps_the_unknown_part_as_one_unresolved_word() -> None:
    (invocation,) = launches('CMD="vllm serve $MODEL --port 8000"\n$CMD\n')
    assert args(invocation) == ["$MODEL", "--port", "8000"]
    assert not invocation.args[0].literal
    assert invocation.args[0].span == at(1, 17, 23)


def test_eval_reads_quotes_that_plain_expansion_keeps() -> None:
    text = "CMD=\"vllm serve m --served-model-name 'a b'\"\neval $CMD\n$CMD\n"
    evaluated, split = launches(text)
    assert args(evaluated)[-1] == "a b"
    assert arg(evaluated, "a b").sub_span(0) == at(1, 40, 43)
    assert args(split)[-2:] == ["'a", "b'"]


def test_eval_of_unknown_text_forgets_every_variable() -> None:
    text = 'CMD="vllm serve m"\neval "$(conda shell.bash hook)"\n$CMD\n'
    assert launches(text) == []


def test_source_forgets_every_variable() -> None:
    assert launches('CMD="vllm serve m"\nsource ./env.sh\n$CMD\n') == []


def test_self_doubling_assignments_stay_bounded() -> None:
    text = 'A="vllm serve m --port 1"\n' + 'A="$A $A"\n' * 10_000 + "$A\neval $A\n"
    started = time.monotonic()
    commands = parse_words(text)
    assert time.monotonic() - started < 30
    # Past the size cap the variable is unknown: its uses stay as written (``eval $A`` runs
    # the command ``$A``).
    assert [[w.text for w in c.words] for c in commands] == [["$A"], ["$A"]]


def test_self_doubling_arrays_and_evals_stay_bounded() -> None:
    text = (
        "A=(x)\n" + 'A=("${A[@]}" "${A[@]}")\n' * 10_000
        + 'E="eval \\$E"\n' + "eval $E\n" * 2_000
    )
    started = time.monotonic()
    commands = parse_words(text)
    assert time.monotonic() - started < 60
    assert sum(len(w.text) for c in commands for w in c.words) < 300_000


def lint_script(tmp_path: Path, text: str) -> list[Finding]:
    path = tmp_path / "serve.sh"
    path.write_text(text, "utf-8")
    return list(lint([str(path)], Settings(target="0.33.0")).findings)


def test_a_finding_on_a_conditional_flag_says_when_it_applies(tmp_path: Path) -> None:
    findings = lint_script(tmp_path, "vllm serve m ${LORA:+--enable-lora --max-lora-rank 48}\n")
    (finding,) = [f for f in findings if f.code == "VL201"]
    assert finding.message.endswith("(passed only when $LORA is set)")
    assert finding.span == at(1, 52, 54)


def test_no_fix_edits_a_word_written_in_two_places(tmp_path: Path) -> None:
    text = 'N=8\nvllm serve m --max-num-seq=$N\nARGS=(--max-num-seq 8)\nvllm serve m "${ARGS[@]}"\n'
    findings = [f for f in lint_script(tmp_path, text) if f.code == "VL105"]
    gathered, in_array = sorted(findings, key=lambda f: f.span.start)
    assert gathered.span.start == Pos(2, 14) and gathered.fix is None
    assert in_array.span == at(3, 7, 20) and in_array.fix is not None


# Appends in branches: ``if``/``case``/``&&``/``||`` whose every assignment to a variable only
# appends to its value before them.

BRANCHES = (
    'CMD="vllm serve m --port 8000"\n'  # 1
    'if [ -n "$LONG" ]; then\n'  # 2
    '    CMD="$CMD --max-model-len 32768"\n'  # 3
    "else\n"  # 4
    '    CMD="${CMD} --max-model-len 4096"\n'  # 5
    "fi\n"  # 6
    '[[ "$EAGER" == 1 ]] && CMD+=" --enforce-eager"\n'  # 7
    "eval $CMD\n"  # 8
)


def test_appends_in_branches_are_kept_after_them_and_marked_conditional() -> None:
    (invocation,) = launches(BRANCHES)
    assert args(invocation) == [
        "m", "--port", "8000", "--max-model-len", "32768", "--max-model-len", "4096",
        "--enforce-eager",
    ]
    then, value, other, other_value, eager = invocation.args[3:]
    assert then.span == at(3, 15, 30) and value.span == at(3, 31, 36)
    assert other.span == at(5, 17, 32) and other_value.span == at(5, 33, 37)
    assert eager.span == at(7, 31, 46)
    assert then.condition == value.condition == "'[ -n \"$LONG\" ]' succeeds"
    assert other.condition == other_value.condition == "'[ -n \"$LONG\" ]' fails"
    assert eager.condition == "'[[ \"$EAGER\" == 1 ]]' succeeds"
    assert [token.condition for token in invocation.args[:3]] == [None, None, None]


def test_an_else_branch_starts_from_the_value_before_the_if() -> None:
    text = (
        'CMD="vllm serve m"\n'
        'if [ -n "$A" ]; then CMD="$CMD --dtype half"; else $CMD --port 1; fi\n'
    )
    (in_else,) = launches(text)
    assert args(in_else) == ["m", "--port", "1"]


def test_case_items_and_arrays_append_conditionally() -> None:
    text = (
        "ARGS=(--port 8000)\n"  # 1
        'case "$GPU" in\n'  # 2
        "    a100|h100) ARGS+=(--dtype bfloat16) ;;\n"  # 3
        "    *) ARGS+=(--dtype half) ;;\n"  # 4
        "esac\n"  # 5
        'vllm serve m "${ARGS[@]}"\n'  # 6
    )
    (invocation,) = launches(text)
    assert args(invocation) == ["m", "--port", "8000", "--dtype", "bfloat16", "--dtype", "half"]
    assert arg(invocation, "bfloat16").span == at(3, 31, 39)
    assert arg(invocation, "half").span == at(4, 23, 27)
    assert arg(invocation, "bfloat16").condition == "'\"$GPU\"' matches 'a100|h100'"
    assert arg(invocation, "8000").condition is None


def test_a_branch_that_does_more_than_append_leaves_the_variable_unknown() -> None:
    for branch in (
        'CMD="vllm serve other"',  # replaces
        'CMD="--x $CMD"',  # prepends
        'CMD="$CMD --x"; unset CMD',
        'CMD="$CMD --x"; source ./env.sh',
    ):
        text = f'CMD="vllm serve m"\nif [ -n "$A" ]; then {branch}; fi\n$CMD --port 1\n'
        last = parse_words(text)[-1]
        assert last.words[0].text == "$CMD" and not last.words[0].literal, branch


def test_a_loop_still_forgets_what_it_appends() -> None:
    text = 'CMD="vllm serve m"\nfor x in a b; do [ -n "$x" ] && CMD+=" --$x"; done\n$CMD\n'
    assert parse_words(text)[-1].words[0].text == "$CMD"


def test_an_append_in_the_first_operand_of_a_list_is_certain() -> None:
    text = 'CMD="vllm serve m"\nCMD+=" --port 1" && echo ok\n$CMD\n'
    (invocation,) = launches(text)
    assert args(invocation) == ["m", "--port", "1"]
    assert all(token.condition is None for token in invocation.args)


def test_a_launcher_script_built_with_ifs_is_read() -> None:
    # The shape of a chatbot's launcher: a command over continued lines, extended when a GPU
    # is present and with extra arguments, then run through ``eval``.
    text = (
        'CMD="python -m vllm.entrypoints.openai.api_server \\\n'  # 1
        "    --model $MODEL_DIR \\\n"  # 2
        '    --max-model-len 2048"\n'  # 3
        "if command -v nvidia-smi >/dev/null 2>&1; then\n"  # 4
        '    CMD="$CMD --gpu-memory-utilization 0.85"\n'  # 5
        "fi\n"  # 6
        'if [ -n "$MORE_ARGS" ]; then\n'  # 7
        '    CMD="$CMD $MORE_ARGS"\n'  # 8
        "fi\n"  # 9
        "eval $CMD\n"  # 10
    )
    (invocation,) = launches(text)
    assert args(invocation) == [
        "--model", "$MODEL_DIR", "--max-model-len", "2048", "--gpu-memory-utilization",
        "0.85", "$MORE_ARGS",
    ]
    utilisation = arg(invocation, "0.85")
    assert utilisation.span == at(5, 40, 44)
    assert utilisation.condition == "'command -v nvidia-smi >/dev/null 2>&1' succeeds"
    assert arg(invocation, "2048").condition is None


def test_a_command_built_with_local_and_appends_in_a_function_is_read() -> None:
    # The shape of a test harness: ``local cmd=...``, ``cmd+=`` and ``[[ ... ]] && cmd+=``
    # inside a function, then ``nohup bash -c "$cmd"``.
    text = (
        "start() {\n"  # 1
        '    local cmd="python3 -m vllm.entrypoints.openai.api_server"\n'  # 2
        "    cmd+=\" --model '$MODEL'\"\n"  # 3
        "    cmd+=\" --port $PORT\"\n"  # 4
        '    [[ -n "$LEN" ]] && cmd+=" --max-model-len $LEN"\n'  # 5
        '    [[ "$TRUST" == "true" ]] && cmd+=" --trust-remote-code"\n'  # 6
        '    nohup bash -c "$cmd" > "$LOG" 2>&1 &\n'  # 7
        "}\n"  # 8
    )
    (invocation,) = launches(text)
    assert args(invocation) == [
        "--model", "$MODEL", "--port", "$PORT", "--max-model-len", "$LEN",
        "--trust-remote-code",
    ]
    assert arg(invocation, "--trust-remote-code").pos(0) == Pos(6, 40)
    assert arg(invocation, "--max-model-len").pos(0) == Pos(5, 31)


def test_ten_thousand_appending_branches_stay_bounded() -> None:
    text = (
        'CMD="vllm serve m"\n'
        + '[ -n "$A" ] && CMD+=" --enforce-eager"\n' * 5_000
        + 'if [ -n "$B" ]; then CMD="$CMD --port 1"; else CMD="$CMD --port 2"; fi\n' * 5_000
        + "eval $CMD\n$CMD\n"
    )
    started = time.monotonic()
    commands = parse_words(text)
    assert time.monotonic() - started < 30
    assert sum(len(w.text) for c in commands for w in c.words) < 300_000


def test_a_finding_on_a_flag_appended_in_a_branch_names_the_branch(tmp_path: Path) -> None:
    text = (
        'CMD="vllm serve m"\n'
        'if [ "$GPU" = small ]; then\n'
        '    CMD="$CMD --max-lora-rank 48"\n'
        "fi\n"
        "$CMD\n"
    )
    (finding,) = [f for f in lint_script(tmp_path, text) if f.code == "VL201"]
    assert finding.message.endswith("(passed only when '[ \"$GPU\" = small ]' succeeds)")
    assert finding.span == at(3, 31, 33)


def test_a_bound_needing_a_conditional_setting_is_not_certain(tmp_path: Path) -> None:
    unconditional = "vllm serve m --max-num-seqs 512 --max-num-batched-tokens 256\n"
    assert [f.code for f in lint_script(tmp_path, unconditional)] == ["VL302"]
    text = (
        'CMD="vllm serve m --max-num-seqs 512"\n'  # 1
        '[ -n "$SMALL" ] && CMD+=" --max-num-batched-tokens 256"\n'  # 2
        "$CMD\n"  # 3
        'C="vllm serve m --max-num-batched-tokens 256"\n'  # 4: the finding would sit here,
        '[ -n "$BIG" ] && C+=" --max-num-seqs 512"\n'  # 5: but it needs this word
        "$C\n"
        'D="vllm serve m"\n'
        '[ -n "$X" ] && D+=" --max-num-seqs 512"\n'  # two conditions: not certain together
        '[ -n "$Y" ] && D+=" --max-num-batched-tokens 256"\n'
        "$D\n"
    )
    (bound,) = [f for f in lint_script(tmp_path, text) if f.code.startswith("VL3")]
    assert bound.span == at(2, 52, 55)
    assert bound.message.endswith("(passed only when '[ -n \"$SMALL\" ]' succeeds)")


def test_a_conditional_api_key_or_host_makes_no_certain_bind_finding(tmp_path: Path) -> None:
    text = (
        'CMD="vllm serve m --host 0.0.0.0"\n'
        '[ -n "$KEY" ] && CMD+=" --api-key $KEY"\n'  # may be set: no finding
        "$CMD\n"
        'CMD2="vllm serve m"\n'
        '[ -n "$PUBLIC" ] && CMD2+=" --host 0.0.0.0"\n'
        "$CMD2\n"
    )
    (public,) = [f for f in lint_script(tmp_path, text) if f.code == "VL501"]
    assert public.span == at(5, 36, 43)
    assert public.message.endswith("(passed only when '[ -n \"$PUBLIC\" ]' succeeds)")


def test_flags_from_two_exclusive_branches_are_no_duplicate(tmp_path: Path) -> None:
    text = (
        'CMD="vllm serve m"\n'
        'if [ -n "$HALF" ]; then CMD="$CMD --dtype half"; else CMD="$CMD --dtype bfloat16"; fi\n'
        '[ -n "$P" ] && CMD+=" --port 1 --port 2"\n'
        "$CMD\n"
    )
    (duplicate,) = [f for f in lint_script(tmp_path, text) if f.code == "VL109"]
    assert duplicate.span == at(3, 23, 31)  # the two in one branch are
    assert duplicate.message.endswith("(passed only when '[ -n \"$P\" ]' succeeds)")


def test_deeply_nested_appending_branches_stay_bounded() -> None:
    depth = 2_000
    text = (
        'CMD="vllm serve m"\n'
        + 'if [ -n "$A" ]; then CMD+=" --enforce-eager"\n' * depth
        + "fi\n" * depth
        + "$CMD\n"
    )
    started = time.monotonic()
    commands = parse_words(text)
    assert time.monotonic() - started < 30
    assert sum(len(w.text) for c in commands for w in c.words) < 300_000


def test_exclusive_branches_replacing_an_empty_value_do_not_add_up() -> None:
    text = ('EXTRA=""\n'
            'if [[ $M == *VL* ]]; then\n  EXTRA="--max-model-len 27440 --tensor-parallel-size 2"\n'
            'elif [[ $M == *72B* ]]; then\n  EXTRA="--quantization awq --tensor-parallel-size 8"\n'
            'else\n  EXTRA="--tensor-parallel-size 2"\nfi\n'
            'vllm serve m --port 1 $EXTRA\n')
    [launch] = extract("run.sh", text)
    # Which branch ran is not known: the variable is unknown after the if, never a join.
    assert [t.text for t in launch.args][:3] == ["m", "--port", "1"]
    assert not launch.args[-1].literal and launch.args[-1].text == "$EXTRA"


def test_appending_to_an_empty_value_with_plus_equals_is_kept() -> None:
    text = ('EXTRA=""\nif [ -n "$Q" ]; then\n  EXTRA+=" --quantization awq"\nfi\n'
            'vllm serve m $EXTRA\n')
    [launch] = extract("run.sh", text)
    assert [t.text for t in launch.args] == ["m", "--quantization", "awq"]
    assert launch.args[1].condition is not None


def test_appending_to_an_empty_value_from_its_own_expansion_is_kept() -> None:
    text = ('ARGS=""\nif [ "$OLD" = 1 ]; then\n  ARGS="$ARGS --swap-space 4"\nfi\n'
            'vllm serve m $ARGS\n')
    [launch] = extract("run.sh", text)
    assert [t.text for t in launch.args] == ["m", "--swap-space", "4"]
    assert launch.args[1].condition is not None
