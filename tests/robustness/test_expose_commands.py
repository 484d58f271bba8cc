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


def test_batch_directives_are_read_up_to_their_cap() -> None:
    from vlint.extract import argv, shell

    first = "#SBATCH --gres=gpu:2\n"
    text = first + "#SBATCH --comment x\n" * (argv.MAX_DIRECTIVES * 4) + "vllm serve m\n"
    (launch,) = shell.extract("job.sbatch", text)
    assert launch.deployment.gpus is not None and launch.deployment.gpus.value == 2
    late = "#SBATCH --comment x\n" * argv.MAX_DIRECTIVES + first + "vllm serve m\n"
    (unread,) = shell.extract("job.sbatch", late)
    assert unread.deployment.gpus is None


def test_services_past_their_cap_are_not_matched() -> None:
    from vlint.extract import kubernetes

    services = "".join(
        f"---\napiVersion: v1\nkind: Service\nmetadata: {{name: s{i}}}\n"
        f"spec: {{selector: {{app: a}}, ports: [{{port: {1000 + i}}}]}}\n"
        for i in range(kubernetes.MAX_SERVICES + 10))
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: a, labels: {app: a}}\n"
           "spec: {containers: [{name: v, image: 'vllm/vllm-openai:v0.33.0', args: [m]}]}\n")
    (launch,) = kubernetes.extract("a.yaml", pod + services)
    assert len(launch.deployment.service_ports) == kubernetes.MAX_SERVICES
