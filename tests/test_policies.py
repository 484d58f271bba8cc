"""Policies: declarative rows, CEL expressions, scopes, errors with positions, packs, presets.

Positions are 1-based line:col, end exclusive, counted by hand on the texts below.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from vlint.cli import main
from vlint.errors import ConfigError
from vlint.engine.lint import lint
from vlint.settings import Settings
from vlint.policy.policies import installed, load_text

# cols:  1   5 6    11 13            27 29 31              47  51     58  62
LAUNCH = "vllm serve m --max-num-seqs 8 --max-model-len 16k --dtype half\n"
ANCHOR = "1:1-1:11"
SEQS, MODEL_LEN, DTYPE = "1:29-1:30", "1:47-1:50", "1:59-1:63"


def _policy(body: str, policy_id: str = "ORG001") -> str:
    return (
        "policies:\n"
        f"  - id: {policy_id}\n"
        "    severity: warning\n"
        "    message: the platform says no\n"
        "    help: ask the platform team\n"
        + textwrap.indent(textwrap.dedent(body), "    ")
    )


def _spans(
    tmp_path: Path, policy: str, text: str = LAUNCH, name: str = "run.sh", target: str = "0.33.0"
) -> list[str]:
    policies = tuple(load_text(policy, "p.yaml", str(tmp_path)))
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    report = lint([str(path)], Settings(target=target, policies=policies, select=("ORG",)))
    return [
        f"{f.span.start.line}:{f.span.start.column}-{f.span.end.line}:{f.span.end.column}"
        for f in report.findings
    ]


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ("{setting: max_num_seqs, op: exists}", []),
        ("{setting: enable_prefix_caching, op: exists}", [ANCHOR]),
        ("{setting: max_num_seqs, op: absent}", [SEQS]),
        ("{setting: enable_prefix_caching, op: absent}", []),
        ("{setting: max_num_seqs, op: eq, value: 8}", []),
        ("{setting: max_num_seqs, op: eq, value: 16}", [SEQS]),
        ("{setting: dtype, op: ne, value: half}", [DTYPE]),
        ("{setting: dtype, op: ne, value: auto}", []),
        ("{setting: dtype, op: in, value: [half, bfloat16]}", []),
        ("{setting: dtype, op: in, value: [bfloat16]}", [DTYPE]),
        ("{setting: dtype, op: not_in, value: [half]}", [DTYPE]),
        ("{setting: dtype, op: not_in, value: [float16]}", []),
        # 16k is 16,000 and 16K 16,384, as vLLM reads them.
        ("{setting: max_model_len, op: lt, value: 16000}", [MODEL_LEN]),
        ("{setting: max_model_len, op: lt, value: 16001}", []),
        ("{setting: max_model_len, op: le, value: 16k}", []),
        ("{setting: max_model_len, op: le, value: 15999}", [MODEL_LEN]),
        ("{setting: max_model_len, op: gt, value: 16K}", [MODEL_LEN]),
        ("{setting: max_model_len, op: ge, value: 16k}", []),
        ("{setting: max_num_seqs, op: gt, value: 8}", [SEQS]),
        ("{setting: max_num_seqs, op: ge, value: 8}", []),
        ("{setting: dtype, op: matches, value: '^b'}", [DTYPE]),
        ("{setting: dtype, op: matches, value: 'alf$'}", []),
        ("{setting: max_num_seqs, op: requires, value: max_num_batched_tokens}", [SEQS]),
        ("{setting: max_num_seqs, op: requires, value: --max-model-len}", []),
        ("{setting: max_num_seqs, op: conflicts, value: max_model_len}", [SEQS]),
        ("{setting: max_num_seqs, op: conflicts, value: enable_prefix_caching}", []),
        ("{setting: enable_prefix_caching, op: conflicts, value: max_model_len}", []),
    ],
)
def test_every_operator(tmp_path: Path, row: str, expected: list[str]) -> None:
    assert _spans(tmp_path, _policy(f"rule: {row}\n")) == expected


def test_a_setting_without_a_certain_default_does_not_apply(tmp_path: Path) -> None:
    text = "vllm serve m\n"
    # max_num_batched_tokens has no certain default: nothing to compare.
    assert _spans(tmp_path, _policy("rule: {setting: max_num_batched_tokens, op: le, value: 1}\n"),
                  text) == []
    # dtype's default is certainly 'auto': the row applies, at the invocation.
    assert _spans(tmp_path, _policy("rule: {setting: dtype, op: eq, value: half}\n"),
                  text) == [ANCHOR]


@pytest.mark.parametrize("name", ["--max-num-seqs", "max_num_seqs", "max-num-seqs", "--max-num-se"])
def test_every_spelling_names_the_same_setting(tmp_path: Path, name: str) -> None:
    policy = _policy(f"rule: {{setting: {name}, op: le, value: 4}}\n")
    assert _spans(tmp_path, policy) == [SEQS]


def test_rules_must_all_hold(tmp_path: Path) -> None:
    body = """\
    rules:
      - {setting: max_num_seqs, op: le, value: 8}
      - {setting: dtype, op: eq, value: bfloat16}
    """
    assert _spans(tmp_path, _policy(body)) == [DTYPE]
    body = body.replace("bfloat16", "half")
    assert _spans(tmp_path, _policy(body)) == []


def test_spans_inside_yaml_and_python(tmp_path: Path) -> None:
    compose = (
        "services:\n"
        "  llm:\n"
        "    image: vllm/vllm-openai:v0.33.0\n"
        #   5       13 15  19 20              36 38 39
        '    command: ["m", "--max-num-seqs", "512"]\n'
    )
    policy = _policy("rule: {setting: max_num_seqs, op: le, value: 256}\n")
    assert _spans(tmp_path, policy, compose, "docker-compose.yml") == ["4:39-4:42"]
    python = "from vllm import LLM\nllm = LLM(model='m', max_num_seqs=512)\n"
    assert _spans(tmp_path, policy, python, "serve.py") == ["2:35-2:38"]


# -- CEL --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "text", "expected"),
    [
        ("settings.max_num_seqs <= 4", LAUNCH, [ANCHOR]),
        ("settings.max_num_seqs <= 8", LAUNCH, []),
        # A missing setting makes the expression not apply, never fail.
        ("settings.max_num_batched_tokens >= settings.max_model_len", LAUNCH, []),
        ("!has(settings.max_num_seqs) || settings.max_num_seqs < 8", LAUNCH, [ANCHOR]),
        ("!has(settings.max_num_seqs)", "vllm serve m\n", []),
        ("!('--trust-remote-code' in args)", "vllm serve m --trust-remote-code\n", [ANCHOR]),
        ("!('HF_TOKEN' in env)", "HF_TOKEN=x vllm serve m\n", ["1:12-1:22"]),
        ("file.kind == 'shell' && file.release == '0.33.0' && file.image == ''", LAUNCH, []),
        ("settings.dtype == 'auto'", "vllm serve m\n", []),
    ],
)
def test_expressions(tmp_path: Path, expr: str, text: str, expected: list[str]) -> None:
    assert _spans(tmp_path, _policy(f"expr: {json.dumps(expr)}\n"), text) == expected


@pytest.mark.parametrize(
    ("expr", "used"),
    [
        ("settings.a || settings.b >= settings.c", {"a", "b", "c"}),
        ("has(settings.x) && 'settings.y' != ''", {"x"}),
        ("settings.x.size() > 1", {"x"}),
        ("size(settings) > 2", None),
        ("settings['a'] == 1", None),
        ("settings.exists(k, k == 'a')", None),
    ],
)
def test_only_the_settings_an_expression_reads_go_to_cel(expr: str, used: set[str] | None) -> None:
    from vlint.policy.policies import settings_used

    assert settings_used(expr) == (None if used is None else frozenset(used))


def test_expressions_that_read_all_settings(tmp_path: Path) -> None:
    policy = _policy("expr: \"settings.exists(k, k == 'max_num_seqs') && size(settings) < 3\"\n")
    assert _spans(tmp_path, policy) == [ANCHOR]


def test_the_issue_example(tmp_path: Path) -> None:
    expr = "settings.enable_chunked_prefill || settings.max_num_batched_tokens >= settings.max_model_len"
    policy = _policy(f"expr: {expr}\n")
    bad = "vllm serve m --no-enable-chunked-prefill --max-num-batched-tokens 4096 --max-model-len 8192\n"
    assert _spans(tmp_path, policy, bad) == [ANCHOR]
    good = bad.replace("4096", "8192")
    assert _spans(tmp_path, policy, good) == []


# -- scopes -----------------------------------------------------------------------------------


def test_scopes(tmp_path: Path) -> None:
    row = "rule: {setting: max_num_seqs, op: le, value: 4}\n"
    assert _spans(tmp_path, _policy("scope: {kinds: [compose]}\n" + row)) == []
    assert _spans(tmp_path, _policy("scope: {kinds: [shell]}\n" + row)) == [SEQS]
    assert _spans(tmp_path, _policy("scope: {paths: ['prod/']}\n" + row)) == []
    assert _spans(tmp_path, _policy("scope: {paths: ['prod/']}\n" + row), LAUNCH,
                  "prod/run.sh") == [SEQS]
    assert _spans(tmp_path, _policy("scope: {vllm: '<0.33'}\n" + row)) == []
    assert _spans(tmp_path, _policy("scope: {vllm: '>=0.33'}\n" + row)) == [SEQS]
    # An image scope needs an image.
    assert _spans(tmp_path, _policy("scope: {images: ['vllm/*']}\n" + row)) == []
    compose = (
        "services:\n  llm:\n    image: vllm/vllm-openai:v0.33.0\n"
        '    command: ["m", "--max-num-seqs", "512"]\n'
    )
    scoped = _policy("scope: {images: ['vllm/vllm-openai:*']}\n" + row)
    assert _spans(tmp_path, scoped, compose, "docker-compose.yml") == ["4:39-4:42"]
    other = _policy("scope: {images: ['ghcr.io/*']}\n" + row)
    assert _spans(tmp_path, other, compose, "docker-compose.yml") == []


# -- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("rule: {setting: max_num_seqs, op: le, value: 8, extra: 1}\n",
         "p.yaml:6:53: policies[0].rule.extra: unknown key 'extra'"),
        ("rule: {setting: max_num_seqs, op: below, value: 8}\n",
         "p.yaml:6:39: policies[0].rule.op: 'below' is not one of 'exists', 'absent', 'eq'"),
        ("rule: {setting: dtype, op: matches, value: '(half'}\n",
         "p.yaml:6:48: policies[0].rule.value: '(half' is not a regular expression"),
        ("rule: {setting: max_num_seqs, op: le, value: many}\n",
         "p.yaml:6:50: policies[0].rule.value: operator 'le' takes a number"),
        ("rule: {setting: max_num_seqs, op: le}\n",
         "p.yaml:6:11: policies[0].rule.value: operator 'le' needs a value"),
        ("rule: {setting: max_num_seqs, op: in, value: 8}\n",
         "p.yaml:6:50: policies[0].rule.value: operator 'in' takes a list"),
        ("rule: {setting: max_model_lenn, op: le, value: 8}\n",
         "p.yaml:6:21: policies[0].rule.setting: 'max_model_lenn' is not a setting of any vLLM "
         "release vlint knows"),
        # An ambiguous abbreviation names no setting.
        ("rule: {setting: max_model_len, op: requires, value: --max-num}\n",
         "p.yaml:6:57: policies[0].rule.value: '--max-num' is not a setting"),
        ("scope: {vllm: 'newest'}\nexpr: 'true'\n",
         "p.yaml:6:19: policies[0].scope.vllm: 'newest' is not a version specifier"),
        ("colour: red\nexpr: 'true'\n", "p.yaml:6:5: policies[0].colour: unknown key 'colour'"),
        ("expr: 'true'\nrule: {setting: dtype, op: exists}\n",
         "p.yaml:2:5: policies[0]: a policy needs exactly one of 'rule', 'rules' or 'expr'"),
        # CEL: the position is the expression's own, in the policy file.
        #    5    11        21 24
        ("expr: settings.x ==\n", "p.yaml:6:24: policies[0].expr: Syntax error: mismatched input"),
        ("expr: 1 + 'a' > 0\n",
         "p.yaml:6:13: policies[0].expr: found no matching overload for '_+_' applied to "
         "'(int, string)'"),
        ("expr: size(args)\n", "p.yaml:6:11: policies[0].expr: the expression must be a bool"),
        # A block scalar: line 8 is "        settings.x >", the end of input is after '>'.
        ("expr: |-\n  has(settings.x) &&\n    settings.x >\n",
         "p.yaml:8:21: policies[0].expr: Syntax error"),
    ],
)
def test_bad_policies_name_the_place(body: str, expected: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_text(_policy(body), "p.yaml", ".")
    assert str(raised.value).startswith("invalid policy: " + expected)


def test_an_empty_policy_file_holds_no_policy() -> None:
    assert load_text("# nothing yet\n", "p.yaml", ".") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (_policy("expr: 'true'\n").replace("severity: warning", "severity: fatal"),
         "p.yaml:3:15: policies[0].severity: 'fatal' is not one of 'error', 'warning' or 'info'"),
        (_policy("expr: 'true'\n", "VL901"), "p.yaml:2:9: policies[0].id: 'VL901' is not a policy id"),
        (_policy("expr: 'true'\n", "org1"), "p.yaml:2:9: policies[0].id: 'org1' is not a policy id"),
        ("policies: [\n", "p.yaml:2:1: not valid YAML"),
        ("rules: []\n", "p.yaml:1:1: policies: field required"),
    ],
)
def test_bad_files_name_the_place(text: str, expected: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_text(text, "p.yaml", ".")
    assert str(raised.value).lower().startswith("invalid policy: " + expected.lower())


# -- configuration, outputs, suppressions -----------------------------------------------------

POLICY_FILE = _policy("rule: {setting: --max-num-seqs, op: le, value: 4}\n")


def _project(tmp_path: Path, config: str, script: str = LAUNCH) -> None:
    (tmp_path / "org.yaml").write_text(POLICY_FILE, "utf-8")
    (tmp_path / "vlint.toml").write_text(config, "utf-8")
    (tmp_path / "run.sh").write_text(script, "utf-8")


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--target-version", "0.33.0", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_exact_spans_in_every_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path, 'policies = ["org.yaml"]\nselect = ["ORG"]\n')
    monkeypatch.chdir(tmp_path)
    code, out, _ = _cli(capsys, "--output-format", "json", "run.sh")
    (finding,) = json.loads(out)["findings"]
    assert code == 1
    assert (finding["code"], finding["severity"], finding["message"], finding["help"]) == (
        "ORG001", "warning", "the platform says no", "ask the platform team"
    )
    where = (finding["line"], finding["column"], finding["end_line"], finding["end_column"])
    assert where == (1, 29, 1, 30)
    _, out, _ = _cli(capsys, "--output-format", "concise", "run.sh")
    assert out.startswith("run.sh:1:29: ORG001 [warning] the platform says no")
    _, out, _ = _cli(capsys, "--output-format", "full", "run.sh")
    assert "run.sh:1:29: ORG001 [warning] the platform says no" in out
    assert "\n  |                             ^ org001\n" in out
    _, out, _ = _cli(capsys, "--output-format", "github", "run.sh")
    assert "::warning file=run.sh,line=1,col=29,endLine=1,endColumn=30" in out
    _, out, _ = _cli(capsys, "--output-format", "sarif", "run.sh")
    (result,) = json.loads(out)["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (result["ruleId"], region["startLine"], region["startColumn"], region["endColumn"]) == (
        "ORG001", 1, 29, 30
    )
    rules = json.loads(out)["runs"][0]["tool"]["driver"]["rules"]
    assert rules[result["ruleIndex"]] == {
        "id": "ORG001", "name": "org001",
        "shortDescription": {"text": "the platform says no"},
        "help": {"text": "ask the platform team"},
        "properties": {"policy": True},
    }


def test_policy_findings_are_suppressible_and_selectable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = 'policies = ["org.yaml"]\nselect = ["ORG"]\n'
    _project(tmp_path, config, LAUNCH.rstrip("\n") + "  # vlint: ignore[ORG001] approved\n")
    assert _cli(capsys, "--output-format", "concise", "run.sh")[:2] == (0, "")
    _project(tmp_path, config, LAUNCH.rstrip("\n") + "  # vlint: ignore[ORG] approved\n")
    assert _cli(capsys, "--output-format", "concise", "run.sh")[:2] == (0, "")
    _project(tmp_path, config + 'ignore = ["ORG001"]\n')
    assert _cli(capsys, "--output-format", "concise", "run.sh")[:2] == (0, "")
    _project(tmp_path, config + '[severity]\nORG001 = "info"\n')
    code, out, _ = _cli(capsys, "--output-format", "json", "run.sh")
    assert code == 0 and json.loads(out)["findings"][0]["severity"] == "info"
    # An unused policy suppression is VL001 like any other.
    _project(tmp_path, 'policies = ["org.yaml"]\n', "vllm serve m  # vlint: ignore[ORG001]\n")
    _, out, _ = _cli(capsys, "--output-format", "concise", "--select", "VL001,ORG", "run.sh")
    assert out == "run.sh:1:31: VL001 [*] [warning] unused suppression for 'ORG001'\n"


def test_a_bad_policy_file_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _project(tmp_path, 'policies = ["org.yaml"]\n')
    #                                         11   16 18
    (tmp_path / "org.yaml").write_text(_policy('expr: "true +"\n'), "utf-8")
    code, _, err = _cli(capsys, "run.sh")
    assert code == 2
    assert err.startswith(f"invalid policy: {tmp_path / 'org.yaml'}:6:18: policies[0].expr: ")
    _project(tmp_path, 'policies = ["missing.yaml"]\n')
    code, _, err = _cli(capsys, "run.sh")
    assert code == 2 and "no policy file 'missing.yaml'" in err


def test_an_id_defined_twice_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _project(tmp_path, 'policies = ["org.yaml", "again.yaml"]\n')
    (tmp_path / "again.yaml").write_text(POLICY_FILE, "utf-8")
    code, _, err = _cli(capsys, "run.sh")
    assert code == 2
    assert err == (
        f"invalid policy: {tmp_path / 'again.yaml'}:2: id ORG001 is already defined at "
        f"{tmp_path / 'org.yaml'}:2\n"
    )


# -- packs and presets ------------------------------------------------------------------------


def test_an_installed_pack(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    (site / "acme_policies").mkdir(parents=True)
    (site / "acme_policies" / "org.yaml").write_text(POLICY_FILE, "utf-8")
    (site / "acme_policies" / "__init__.py").write_text(
        "from pathlib import Path\n\n"
        "def policies():\n    return [Path(__file__).parent / 'org.yaml']\n\n"
        f"TEXT = {_policy('expr: has(settings.max_num_seqs) == false', 'ACME002')!r}\n",
        "utf-8",
    )
    info = site / "acme_policies-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-policies\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[vlint.policies]\nacme = acme_policies:policies\nacme-text = acme_policies:TEXT\n"
    )
    monkeypatch.syspath_prepend(str(site))
    assert installed([]) == ()
    assert [p.id for p in installed(["acme", "acme-text"])] == ["ORG001", "ACME002"]
    project = tmp_path / "project"
    project.mkdir()
    (project / "run.sh").write_text(LAUNCH, "utf-8")
    monkeypatch.chdir(project)

    def codes(*args: str) -> tuple[int, list[str]]:
        code, out, err = _cli(capsys, "--select", "ORG,ACME", "--output-format", "json", *args,
                              "run.sh")
        assert code != 2, err
        return code, [f"{f['line']}:{f['column']}: {f['code']}" for f in json.loads(out)["findings"]]

    # A pack is loaded only where the command line or the configuration names it.
    # No pack named: ORG and ACME name no policy of the run, an unknown code (exit 2).
    code, _, err = _cli(capsys, "--select", "ORG,ACME", "--isolated", "run.sh")
    assert code == 2 and "unknown code 'ORG'" in err
    assert codes("--isolated", "--policy-pack", "acme,acme-text") == (
        1, ["1:1: ACME002", "1:29: ORG001"])
    (project / "vlint.toml").write_text('policy-packs = ["acme-text"]\n', "utf-8")
    code, _, err = _cli(capsys, "--select", "ORG,ACME", "run.sh")
    assert code == 2 and "unknown code 'ORG'" in err  # ORG001 is in the pack not named
    code, out, _ = _cli(capsys, "--select", "ACME", "--output-format", "json", "run.sh")
    assert [f["code"] for f in json.loads(out)["findings"]] == ["ACME002"]
    code, _, err = _cli(capsys, "--policy-pack", "nope", "run.sh")
    assert code == 2 and "policy pack 'nope' is not installed" in err


def test_presets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    compose = (
        "services:\n"
        "  llm:\n"
        #        12
        "    image: vllm/vllm-openai:latest\n"
        '    command: ["m", "--max-num-batched-tokens", "16k"]\n'
        "  tpu:\n"
        "    image: vllm/vllm-tpu:latest\n"
        '    command: ["vllm", "serve", "m"]\n'
    )
    (tmp_path / "docker-compose.yml").write_text(compose, "utf-8")

    def findings(config: str) -> list[tuple[str, str]]:
        (tmp_path / "vlint.toml").write_text(config, "utf-8")
        code, out, err = _cli(capsys, "--output-format", "json", "docker-compose.yml")
        assert code in (0, 1), err
        return [(f["code"], f["severity"]) for f in json.loads(out)["findings"]]

    recommended = findings('extends = ["recommended"]\n')
    assert ("VL202", "warning") in recommended and recommended == findings("")
    strict = findings('extends = ["strict"]\n')
    assert ("VL202", "error") in strict and ("VL504", "error") in strict
    # VLP001 covers the vLLM images VL504 does not judge (here the TPU image), once each.
    assert [c for c, _ in strict].count("VLP001") == 1
    # Per-rule overrides still apply after the preset.
    overridden = findings('extends = ["strict"]\nignore = ["VLP"]\n[severity]\nVL202 = "info"\n')
    assert ("VL202", "info") in overridden and not any(c == "VLP001" for c, _ in overridden)
    security = findings('extends = ["security"]\n')
    assert security and all(code.startswith("VL5") for code, _ in security)
    (tmp_path / "vlint.toml").write_text('extends = ["paranoid"]\n', "utf-8")
    code, _, err = _cli(capsys, "docker-compose.yml")
    assert code == 2
    assert "extends.0: 'paranoid' is not one of recommended, strict, security" in err


def test_pinned_images_pass_the_strict_policy(tmp_path: Path) -> None:
    from vlint.config.presets import combine

    policies = combine(["strict"]).policies
    for image, fires in [
        ("vllm/vllm-tpu:latest", True),
        ("vllm/vllm-tpu", True),
        ("registry.local:5000/vllm/vllm-tpu", True),
        ("vllm/vllm-tpu:v0.33.0", False),
        ("registry.local:5000/vllm/vllm-tpu:v0.33.0", False),
        ("vllm/vllm-tpu@sha256:" + "a" * 64, False),
        ("vllm/vllm-tpu:v${VLLM_VERSION}", False),
        ("vllm/vllm-openai:latest", False),  # a server image: VL504 judges it
    ]:
        path = tmp_path / "docker-compose.yml"
        path.write_text(
            f"services:\n  llm:\n    image: {image}\n    command: [vllm, serve, m]\n", "utf-8"
        )
        report = lint([str(path)], Settings(target="0.33.0", policies=policies, select=("VLP",)))
        assert bool(report.findings) == fires, image


# -- vlint show --format json -----------------------------------------------------------------


def test_show_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "run.sh").write_text("HF_HOME=/c " + LAUNCH, "utf-8")
    code = main(["show", "--format", "json", "--target-version", "0.33.0", str(tmp_path)])
    document = json.loads(capsys.readouterr().out)
    assert code == 0 and document["version"] == 1
    (invocation,) = document["invocations"]
    assert invocation["release"] == "0.33.0" and invocation["kind"] == "shell"
    assert invocation["span"] == {"line": 1, "column": 12, "end_line": 1, "end_column": 22}
    assert invocation["env"] == {"HF_HOME": "/c"}
    assert invocation["args"][:3] == ["m", "--max-num-seqs", "8"]
    assert invocation["settings"]["max_model_len"] == {
        "value": 16000, "certain": True, "written": True,
        "span": {"line": 1, "column": 58, "end_line": 1, "end_column": 61},
    }
    assert "dtype" in invocation["settings"] and "swap_space" not in invocation["settings"]
    main(["show", "--format", "json", "--all", "--target-version", "0.33.0", str(tmp_path)])
    every = json.loads(capsys.readouterr().out)["invocations"][0]["settings"]
    assert len(every) > len(invocation["settings"])
    assert all(s["span"] is None for s in every.values() if not s["written"])
    assert every["max_num_seqs"]["written"] is True



APPROVED = "[meta-llama/Llama-3.1-8B-Instruct, Qwen/Qwen3-8B]"


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        # The served model, however it is written: vllm serve's positional, --model (which
        # vLLM moves to the positional), a compose command list, Python's LLM(model=...).
        ("run.sh", "vllm serve Qwen/Qwen3-8B --max-num-seqs 8\n", []),
        ("run.sh", "vllm serve evil/uncensored --max-num-seqs 8\n", ["1:12-1:27"]),
        ("run.sh", "vllm serve --model evil/uncensored\n", ["1:20-1:35"]),
        ("run.sh", "vllm serve --model Qwen/Qwen3-8B\n", []),
        ("compose.yaml",
         "services:\n  llm:\n    image: vllm/vllm-openai:v0.33.0\n"
         "    command: [\"--model\", \"evil/uncensored\"]\n", ["4:27-4:42"]),
        ("serve.py", "from vllm import LLM\nLLM(model='evil/uncensored')\n", ["2:11-2:28"]),
        ("serve.py", "from vllm import LLM\nLLM(model='Qwen/Qwen3-8B')\n", []),
    ],
)
def test_approved_models_policy_judges_the_served_model(
    tmp_path: Path, name: str, text: str, expected: list[str]
) -> None:
    row = f"rule: {{setting: model, op: in, value: {APPROVED}}}\n"
    assert _spans(tmp_path, _policy(row), text, name) == expected


def test_approved_models_as_an_expression(tmp_path: Path) -> None:
    policy = _policy("expr: 'settings.model in [\"Qwen/Qwen3-8B\"]'\n")
    assert _spans(tmp_path, policy, "vllm serve Qwen/Qwen3-8B\n") == []
    assert _spans(tmp_path, policy, "vllm serve evil/uncensored\n") == [ANCHOR]
