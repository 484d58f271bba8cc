"""The launch model: the Deployment facet, the Origin chain, and the bugs they fix (B5, B6).

Positions are 1-based line:col, end exclusive, counted by hand on the texts below.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from vlint.cli import main
from vlint.discover import kind_of
from vlint.engine.lint import lint
from vlint.extract import (
    compose,
    deployment,
    dockerfile,
    extractor,
    kubernetes,
    launcher,
    markdown,
    python,
    shell,
    systemd,
)
from vlint.model import Deployment, Finding, Invocation, Located, Pos, Span, Token
from vlint.policy.policies import load_text
from vlint.settings import Settings


def _span(line: int, column: int, end_line: int, end_column: int) -> Span:
    return Span(Pos(line, column), Pos(end_line, end_column))


def _at(span: Span) -> str:
    return f"{span.start.line}:{span.start.column}-{span.end.line}:{span.end.column}"


def _slice(text: str, span: Span) -> str:
    """The characters of ``text`` a one-line span covers."""
    assert span.start.line == span.end.line
    line = text.split("\n")[span.start.line - 1]
    return line[span.start.column - 1 : span.end.column - 1]


def _findings(tmp_path: Path, name: str, text: str, code: str) -> list[Finding]:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    report = lint([str(path)], Settings(target="0.33.0", select=(code,)))
    return [finding for finding in report.findings if finding.code == code]


def _one(invocations: list[Invocation]) -> Invocation:
    assert len(invocations) == 1, invocations
    return invocations[0]


# -- B5: policies match the file kind ----------------------------------------------------------

README = textwrap.dedent("""\
    # Serving

    Start the server:

    ```bash
    vllm serve m --max-num-seqs 8
    ```
