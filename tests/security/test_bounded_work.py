"""Bounded work on hostile input: every file vlint reads costs time and memory linear in its size.

Each attack is built in ``tmp_path`` at the size that took the unfixed code minutes (or
gigabytes), then run as a user runs vlint.  A subprocess with a generous timeout (and a memory
cap) is only a guard against a hang: no test asserts a time.  Where the work can be counted
(the line tables built, the characters an expansion produced), the count is asserted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests._support.run import source_env
from vlint.knowledge import catalog
from vlint.cli import main
from vlint.engine.lint import lint
from vlint.settings import Settings

GUARD_S = 20  # a hang guard, not a time budget: every input below takes well under a second
MEMORY_CAP = 3 * 1024**3
GOOD = "vllm serve m --max-model-len 16k\n"  # VL202 at 1:30-1:33


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def _vlint(folder: Path, *argv: str) -> tuple[int, list[dict[str, object]], str]:
    """vlint on ``folder`` in a subprocess: exit code, JSON findings, stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "vlint", *([] if "--config" in argv else ["--isolated"]),
         "--target-version", str(catalog.newest()), "--output-format", "json", *argv,
         str(folder)],
        capture_output=True, text=True, timeout=GUARD_S, env=source_env(),
        preexec_fn=_limit_memory, check=False,
    )
    findings = json.loads(done.stdout)["findings"] if done.stdout.strip() else []
    return done.returncode, findings, done.stderr


def _in_process(
    capsys: pytest.CaptureFixture[str], *argv: str
) -> tuple[int, list[dict[str, object]], str]:
    code = main(["--isolated", "--target-version", str(catalog.newest()), "--output-format",
                 "json", *argv])
    out, err = capsys.readouterr()
    return code, json.loads(out)["findings"] if out.strip() else [], err


def _at(finding: dict[str, object]) -> tuple[int, int, int, int]:
    where = (finding["line"], finding["column"], finding["end_line"], finding["end_column"])
    assert all(isinstance(n, int) for n in where)
    return where  # type: ignore[return-value]


def _written(text: str, finding: dict[str, object]) -> str:
    """The file text a single-line finding's span covers."""
    line, start, end_line, end = _at(finding)
    assert line == end_line
    return text.split("\n")[line - 1][start - 1 : end - 1]


def _good(folder: Path) -> Path:
    (folder / "good.sh").write_text(GOOD)
    return folder


def _linted_good(findings: list[dict[str, object]], folder: Path) -> bool:
    return any(f["path"] == str(folder / "good.sh") and f["code"] == "VL202"
               and _at(f) == (1, 30, 1, 33) for f in findings)


def _codes(findings: list[dict[str, object]], path: Path) -> list[str]:
    return [str(f["code"]) for f in findings if f["path"] == str(path)]


# -- expansions -------------------------------------------------------------------------------


def test_dockerfile_arg_doubling_is_unparsable_not_a_hang(tmp_path: Path) -> None:
    # 830 bytes: each ARG doubles the last; fully expanded, the last holds 2**40 characters.
    lines = ["FROM vllm/vllm-openai:v0.9.2", "ARG A0=x"]
    lines += [f"ARG A{i}=$A{i - 1}$A{i - 1}" for i in range(1, 41)]
    lines.append('ENV VLLM_ARG="${A40}"')
    dockerfile = _good(tmp_path) / "Dockerfile"
    dockerfile.write_text("\n".join(lines) + "\n")
    code, findings, _ = _vlint(tmp_path)
    assert code == 1 and _linted_good(findings, tmp_path)
    (problem,) = [f for f in findings if f["path"] == str(dockerfile)]
    assert problem["code"] == "VL002"
    assert "expand to more than" in str(problem["message"])
    # The first ARG whose value passes the cap: 2**20 characters is A20, on line 22.
    assert _at(problem)[0] == 22


def test_dockerfile_expansion_counts_its_work() -> None:
    from vlint.extract import dockerfile
    from vlint.errors import Unparsable

    # A value used many times: each use is expanded work, even when no single value is big.
    value = "y" * 60_000
    text = f"FROM vllm/vllm-openai:v0.9.2\nARG A={value}\n" + "ENV B=$A\n" * 200
    with pytest.raises(Unparsable, match="expand to more than"):
        dockerfile.extract("Dockerfile", text)
    # Below the cap every value is expanded exactly.
    (launch,) = dockerfile.extract(
        "Dockerfile", f"FROM vllm/vllm-openai:v0.9.2\nARG A={value}\nENV B=$A$A\n"
    )
    assert launch.env["B"].text == value * 2


