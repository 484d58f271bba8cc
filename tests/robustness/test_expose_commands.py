"""VL608's file-level reading of ``kubectl expose`` commands on crafted text: bounded findings,
and each look-back or look-ahead bounded (the work stays linear in the text; measured by the
benchmarks, not timed here)."""

from __future__ import annotations

from vlint.checks import service_link_vllm_port as rule

MANY = 60_000


def test_a_line_of_repeated_commands_gives_at_most_the_cap() -> None:
    found = rule.exposed("a.sh", "shell", "kubectl expose deployment vllm " * MANY)
    assert len(found) == rule.MAX_PER_FILE


def test_repeated_names_after_one_command_give_at_most_the_cap() -> None:
    text = "kubectl expose deployment server " + "--name vllm " * MANY
    assert len(rule.exposed("a.sh", "shell", text)) == rule.MAX_PER_FILE
    # A name too far from any command is not that command's.
    far = "kubectl expose deployment server " + "x" * (2 * rule.LOOKBACK) + " --name vllm"
    assert rule.exposed("a.sh", "shell", far) == []


def test_other_kinds_and_texts_without_the_words_are_not_read() -> None:
    assert rule.exposed("a.yaml", "kubernetes", "kubectl expose deployment vllm\n") == []
    assert rule.exposed("a.sh", "shell", "vllm serve m\n") == []
