"""vlint never runs what it reads: files in every host format that would create a marker file if
anything executed them (command substitution, backticks, Python ``__import__``, YAML
``!!python/object/apply`` tags) are linted and fixed, and no marker appears, no process is
spawned and no shell is called."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from vlint.knowledge import catalog
from vlint.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _payloads(marker: Path) -> dict[str, str]:
    touch = f"touch {marker}"
    tag = f"!!python/object/apply:os.system ['{touch}']"
    py = f"__import__('os').system('{touch}')"
    return {
        "serve.sh": f'#!/bin/sh\n{touch}\nvllm serve m --max-model-len 16k --served-model-name '
                    f'"$({touch})" `{touch}` $(python -c "{py}")\n',
        "compose.yaml": f"services:\n  vllm:\n    image: vllm/vllm-openai:latest\n"
                        f"    command: [m, --max-model-len, 16k, '$({touch})', '`{touch}`']\n"
                        f"    entrypoint: {tag}\n    environment:\n      X: {tag}\n",
        "docker-compose.yml": f"services:\n  vllm:\n    command: vllm serve m --max-model-len 16k"
                              f" $$({touch})\n    healthcheck:\n      test: {tag}\n",
        "deployment.yaml": f"apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: v\n"
                           f"    image: vllm/vllm-openai:latest\n    args: [m, --max-model-len, "
                           f"16k, '$({touch})']\n    command: {tag}\n",
        "values.yaml": f"vllmConfig:\n  extraArgs: [--max-model-len, 16k, '$({touch})']\n"
                       f"x: {tag}\n",
        "vllm-config.yaml": f"max-model-len: 16k\nhf-overrides: {tag}\nserved-model-name: "
                            f"'$({touch})'\n",
        "sky.yaml": f"resources:\n  cpus: 1\nsetup: {touch}\nrun: vllm serve m --max-model-len "
                    f"16k $({touch})\n",
        "Dockerfile": f"FROM python:3.11\nRUN {touch}\nCMD vllm serve m --max-model-len 16k "
                      f"$({touch}) `{touch}`\n",
        "vllm.service": f"[Service]\nExecStartPre=/bin/sh -c '{touch}'\nExecStart=/usr/bin/vllm"
                        f" serve m --max-model-len 16k $({touch})\n",
        "launch.py": f"import subprocess\n{py}\nsubprocess.run(['vllm', 'serve', 'm', "
                     f"'--max-model-len', '16k', '$({touch})'])\nsubprocess.run('{touch}', "
                     f"shell=True)\nfrom vllm import LLM\nLLM(model={py}, max_model_len=4096)\n",
        "README.md": f"```bash\nvllm serve m --max-model-len 16k $({touch})\n```\n\n```python\n"
                     f"{py}\n```\n\n```yaml\nservices:\n  a:\n    command: {tag}\n```\n",
    }


def _lint_and_fix(folder: Path) -> list[int]:
    common = ["--isolated", "--target-version", str(catalog.newest())]
    return [main([*common, "--output-format", "json", str(folder)]),
            main([*common, "--fix", "--unsafe-fixes", str(folder)]),
            main([*common, "--diff", str(folder)])]


def _write(folder: Path) -> Path:
    marker = folder / "MARKER"
    for name, text in _payloads(marker).items():
        (folder / name).write_text(text)
    return marker


def _refuse(*args: object, **kwargs: object) -> None:
    raise AssertionError(f"vlint tried to run something: {args!r}")


def test_no_process_is_started_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = _write(tmp_path)
    for name in ("system", "popen", "execv", "execve", "execvp", "execvpe", "spawnv", "spawnve",
                 "posix_spawn", "posix_spawnp"):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, _refuse)
    monkeypatch.setattr(subprocess, "Popen", _refuse)
    codes = _lint_and_fix(tmp_path)
    capsys.readouterr()
    assert set(codes) <= {0, 1}
    assert not marker.exists()
    # --fix did fix: the shell script's 16k was written out (as 16384: unsafe fixes).
    assert "--max-model-len 16384" in (tmp_path / "serve.sh").read_text()


AUDITED = """
import json, sys
EVENTS = ("os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
          "subprocess.Popen", "pty.spawn", "os.startfile", "ctypes.dlopen")
seen = []
def hook(event, args):
    if event in EVENTS:
        seen.append(event)
        raise RuntimeError("blocked " + event)
sys.addaudithook(hook)
from vlint.cli import main
codes = [main(argv) for argv in json.loads(sys.argv[1])]
print(json.dumps({"codes": codes, "events": seen}))
"""


def test_no_process_is_started_audited(tmp_path: Path) -> None:
    marker = _write(tmp_path)
    common = ["--isolated", "--target-version", str(catalog.newest()), "--output-format", "json"]
    runs = [[*common, str(tmp_path)], [*common, "--fix", "--unsafe-fixes", str(tmp_path)]]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "linter"), str(ROOT / "rules"), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run(
        [sys.executable, "-c", AUDITED, json.dumps(runs)], capture_output=True, text=True,
        env=env, cwd=tmp_path, timeout=120, check=False,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["events"] == []
    assert set(report["codes"]) <= {0, 1}
    assert not marker.exists()