def test_kubernetes_env_doubling_is_unparsable_not_a_hang(tmp_path: Path) -> None:
    env = ["      - {name: A0, value: x}"]
    env += [f"      - {{name: A{i}, value: $(A{i - 1})$(A{i - 1})}}" for i in range(1, 41)]
    manifest = _good(tmp_path) / "pod.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - image: vllm/vllm-openai:v0.9.2\n"
        "      args: [--served-model-name, $(A40)]\n      env:\n" + "\n".join(env) + "\n"
    )
    code, findings, _ = _vlint(tmp_path)
    assert code == 1 and _linted_good(findings, tmp_path)
    (problem,) = [f for f in findings if f["path"] == str(manifest)]
    assert problem["code"] == "VL002" and "expand to more than" in str(problem["message"])


# -- line breaks that only Python's str.splitlines knows ---------------------------------------

# str.splitlines (and str.split() / str.strip()) treat these as line breaks or white space;
# Docker and YAML 1.2 do not.
YAML_PRINTABLE = "\x85\u2028\u2029\xa0"
PYTHON_ONLY = ["\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\u2028", "\u2029", "\x0b", "\x0c", "\xa0"]


@pytest.mark.parametrize("char", PYTHON_ONLY, ids=[f"U+{ord(c):04X}" for c in PYTHON_ONLY])
def test_python_only_breaks_in_a_dockerfile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], char: str
) -> None:
    text = (
        f"FROM vllm/vllm-openai:v0.9.2\nENV A{char}\nENV B{char}x C=1\nARG D{char}=1\n"
        f"ENV E=1{char}\n"
        'CMD ["--max-model-len", "16k"]\n'
    )
    dockerfile = _good(tmp_path) / "Dockerfile"
    dockerfile.write_text(text)
    code, findings, err = _in_process(capsys, str(tmp_path))
    assert code == 1 and _linted_good(findings, tmp_path), err
    assert {f["code"] for f in findings if f["path"] == str(dockerfile)} == {"VL202", "VL501"}
    (finding,) = [f for f in findings if f["path"] == str(dockerfile) and f["code"] == "VL202"]
    assert _written(text, finding) == "16k"


@pytest.mark.parametrize("char", PYTHON_ONLY, ids=[f"U+{ord(c):04X}" for c in PYTHON_ONLY])
def test_python_only_breaks_in_markdown_yaml_and_helm(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], char: str
) -> None:
    readme = f"# Serve{char}it\n\nText{char}more\n\n```bash\nvllm serve m --max-model-len 16k\n```\n"
    manifest = (
        f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: \"a{char}b\"\nspec:\n  containers:\n"
        f"    - image: vllm/vllm-openai:v0.9.2\n      args: [\"x{char}\", --max-model-len, 16k]\n"
    )
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("name: c\n")
    files = {
        tmp_path / "README.md": readme,
        tmp_path / "pod.yaml": manifest,
        chart / "templates" / "pod.yaml": manifest.replace("a{char}b".format(char=char),
                                                          "{{ .Values.n }}" + char),
    }
    for path, text in files.items():
        path.write_text(text)
    code, findings, err = _in_process(capsys, str(tmp_path))
    assert code == 1, err
    if char not in YAML_PRINTABLE:
        # YAML forbids these control characters: the manifest is unparsable, the template
        # (never reported unparsable) has no document left, the README is read.
        assert _codes(findings, tmp_path / "pod.yaml") == ["VL002"]
        assert _codes(findings, chart / "templates" / "pod.yaml") == []
        files = {tmp_path / "README.md": readme}
    for path, text in files.items():
        found = [f for f in findings if f["path"] == str(path) and f["code"] == "VL202"]
        assert len(found) == 1, (path, findings)
        assert _written(text, found[0]) == "16k", path


def test_a_lone_carriage_return_in_markdown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # CommonMark ends a line at a lone CR; vlint's positions count LF only.
    texts = {
        "a.md": "a\rb\n```bash\nvllm serve m --max-model-len 16k\n```\n",
        "b.md": "# T\rtext\r\r```bash\rvllm serve m --max-model-len 16k\r```\n",
    }
    for name, text in texts.items():
        (tmp_path / name).write_text(text)
    code, findings, _ = _in_process(capsys, str(tmp_path))
    assert code == 1
    for name, text in texts.items():
        (found,) = [f for f in findings if f["path"] == str(tmp_path / name)]
        assert _written(text, found) == "16k", name