""")


def _policy(kinds: str) -> str:
    return textwrap.dedent(f"""\
        policies:
          - id: ORG001
            severity: warning
            message: at most 4 sequences
            help: ask the platform team
            scope: {{kinds: [{kinds}]}}
            rule: {{setting: --max-num-seqs, op: le, value: 4}}
    """)


@pytest.mark.parametrize(("kinds", "expected"), [("markdown", ["6:29-6:30"]), ("shell", [])])
def test_a_policy_scoped_to_markdown_fires_on_a_launch_in_a_fence(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    kinds: str,
    expected: list[str],
) -> None:
    # Regression (B5): the launch's kind was the fence's ("shell"), so `kinds: [markdown]`
    # never fired and `kinds: [shell]` fired on documentation.
    (tmp_path / "org.yaml").write_text(_policy(kinds), "utf-8")
    (tmp_path / "vlint.toml").write_text('policies = ["org.yaml"]\nselect = ["ORG"]\n', "utf-8")
    (tmp_path / "README.md").write_text(README, "utf-8")
    monkeypatch.chdir(tmp_path)
    code = main(["--target-version", "0.33.0", "--output-format", "json", "README.md"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    spans = [f"{f['line']}:{f['column']}-{f['end_line']}:{f['end_column']}" for f in findings]
    assert spans == expected
    assert code == (1 if expected else 0)


# -- the Origin chain ------------------------------------------------------------------------

SUBPROCESS = 'import subprocess\nsubprocess.run("vllm serve m", shell=True)\n'
ORIGINS = [
    (shell.extract, "run.sh", "vllm serve m\n", ("shell",)),
    (shell.extract, "run.sh", "bash -c 'vllm serve m'\n", ("shell",)),
    (markdown.extract, "README.md", "```bash\nvllm serve m\n```\n", ("markdown", "shell")),
    (compose.extract, "compose.yaml",
     "services:\n  llm:\n    image: python:3.12\n    command: [vllm, serve, m]\n", ("compose",)),
    (compose.extract, "compose.yaml",
     "services:\n  llm:\n    image: python:3.12\n    command: vllm serve m\n",
     ("compose", "shell")),
    (markdown.extract, "README.md",
     "```yaml\nservices:\n  llm:\n    image: vllm/vllm-openai:v0.33.0\n```\n",
     ("markdown", "compose")),
    (kubernetes.extract, "pod.yaml",
     "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - image: python:3.12\n"
     "      command: [sh, -c, 'vllm serve m']\n", ("kubernetes", "shell")),
    (dockerfile.extract, "Dockerfile", "FROM python:3.12\nRUN vllm serve m\n",
     ("dockerfile", "shell")),
    (dockerfile.extract, "Dockerfile", 'FROM python:3.12\nCMD ["vllm", "serve", "m"]\n',
     ("dockerfile",)),
    (systemd.extract, "vllm.service", "[Service]\nExecStart=/usr/bin/vllm serve m\n",
     ("systemd", "shell")),
    (python.extract, "launch.py", SUBPROCESS, ("python", "shell")),
    (launcher.extract, ".github/workflows/ci.yml",
     "jobs:\n  run:\n    runs-on: x\n    steps:\n      - run: vllm serve m\n",
     ("launcher", "shell")),
]


@pytest.mark.parametrize(("extract", "name", "text", "origin"), ORIGINS)
def test_origin_chain(
    extract: Callable[[str, str], list[Invocation]],
    name: str,
    text: str,
    origin: tuple[str, ...],
    tmp_path: Path,
) -> None:
    invocation = _one(extract(str(tmp_path / name), text))
    assert invocation.origin == origin
    assert invocation.kind == origin[0]


@pytest.mark.parametrize(
    ("name", "text", "fixed"),
    [
        ("README.md", "```bash\nvllm serve m --disable-cascade-attn\n```\n", True),
        ("run.sh", "bash -c 'vllm serve m --disable-cascade-attn'\n", True),
        ("compose.yaml", "services:\n  llm:\n    image: python:3.12\n"
         "    command: vllm serve m --disable-cascade-attn\n", False),
    ],
)
def test_rules_that_read_the_syntax_read_the_innermost_kind(
    tmp_path: Path, name: str, text: str, fixed: bool
) -> None:
    # VL104 deletes a flag only in shell text written in the file (or in a Markdown fence), as
    # before the launch's kind became its file's.
    path = tmp_path / name
    path.write_text(text, "utf-8")
    report = lint([str(path)], Settings(target="0.32.0", select=("VL104",)))
    (finding,) = report.findings
    assert (finding.fix is not None) is fixed


def test_a_public_bind_in_a_markdown_compose_fence_is_still_a_container(tmp_path: Path) -> None:
    text = "```yaml\nservices:\n  llm:\n    image: vllm/vllm-openai:v0.33.0\n" \
        "    command: [--model, m]\n```\n"
    assert [f.code for f in _findings(tmp_path, "README.md", text, "VL501")] == ["VL501"]


# -- B6: one environment for every kind --------------------------------------------------------

# Each text sets the misspelt VLLM_LOGGING_LEVL (VLLM_LOGGING_LEVEL is read) for a launch.
MISSPELT = "VLLM_LOGGING_LEVL"
ENVIRONMENTS = [
    ("run.sh", "VLLM_LOGGING_LEVL=INFO vllm serve m\n", "1:1-1:18"),
    ("run.sh", "env VLLM_LOGGING_LEVL=INFO vllm serve m\n", "1:5-1:22"),
    ("compose.yaml",
     "services:\n  llm:\n    image: vllm/vllm-openai:v0.33.0\n    environment:\n"
     "      - VLLM_LOGGING_LEVL=INFO\n", "5:9-5:26"),
    ("compose.yaml",
     "services:\n  llm:\n    image: vllm/vllm-openai:v0.33.0\n    environment:\n"
     "      VLLM_LOGGING_LEVL: INFO\n", "5:7-5:24"),
    # Regression (B6): Kubernetes `env:`, Dockerfile `ENV` and systemd `Environment=` placed no
    # variable name, so VL404 never fired there.
    ("pod.yaml",
     "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - image: vllm/vllm-openai:v0.33.0\n"
     "      env:\n        - name: VLLM_LOGGING_LEVL\n          value: INFO\n", "7:17-7:34"),
    ("pod.yaml",
     "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - image: vllm/vllm-openai:v0.33.0\n"
     "      env:\n        - name: \"VLLM_LOGGING_LEVL\"\n          valueFrom: {}\n",
     "7:18-7:35"),
    ("Dockerfile", "FROM vllm/vllm-openai:v0.33.0\nENV VLLM_LOGGING_LEVL=INFO\n", "2:5-2:22"),
    ("Dockerfile", "FROM vllm/vllm-openai:v0.33.0\nENV VLLM_LOGGING_LEVL INFO\n", "2:5-2:22"),
    ("vllm.service",
     "[Service]\nEnvironment=\"VLLM_LOGGING_LEVL=INFO\"\nExecStart=/usr/bin/vllm serve m\n",
     "2:14-2:31"),
]


@pytest.mark.parametrize(("name", "text", "expected"), ENVIRONMENTS)
def test_a_misspelt_variable_is_reported_in_every_kind(
    tmp_path: Path, name: str, text: str, expected: str
) -> None:
    (finding,) = _findings(tmp_path, name, text, "VL404")
    assert _at(finding.span) == expected
    assert _slice(text, finding.span) == MISSPELT
    assert finding.message == f"'{MISSPELT}' is not read by vLLM 0.33.0"


def test_a_systemd_environment_keeps_values_and_resets() -> None:
    text = (
        "[Service]\nEnvironment=A=1 B=2\nEnvironment=\nEnvironment=C=3 \"D=x y\"\n"
        "ExecStart=/usr/bin/vllm serve m\n"
    )
    invocation = _one(systemd.extract("vllm.service", text))
    assert {name: v.value.text for name, v in invocation.deployment.env.items()} == {
        "C": "3", "D": "x y"}
    assert {name: _at(span) for name, span in invocation.env_names.items()} == {
        "C": "4:13-4:14", "D": "4:18-4:19"}


KUBERNETES_IMAGES = [
    ("image: vllm/vllm-openai:latest", "6:14-6:37"),
    ('image: "vllm/vllm-openai:latest"', "6:15-6:38"),
]


@pytest.mark.parametrize(("image", "expected"), KUBERNETES_IMAGES)
def test_an_unpinned_kubernetes_image_is_reported_at_its_image(
    tmp_path: Path, image: str, expected: str
) -> None:
    # Regression (B6): VL504 pointed at the container's `args:` list.
    text = (
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: llm\n"
        f"      {image}\n      args: [--model, m]\n"
    )
    (finding,) = _findings(tmp_path, "pod.yaml", text, "VL504")
    assert _at(finding.span) == expected
    assert _slice(text, finding.span) == "vllm/vllm-openai:latest"


def test_an_unpinned_dockerfile_image_is_reported_at_from(tmp_path: Path) -> None:
    text = 'FROM vllm/vllm-openai:latest\nCMD ["--model", "m"]\n'
    (finding,) = _findings(tmp_path, "Dockerfile", text, "VL504")
    assert _at(finding.span) == "1:6-1:29"


# -- the Deployment facet: compose -------------------------------------------------------------

COMPOSE = textwrap.dedent("""\
    services:
      llm:
        image: vllm/vllm-openai:v0.33.0
        command: [--model, m, --tensor-parallel-size, "2"]
        env_file: .env
        ipc: host
        shm_size: 16gb
        ports:
          - "127.0.0.1:8000:8080"
          - target: 9000
            published: "9001"
        expose: ["7000"]
        volumes:
          - ./models:/models:ro
          - type: tmpfs
            target: /dev/shm
        healthcheck:
          test: ["CMD", "curl", "-f", "http://localhost:8080/health"]
        deploy:
          resources:
            reservations:
              devices:
                - driver: nvidia
                  count: 2
                  capabilities: [gpu]
