"""The facts the deployment rules need beyond one command: a batch job's ``#SBATCH`` GPUs, a
script's ``export``s, a ``ray start`` in the same script, and the group a Kubernetes pod belongs
to (a LeaderWorkerSet's size, a KubeRay cluster)."""

from __future__ import annotations

from vlint.extract import kubernetes, shell
from vlint.syntax import shell as shell_syntax
from vlint.model import Pos, Span


def test_batch_directives_give_the_gpus_of_each_node() -> None:
    text = "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --gres=gpu:2\nvllm serve m\n"
    (launch,) = shell.extract("job.sbatch", text)
    gpus = launch.deployment.gpus
    assert gpus is not None and gpus.value == 2
    assert gpus.span == Span(Pos(3, 16), Pos(3, 21))  # gpu:2


def test_a_step_s_own_gpus_win_over_the_directives() -> None:
    text = "#SBATCH --gres=gpu:2\nsrun --gpus-per-node=4 vllm serve m\n"
    (launch,) = shell.extract("job.sbatch", text)
    assert launch.deployment.gpus is not None and launch.deployment.gpus.value == 4


def test_a_directive_over_several_nodes_is_not_known_per_node() -> None:
    text = "#SBATCH -N 2\n#SBATCH --gpus=8\nvllm serve m\n"
    (launch,) = shell.extract("job.sbatch", text)
    assert launch.deployment.gpus is not None and launch.deployment.gpus.value is None


def test_exported_variables_reach_the_commands_after_them() -> None:
    text = ("A=1\nexport A\nexport B=two C=3\nexport -n C\nvllm serve m\n"
            "export D=4\n")
    (launch,) = shell.extract("run.sh", text)
    assert {name: token.text for name, token in launch.env.items()} == {"A": "1", "B": "two"}
    assert launch.env_names["B"] == Span(Pos(3, 8), Pos(3, 9))
    assert launch.env["B"].span == Span(Pos(3, 10), Pos(3, 13))


def test_a_command_s_prefix_wins_over_an_export() -> None:
    (launch,) = shell.extract("run.sh", "export X=1\nX=2 vllm serve m\n")
    assert launch.env["X"].text == "2"


def test_an_export_of_an_unknown_value_is_there_unknown() -> None:
    (launch,) = shell.extract("run.sh", 'export X="$(hostname)"\nexport Y\nvllm serve m\n')
    assert {name: (token.text, token.literal) for name, token in launch.env.items()} == {
        "X": ("$X", False), "Y": ("$Y", False)}
    assert launch.env["Y"].span == Span(Pos(2, 8), Pos(2, 9))


def test_ray_start_in_the_script_puts_its_launches_on_a_ray_node() -> None:
    found = shell.extract("run.sh", "vllm serve a\n/opt/ray/bin/ray start --head\nvllm serve b\n")
    clusters = [launch.deployment.cluster for launch in found]
    assert [c.value if c else None for c in clusters] == ["ray", "ray"]
    assert clusters[0] is not None and clusters[0].span == Span(Pos(2, 1), Pos(2, 17))
    (alone,) = shell.extract("run.sh", "ray stop\nvllm serve m\n")
    assert alone.deployment.cluster is None


LWS = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: vllm
spec:
  leaderWorkerTemplate:
    size: 4
    leaderTemplate:
      spec:
        containers:
          - name: leader
            image: vllm/vllm-openai:v0.33.0
            args: ["m"]
"""


def test_a_leaderworkerset_gives_its_group_and_size() -> None:
    (launch,) = kubernetes.extract("lws.yaml", LWS)
    facts = launch.deployment
    assert facts.cluster is not None and facts.cluster.value == "leaderworkerset"
    assert facts.nodes is not None and facts.nodes.value == 4
    assert facts.nodes.span == Span(Pos(7, 11), Pos(7, 12))
    (unsized,) = kubernetes.extract("lws.yaml", LWS.replace("    size: 4\n", ""))
    assert unsized.deployment.nodes is not None and unsized.deployment.nodes.value == 1


def test_a_kuberay_pod_is_on_a_ray_cluster_and_a_deployment_on_none() -> None:
    ray = LWS.replace("leaderworkerset.x-k8s.io/v1", "ray.io/v1").replace(
        "LeaderWorkerSet", "RayCluster")
    (launch,) = kubernetes.extract("ray.yaml", ray)
    assert launch.deployment.cluster is not None and launch.deployment.cluster.value == "ray"
    assert launch.deployment.nodes is None
    plain = LWS.replace("LeaderWorkerSet", "Deployment")
    (other,) = kubernetes.extract("d.yaml", plain)
    assert other.deployment.cluster is None and other.deployment.nodes is None


def test_an_exported_variable_s_later_values_reach_the_later_commands() -> None:
    text = ("export X=1\nvllm serve a\nX=2\nvllm serve b\nif [ -n \"$Y\" ]; then X=3; fi\n"
            "vllm serve c\nunset X\nvllm serve d\n")
    found = shell.extract("run.sh", text)
    assert [(launch.env["X"].text, launch.env["X"].literal) for launch in found] == [
        ("1", True), ("2", True), ("$X", False), ("$X", False)]


def test_exports_past_the_cap_are_not_followed() -> None:
    text = "".join(f"export V{i}=1\n" for i in range(shell_syntax.MAX_EXPORTED + 5))
    (launch,) = shell.extract("run.sh", text + "vllm serve m\n")
    assert len(launch.env) == shell_syntax.MAX_EXPORTED