# -- quadratic scans of file text -------------------------------------------------------------


def test_markdown_builds_each_line_table_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vlint.extract import markdown
    from vlint.model import positions

    built: list[int] = []
    real = positions.LineIndex.__init__

    def counted(self: positions.LineIndex, text: str) -> None:
        built.append(len(text))
        real(self, text)

    monkeypatch.setattr(positions.LineIndex, "__init__", counted)
    positions.clear_line_tables()
    lines = [f"  --max-model-len 16k --port {8000 + i} \\" for i in range(300)]
    text = "```bash\nvllm serve m \\\n" + "\n".join(lines) + "\n  --dtype half\n```\n"
    (launch,) = markdown.extract("README.md", text)
    # One table per embedded text (the document, the fence), not one per position looked up.
    assert len(built) <= 3
    assert launch.args[-1].span.start.line == 303


def test_a_big_readme_is_linted_in_bounded_time(tmp_path: Path) -> None:
    # 60 KB in one fence: each position lookup rebuilt the fence's line table (minutes).
    lines = [f"  --max-model-len 16k --port {8000 + i} \\" for i in range(1500)]
    text = "```bash\nvllm serve m \\\n" + "\n".join(lines) + "\n  --dtype half\n```\n"
    readme = _good(tmp_path) / "README.md"
    readme.write_text(text)
    code, findings, _ = _vlint(tmp_path)
    assert code == 1 and _linted_good(findings, tmp_path)
    units = [f for f in findings if f["path"] == str(readme) and f["code"] == "VL202"]
    assert units and all(_written(text, f) == "16k" for f in units)


def test_openai_key_pattern_is_linear(tmp_path: Path) -> None:
    # 192 KB of "sk-" starts, none a key: each start scanned to the end of the word.
    script = _good(tmp_path) / "serve.sh"
    key = "sk-proj-" + "A1b2C3d4" * 4
    script.write_text(f"X={'sk-' * 64_000} vllm serve m --api-key {key}\n")
    code, findings, _ = _vlint(tmp_path)
    assert code == 1 and _linted_good(findings, tmp_path)
    secrets = [f for f in findings if f["path"] == str(script) and f["code"] == "VL503"]
    assert len(secrets) == 1 and key not in json.dumps(secrets)


def test_openai_key_pattern_finds_the_same_keys() -> None:
    from vlint.checks.security import secret_kinds

    key = "sk-" + "a" * 20
    cases = {
        key: [(0, 23)],
        "x" + key: [],  # inside a word
        "sk-proj-" + "A" * 24: [(0, 32)],
        "sk-a-b-c-" + "Z9" * 10: [(0, 29)],
        "sk-" + "a" * 19: [],
        "sk--" + "b" * 20: [(0, 24)],
        f"{key} {key}": [(0, 23), (24, 47)],
        "sk-sk-" + "c" * 20: [(0, 26)],
        "sk-ab_cd-" + "e" * 20 + "-": [(0, 29)],
        "sk-ab_cd" + "e" * 20: [],  # '_' only before the last '-'
    }
    for text, expected in cases.items():
        assert [(s, e) for _, s, e in secret_kinds(text) if _ == "an OpenAI-style API key"] == \
            expected, text


def test_helm_unclosed_actions_are_linear(tmp_path: Path) -> None:
    chart = _good(tmp_path) / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("name: c\n")
    template = chart / "templates" / "pod.yaml"
    text = (
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - image: {{ .Values.image }}\n"
        "      args: [serve, m, --max-model-len, 16k]\n      command: [vllm]\n"
        f"---\n# {'{{' * 64_000}\n"
    )
    template.write_text(text)
    code, findings, _ = _vlint(tmp_path)
    assert code == 1 and _linted_good(findings, tmp_path)
    (unit,) = [f for f in findings if f["path"] == str(template) and f["code"] == "VL202"]
    assert _written(text, unit) == "16k"


def test_helm_masking_is_exact() -> None:
    from vlint.extract.helm import mask

    text = "a: {{ x }}\nb: {{- y\n z -}} c {{ \n"
    masked, unresolved = mask(text)
    assert masked == "a: xxxxxxx\nb: xxxxx\nxxxxxx c {{ \n"
    assert "".join(unresolved.values()) == "{{ x }}{{- y z -}}"