""")


def test_compose_deployment_facts(tmp_path: Path) -> None:
    facts = _one(compose.extract(str(tmp_path / "compose.yaml"), COMPOSE)).deployment
    assert facts.image == Located("vllm/vllm-openai:v0.33.0", _span(3, 12, 3, 36))
    assert facts.env_complete is False
    assert facts.ipc == Located("host", _span(6, 10, 6, 14))
    assert facts.shm_size == Located(16 * 2**30, _span(7, 15, 7, 19))
    assert facts.gpus == Located(2, _span(24, 22, 24, 23))
    ports = [(p.container.value, _at(p.container.span), p.published) for p in facts.ports]
    assert ports == [
        (8080, "9:25-9:29", Located("127.0.0.1:8000", _span(9, 10, 9, 24))),
        (9000, "10:17-10:21", Located("9001", _span(11, 21, 11, 25))),
        (7000, "12:15-12:19", None),
    ]
    mounts = [(m.target.value, m.source.value if m.source else None, m.memory)
              for m in facts.volumes]
    assert mounts == [("/models", "./models", False), ("/dev/shm", None, True)]
    assert _slice(COMPOSE, facts.volumes[0].target.span) == "/models"
    (probe,) = facts.probes
    assert (probe.kind, probe.handler, _at(probe.span)) == ("healthcheck", "exec", "17:5-17:16")
    assert probe.port is not None and probe.port.value == 8080
    assert probe.path is not None and probe.path.value == "/health"


@pytest.mark.parametrize(
    ("service", "expected"),
    [
        ("gpus: all", "all"),
        ("deploy: {resources: {reservations: {devices: [{capabilities: [gpu], "
         "device_ids: ['0', '3']}]}}}", 2),
        ("deploy: {resources: {reservations: {devices: [{capabilities: [gpu]}]}}}", "all"),
        ("deploy: {resources: {reservations: {devices: [{capabilities: [tpu], count: 2}]}}}",
         None),
        ("shm_size: ${SHM}", None),
    ],
)
def test_compose_gpus(service: str, expected: object, tmp_path: Path) -> None:
    text = f"services:\n  llm:\n    image: vllm/vllm-openai:v0.33.0\n    {service}\n"
    facts = _one(compose.extract(str(tmp_path / "compose.yaml"), text, variables={})).deployment
    assert (facts.gpus.value if facts.gpus else None) == expected


def test_compose_unknown_shm_size_is_located_without_a_value(tmp_path: Path) -> None:
    # Written but not known: the rule that reads it must stay silent, not think it absent.
    text = "services:\n  llm:\n    image: vllm/vllm-openai:v0.33.0\n    shm_size: ${SHM}\n"
    facts = _one(compose.extract(str(tmp_path / "compose.yaml"), text, variables={})).deployment
    assert facts.shm_size == Located(None, _span(4, 15, 4, 21))


# -- the Deployment facet: Kubernetes ----------------------------------------------------------

DEPLOYMENT = textwrap.dedent("""\
    apiVersion: apps/v1
    kind: Deployment
    spec:
      template:
        spec:
          hostIPC: true
          enableServiceLinks: false
          containers:
            - name: vllm
              image: vllm/vllm-openai:v0.33.0
              args: [--model, m, --tensor-parallel-size, "4"]
              envFrom:
                - secretRef: {name: keys}
              ports:
                - name: http
                  containerPort: 8000
              resources:
                limits:
                  nvidia.com/gpu: 4
              livenessProbe:
                httpGet: {path: /health, port: http}
                initialDelaySeconds: 60
                periodSeconds: 10
                failureThreshold: 3
              readinessProbe:
                tcpSocket: {port: 8000}
              volumeMounts:
                - name: shm
                  mountPath: /dev/shm
                - name: models
                  mountPath: /models
          volumes:
            - name: shm
              emptyDir: {medium: Memory, sizeLimit: 2Gi}
            - name: models
              persistentVolumeClaim: {claimName: models}