def test_kubernetes_trailing_tab_retry_is_linear(tmp_path: Path) -> None:
    manifest = _good(tmp_path) / "pod.yaml"
    # 64 KB of blanks between two words on one line, and YAML that fails: the retry's scan
    # for trailing tabs backtracked over every blank for every blank.
    blanks = " \t" * 32_000
    manifest.write_text(f"apiVersion: v1\nkind: Pod\nimage: vllm/vllm-openai\nx: a{blanks}b\ny: [\n")
    code, findings, _ = _vlint(tmp_path)
    assert code == 1 and _linted_good(findings, tmp_path)
    assert _codes(findings, manifest) == ["VL002"]


def test_kubernetes_trailing_tabs_are_still_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = ("apiVersion: v1\t \t\nkind: Pod\nspec:\n  containers:\n"
            "    - image: vllm/vllm-openai:v0.9.2 \t\n      args: [--max-model-len, 16k]\t\n")
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(text)
    code, findings, _ = _in_process(capsys, str(manifest))
    assert code == 1
    (unit,) = findings
    assert unit["code"] == "VL202" and _written(text, unit) == "16k"


def test_twenty_thousand_aliases_of_one_container(tmp_path: Path) -> None:
    manifest = _good(tmp_path) / "pod.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nspec:\n  template: &c\n    image: vllm/vllm-openai:v0.9.2\n"
        "    args: [--max-model-len, 16k]\n  containers: [" + ", ".join(["*c"] * 40_000) + "]\n"
    )
    code, findings, _ = _vlint(tmp_path)
    assert code == 1 and _linted_good(findings, tmp_path)
    assert _codes(findings, manifest) == ["VL202"]


def test_twenty_thousand_aliases_of_one_argument(tmp_path: Path) -> None:
    manifest = _good(tmp_path) / "pod.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - image: vllm/vllm-openai:v0.9.2\n"
        "      args: [&f --max-model-len, &v 16k, " + ", ".join(["*f, *v"] * 10_000) + "]\n"
    )
    code, findings, _ = _vlint(tmp_path)
    assert code == 1 and _linted_good(findings, tmp_path)
    assert "VL202" in _codes(findings, manifest)


# -- policies ---------------------------------------------------------------------------------


def _policy_config(folder: Path, policy: str) -> Path:
    (folder / "policy.yaml").write_text(
        "policies:\n  - id: ORG001\n    severity: warning\n    message: the platform says no\n"
        "    help: ask the platform team\n" + policy
    )
    config = folder / "vlint.toml"
    config.write_text('policies = ["policy.yaml"]\n')
    return config


def test_cel_iteration_budget_is_a_finding_for_that_launch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _policy_config(tmp_path, "    expr: \"args.all(a, a != '--bad')\"\n")
    _good(tmp_path)
    many = tmp_path / "many.sh"
    many.write_text("vllm serve m " + " ".join(f"--port {i}" for i in range(5_000)) + "\n")
    sarif = tmp_path / "out.sarif"
    code = main(["--config", str(config), "--target-version", str(catalog.newest()),
                 "--output-format", "json", "--output", f"sarif:{sarif}", str(tmp_path)])
    out, err = capsys.readouterr()
    findings = json.loads(out)["findings"]
    assert code == 1, err
    assert _linted_good(findings, tmp_path)
    (failed,) = [f for f in findings if f["path"] == str(many) and f["code"] == "ORG001"]
    assert "could not be evaluated" in str(failed["message"])
    assert _at(failed) == (1, 1, 1, 11)
    assert "ORG001" in sarif.read_text()
    # The policy still holds, silently, on the launch it can evaluate.
    assert not [f for f in findings if f["path"] == str(tmp_path / "good.sh")
                and f["code"] == "ORG001"]


def test_cel_runtime_errors_other_than_a_missing_setting_are_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _policy_config(tmp_path, "    expr: \"int(env.X) > 1\"\n")
    script = tmp_path / "serve.sh"
    script.write_text("X=abc vllm serve m\n")
    code = main(["--config", str(config), "--target-version", str(catalog.newest()),
                 "--output-format", "json", str(script)])
    out, _ = capsys.readouterr()
    (failed,) = json.loads(out)["findings"]
    assert code == 1 and failed["code"] == "ORG001"
    assert "could not be evaluated" in str(failed["message"])