""")


def test_kubernetes_deployment_facts(tmp_path: Path) -> None:
    facts = _one(kubernetes.extract(str(tmp_path / "deploy.yaml"), DEPLOYMENT)).deployment
    assert facts.image == Located("vllm/vllm-openai:v0.33.0", _span(10, 18, 10, 42))
    assert facts.env_complete is False
    assert facts.gpus == Located(4, _span(19, 31, 19, 32))
    assert facts.ipc == Located("host", _span(6, 16, 6, 20))
    assert facts.service_links == Located(False, _span(7, 27, 7, 32))
    assert facts.shm_size == Located(2 * 2**30, _span(34, 49, 34, 52))
    (port,) = facts.ports
    assert (port.container.value, port.name, _at(port.container.span)) == (8000, "http",
                                                                          "16:30-16:34")
    liveness, readiness = facts.probes
    assert (liveness.kind, liveness.handler, _at(liveness.span)) == ("liveness", "httpGet",
                                                                    "20:11-20:24")
    assert liveness.port == Located("http", _span(21, 44, 21, 48))
    assert liveness.path == Located("/health", _span(21, 29, 21, 36))
    assert [p.value if p else None for p in
            (liveness.initial_delay, liveness.period, liveness.failure_threshold)] == [60, 10, 3]
    assert (readiness.kind, readiness.handler) == ("readiness", "tcpSocket")
    assert readiness.port is not None and readiness.port.value == 8000
    mounts = [(m.target.value, m.source.value if m.source else None, m.memory)
              for m in facts.volumes]
    assert mounts == [("/dev/shm", "shm", True), ("/models", "models", False)]


def test_kubernetes_values_that_are_not_literal(tmp_path: Path) -> None:
    text = (
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - image: vllm/vllm-openai:v0.33.0\n"
        "      resources: {requests: {amd.com/gpu: '{{ .Values.gpus }}'}}\n"
    )
    facts = _one(kubernetes.extract(str(tmp_path / "pod.yaml"), text)).deployment
    assert facts.gpus is not None and facts.gpus.value is None
    assert facts.env_complete is True and facts.ipc is None and facts.shm_size is None


# -- one helper per concept --------------------------------------------------------------------


def test_an_assignment_word_gives_exact_name_and_value_spans() -> None:
    word = Token.located("NAME=va lue", 3, lambda offset: Pos(1, offset + 1))
    variable = deployment.assignment(word)
    assert variable is not None
    assert (variable.name, variable.value.text) == ("NAME", "va lue")
    assert variable.name_span == _span(1, 4, 1, 8)
    assert variable.value.span == _span(1, 9, 1, 15)
    assert deployment.assignment(Token.located("=x", 0, lambda o: Pos(1, o + 1))) is None
    assert deployment.assignment(Token.located("NAME", 0, lambda o: Pos(1, o + 1))) is None


@pytest.mark.parametrize(
    ("text", "docker", "kubernetes_quantity"),
    [("64m", 64 * 2**20, None), ("1gb", 2**30, None), ("2G", 2 * 2**30, 2 * 10**9),
     ("1Gi", None, 2**30), ("512Mi", None, 512 * 2**20), ("1000", 1000, 1000),
     ("lots", None, None), ("1.5g", int(1.5 * 2**30), None)],
)
def test_sizes(text: str, docker: int | None, kubernetes_quantity: int | None) -> None:
    assert deployment.docker_bytes(text) == docker
    assert deployment.kubernetes_bytes(text) == kubernetes_quantity


def test_counts_ports_and_urls() -> None:
    assert [deployment.gpu_count(t) for t in ("2", "all", "-1", "two")] == [2, "all", "all", None]
    assert [deployment.port_number(t) for t in ("8000", "0", "70000", "http")] == [
        8000, None, None, None]
    local = deployment.url_parts("http://localhost:8000/health")
    assert local is not None and (local.port, local.path, local.local) == (8000, "/health", True)
    assert (local.port_at, local.path_at) == ((17, 21), (21, 28))
    remote = deployment.url_parts("https://svc")
    assert remote is not None and (remote.port, remote.path, remote.local) == (443, "/", False)
    assert remote.port_at == (8, 11)  # the default port: at the host
    assert deployment.url_parts("http://localhost:$PORT/health") is None
    assert deployment.url_parts("localhost:8000") is None
    assert deployment.url_parts("http://[::1]:99999/") is None  # no such port


def test_crafted_numbers_are_no_fact_and_no_internal_error(tmp_path: Path) -> None:
    # Thousands of digits overflow a float and pass the interpreter's limit on int digits, and
    # other scripts' digits pass str.isdigit: none of them is a size, a count or a port.
    huge, arabic = "9" * 5000, "\u0663"
    for text in (huge, huge + "m", arabic, arabic + "m"):
        assert deployment.docker_bytes(text) is None and deployment.kubernetes_bytes(text) is None
        assert deployment.gpu_count(text) is None and deployment.port_number(text) is None
    path = tmp_path / "compose.yaml"
    path.write_text(f"services:\n  llm:\n    image: vllm/vllm-openai:v0.33.0\n"
                    f"    command: [--model, m]\n    shm_size: {huge}m\n    gpus: {huge}\n"
                    f"    ports: ['{huge}:8000']\n", "utf-8")
    report = lint([str(path)], Settings(target="0.33.0"))
    assert [f.code for f in report.findings if f.code == "VL003"] == []
    facts = _one(compose.extract(str(path), path.read_text("utf-8"))).deployment
    assert facts.shm_size is not None and facts.shm_size.value is None
    assert facts.gpus is not None and facts.gpus.value is None


def test_enclosed_keeps_the_inner_facts_the_host_does_not_state() -> None:
    anchor = _span(1, 1, 1, 5)
    image = Located("vllm/vllm-openai:v0.33.0", anchor)
    inner = Invocation("x", ("compose",), "cli", anchor,
                       deployment=Deployment(image=image, env_complete=False))
    outer = deployment.enclosed(inner, "markdown")
    assert outer.origin == ("markdown", "compose")
    assert outer.deployment.image == image and outer.env_unknown
    assert deployment.enclosed(outer, "markdown").origin == ("markdown", "compose")


@pytest.mark.parametrize(
    ("expression", "fires"),
    [
        ("file.kind == 'markdown'", True),
        ("file.origin == ['markdown', 'shell']", True),
        ("file.kind == 'shell'", False),
    ],
)
def test_cel_sees_the_file_kind_and_the_origin(
    tmp_path: Path, expression: str, fires: bool
) -> None:
    policy = _policy("markdown").replace(
        "    scope: {kinds: [markdown]}\n    rule: {setting: --max-num-seqs, op: le, value: 4}\n",
        f"    expr: \"!({expression})\"\n",
    )
    policies = tuple(load_text(policy, "p.yaml", str(tmp_path)))
    path = tmp_path / "README.md"
    path.write_text(README, "utf-8")
    report = lint([str(path)], Settings(target="0.33.0", policies=policies, select=("ORG",)))
    assert bool(report.findings) == fires


@pytest.mark.parametrize(
    ("accelerators", "expected"),
    [("A100:8", 8), ("H100", 1), ("'{A100:8, H100:8}'", None), ("L4:all", "all")],
)
def test_skypilot_accelerators_are_the_tasks_gpus(
    tmp_path: Path, accelerators: str, expected: object
) -> None:
    text = f"resources:\n  accelerators: {accelerators}\nrun: vllm serve m\n"
    facts = _one(launcher.extract(str(tmp_path / "sky.yaml"), text)).deployment
    assert facts.gpus is not None and facts.gpus.value == expected
    assert _slice(text, facts.gpus.span) == accelerators.strip("'")


IMAGES = [
    ("compose.yaml", "services:\n  llm:\n    image: 'vllm/vllm-openai:v0.33.0'\n",
     "vllm/vllm-openai:v0.33.0"),
    ("pod.yaml", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n"
     "    - image: vllm/vllm-openai:v0.33.0\n", "vllm/vllm-openai:v0.33.0"),
    ("Dockerfile", "FROM vllm/vllm-openai:v0.33.0\n", "vllm/vllm-openai:v0.33.0"),
    ("values.yaml", "image:\n  repository: vllm/vllm-openai\n  tag: v0.33.0\n"
     "args: [--max-num-seqs, '8']\n", "vllm/vllm-openai"),
]


@pytest.mark.parametrize(("name", "text", "written"), IMAGES)
def test_every_kind_places_its_image(tmp_path: Path, name: str, text: str, written: str) -> None:
    kind = kind_of(name, text.encode("utf-8"))
    assert kind is not None
    invocation = _one(extractor(kind).extract(str(tmp_path / name), text))
    assert invocation.image is not None and invocation.image.startswith(written)
    assert invocation.image_span is not None and _slice(text, invocation.image_span) == written


def test_a_shell_health_check_url_is_found_inside_its_word(tmp_path: Path) -> None:
    text = (
        "services:\n  llm:\n    image: vllm/vllm-openai:v0.33.0\n    healthcheck:\n"
        '      test: ["CMD-SHELL", "curl -f http://localhost:8000/v1/models || exit 1"]\n'
    )
    (probe,) = _one(compose.extract(str(tmp_path / "compose.yaml"), text)).deployment.probes
    assert probe.port is not None and probe.port.value == 8000
    assert probe.path is not None and probe.path.value == "/v1/models"
    assert _slice(text, probe.path.span) == "/v1/models"
    assert _slice(text, probe.port.span) == "8000"