def test_row_matches_is_linear_time(tmp_path: Path) -> None:
    # A nested quantifier that Python's backtracking engine takes 2**40 steps to reject.
    config = _policy_config(
        tmp_path, "    rule: {setting: tokenizer, op: matches, value: '^(a+)+$'}\n"
    )
    script = tmp_path / "serve.sh"
    script.write_text(f"vllm serve m --tokenizer {'a' * 40}b\n")
    code, findings, err = _vlint(tmp_path, "--config", str(config))
    assert code == 1, err
    (failed,) = findings
    assert failed["code"] == "ORG001" and _at(failed) == (1, 26, 1, 67)


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [("(a)\\1", "backreference"), ("(?=a)b", "lookaround"), ("[", "not a regular expression")],
)
def test_row_matches_rejects_what_re2_cannot_run(tmp_path: Path, pattern: str, problem: str) -> None:
    from vlint.errors import ConfigError
    from vlint.policy.policies import load_text

    policy = (
        "policies:\n  - id: ORG001\n    severity: warning\n    message: m\n    help: h\n"
        f"    rule: {{setting: tokenizer, op: matches, value: {json.dumps(pattern)}}}\n"
    )
    with pytest.raises(ConfigError, match=r"p\.yaml:6:\d+: policies\[0\]\.rule\.value: ") as error:
        load_text(policy, "p.yaml", str(tmp_path))
    assert problem in str(error.value)


def test_row_matches_on_a_huge_value_fails_closed(tmp_path: Path) -> None:
    config = _policy_config(
        tmp_path, "    rule: {setting: tokenizer, op: matches, value: 'b'}\n"
    )
    script = tmp_path / "serve.sh"
    script.write_text(f"vllm serve m --tokenizer {'a' * 70_000}b\n")
    code, findings, err = _vlint(tmp_path, "--config", str(config))
    assert code == 1, err
    (failed,) = [f for f in findings if f["code"] == "ORG001"]
    assert _at(failed)[1] == 26


def test_merge_keys_doubled_at_every_level_are_resolved_once(tmp_path: Path) -> None:
    # <<: [*a, *a] at each of 25 levels: 2**25 merges if each merged mapping is walked again.
    lines = ["services:", '  x0: &a0 {command: ["--max-num-seqs", "8"]}']
    lines += [f"  x{i}: &a{i}\n    <<: [*a{i - 1}, *a{i - 1}]" for i in range(1, 26)]
    lines.append("  llm:\n    image: vllm/vllm-openai:v0.33.0\n    <<: [*a25, *a25]\n"
                 "    command: [m, --max-num-batched-tokens, 16k]")
    compose = tmp_path / "docker-compose.yml"
    compose.write_text("\n".join(lines) + "\n", "utf-8")
    report = lint([str(compose)], Settings(target="0.33.0", time_budget=60.0))
    assert "VL003" not in {f.code for f in report.findings}
    assert any(f.code == "VL202" for f in report.findings)


def test_nested_compose_defaults_are_bounded_and_messages_elide_long_values(
    tmp_path: Path,
) -> None:
    # 900 nested ${A:-...} defaults, forty times: no RecursionError (VL003), and the duplicate
    # flags are reported with their values elided, not quoted whole.
    value = "${A:-" * 900 + "x" + "}" * 900
    command = ", ".join([f'"--max-model-len", "{value}"'] * 40)
    compose = tmp_path / "docker-compose.yml"
    compose.write_text("services:\n  llm:\n    image: vllm/vllm-openai:v0.33.0\n"
                       f"    command: [m, {command}]\n", "utf-8")
    report = lint([str(compose)], Settings(target="0.33.0", time_budget=60.0))
    codes = {f.code for f in report.findings}
    assert "VL003" not in codes and "VL109" in codes
    assert all(len(f.message) <= 1000 and len(f.help) <= 1000 for f in report.findings)


def test_a_huge_unknown_flag_is_quoted_elided(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("vllm serve m --" + "x" * 50_000 + " 1\n", "utf-8")
    (finding,) = lint([str(script)], Settings(target="0.33.0")).findings
    assert finding.code == "VL101" and len(finding.message) <= 1000


def test_a_code_frame_shows_a_window_of_a_huge_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "run.sh"
    script.write_text("vllm serve m " + "--max-num-seqs 8 " * 5_000 + "--max-model-len 16k\n",
                      "utf-8")
    assert main(["--target-version", "0.33.0", "--select", "VL202", str(script)]) == 1
    out = capsys.readouterr().out
    assert len(out) < 5_000
    frame = [row for row in out.splitlines() if row.startswith("1 | ")]
    caret = [row for row in out.splitlines() if "^" in row and "ambiguous-unit-suffix" in row]
    assert frame and frame[0].startswith("1 | …") and frame[0].endswith("16k")
    # The carets still stand under '16k'.
    assert caret and caret[0].index("^") == frame[0].index("16k")
