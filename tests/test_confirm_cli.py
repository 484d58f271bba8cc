"""``vlint confirm``'s command line: its target, what it says while it works, the advice when no
vLLM is found, and the options it shares with ``check``.

A fake vLLM interpreter (a venv outside the checkout, ``__version__ = "0.32.0"``) answers the
probe's ping; its ``vllm serve`` serves ``/health`` and a completion for the model ``good`` and
exits with a vLLM-like last error line for any other model.
"""

from __future__ import annotations

import io
import json
import subprocess
import venv
from pathlib import Path
from typing import Any

import pytest

from vlint.cli import main

VLLM_INIT = '__version__ = "0.32.0"\n'
SERVE_MAIN = '''
import http.server, json, sys
args = sys.argv[2:]
port = int(args[args.index("--port") + 1])
print("INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.32.0", flush=True)
if args[0] != "good":
    print(f"ValueError: cannot load model {args[0]}", file=sys.stderr)
    sys.exit(1)


class Handler(http.server.BaseHTTPRequestHandler):
    def _json(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._json({"data": [{"id": "good"}]} if self.path == "/v1/models" else {})

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self._json({"choices": [{"text": "hi"}]})

    def log_message(self, *args):
        pass


http.server.HTTPServer(("127.0.0.1", port), Handler).serve_forever()
'''
FINDING = "--max-num-seqs 1k"  # VL203 in every release


def _fake(home: Path, version: str = "0.32.0") -> str:
    venv.create(home / "venv", with_pip=False)
    python = str(home / "venv" / "bin" / "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    package = Path(site) / "vllm"
    (package / "entrypoints" / "cli").mkdir(parents=True)
    (package / "__init__.py").write_text(VLLM_INIT.replace("0.32.0", version))
    (package / "entrypoints" / "__init__.py").write_text("")
    (package / "entrypoints" / "cli" / "__init__.py").write_text("")
    (package / "entrypoints" / "cli" / "main.py").write_text(SERVE_MAIN)
    return python


@pytest.fixture(scope="module")
def fake_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    return _fake(tmp_path_factory.mktemp("fakevllm"))


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    checkout = tmp_path / "repo"
    (checkout / ".git").mkdir(parents=True)
    monkeypatch.chdir(checkout)
    monkeypatch.setenv("VLINT_VLLM_HOME", str(tmp_path / "no-cache"))
    monkeypatch.delenv("VLINT_VLLM_PYTHON", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    return checkout


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["confirm", "--isolated", "--exit-zero", *args])
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------------------- the target


def test_nothing_pinned_targets_the_probes_release(repo: Path, fake_python: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "serve.sh").write_text(f"vllm serve m {FINDING}\n")
    code, out, err = _run(capsys, "--vllm-python", fake_python, "--output-format", "json",
                          "serve.sh")
    assert code == 0, err
    document = json.loads(out)
    assert document["target"] == ["0.32.0"]
    (finding,) = [f for f in document["findings"] if f["code"] == "VL203"]
    assert finding["vllm_versions"] == ["0.32.0"]
    assert "the probe runs" not in finding["confirmation"]["message"]
    notes = [line for line in err.splitlines() if line.startswith("note:")]
    assert any("0.32.0" in n and "probe" in n for n in notes), err
    assert not any("newest known" in n for n in notes), err


def test_an_unknown_probe_release_is_said(repo: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    python = _fake(tmp_path / "unknown", "0.32.7")
    (repo / "serve.sh").write_text(f"vllm serve m {FINDING}\n")
    code, out, err = _run(capsys, "--vllm-python", python, "--output-format", "json",
                          "serve.sh")
    assert code == 0, err
    from vlint.knowledge import catalog

    assert json.loads(out)["target"] == [str(catalog.newest())]
    assert "the probe runs vLLM 0.32.7, which vlint does not know" in err


def test_a_pinned_neighbour_keeps_the_newest_with_a_note(
        repo: Path, fake_python: str, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "Dockerfile").write_text(
        'FROM vllm/vllm-openai:v0.31.0\nCMD ["--model", "m", "--max-num-seqs", "1k"]\n')
    (repo / "serve.sh").write_text(f"vllm serve m {FINDING}\n")
    code, _, err = _run(capsys, "--vllm-python", fake_python, "--output-format", "json", ".")
    assert code == 0, err
    assert "pass --target-version 0.32.0 to check them against it" in err


def test_a_given_target_is_kept(repo: Path, fake_python: str,
                                capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "serve.sh").write_text(f"vllm serve m {FINDING}\n")
    code, out, err = _run(capsys, "--vllm-python", fake_python, "--output-format", "json",
                          "--target-version", "0.31.0", "serve.sh")
    assert code == 0, err
    document = json.loads(out)
    assert document["target"] == ["0.31.0"]
    (finding,) = [f for f in document["findings"] if f["code"] == "VL203"]
    assert "the probe runs vLLM 0.32.0" in finding["confirmation"]["message"]


def test_an_image_pin_is_kept(repo: Path, fake_python: str,
                              capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "Dockerfile").write_text(
        f'FROM vllm/vllm-openai:v0.31.0\nCMD ["--model", "m", "--max-num-seqs", "1k"]\n')
    code, out, err = _run(capsys, "--vllm-python", fake_python, "--output-format", "json",
                          "Dockerfile")
    assert code == 0, err
    assert json.loads(out)["target"] == ["0.31.0"]


# ---------------------------------------------------------------------------- progress on stderr


def test_a_line_before_the_probe_starts(repo: Path, fake_python: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "serve.sh").write_text(f"vllm serve m {FINDING}\n")
    code, _, err = _run(capsys, "--vllm-python", fake_python, "--output-format", "json",
                        "--target-version", "0.32.0", "serve.sh")
    assert code == 0, err
    lines = err.splitlines()
    starting = [i for i, line in enumerate(lines) if "starting vLLM" in line and "probe" in line]
    assert starting, err
    assert fake_python in lines[starting[0]]


def test_start_says_what_happened_to_each_invocation(repo: Path, fake_python: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "serve.sh").write_text(
        f"vllm serve good {FINDING}\n"
        f"vllm serve bad {FINDING}\n"
        f"vllm serve m {FINDING} --trust-remote-code\n")
    code, _, err = _run(capsys, "--vllm-python", fake_python, "--output-format", "json",
                        "--level", "start", "--target-version", "0.32.0", "serve.sh")
    assert code == 0, err
    lines = err.splitlines()
    (good,) = [line for line in lines if line.startswith("serve.sh:1:")]
    assert "started, /health ok, completion answered in" in good, err
    (bad,) = [line for line in lines if line.startswith("serve.sh:2:")]
    assert "exited with 1 after" in bad and "ValueError: cannot load model bad" in bad, err
    (refused,) = [line for line in lines if line.startswith("serve.sh:3:")]
    assert "not run:" in refused and "--trust-remote-code" in refused, err


def test_start_lines_are_escaped(repo: Path, fake_python: str,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    """vLLM's error line quotes the model name, which the linted file chose."""
    (repo / "serve.sh").write_text(f"vllm serve 'x\x1b]52;c;cHduZWQ=\x07' {FINDING}\n")
    code, _, err = _run(capsys, "--vllm-python", fake_python, "--output-format", "json",
                        "--level", "start", "--target-version", "0.32.0", "serve.sh")
    assert code == 0, err
    (line,) = [line for line in err.splitlines() if line.startswith("serve.sh:1:")]
    assert "exited with 1" in line
    assert "\x1b" not in err and "\x07" not in err
    assert "\\x1b]52" in line


# ---------------------------------------------------------------------------- no vLLM found


def test_advice_when_no_vllm_python_is_found(repo: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    (repo / "serve.sh").write_text(f"vllm serve m {FINDING}\n")
    code, _, err = _run(capsys, "serve.sh")
    assert code == 2
    assert "tools/vllm_env.py" not in err
    assert "--vllm-python PATH" in err
    assert "python3 -m venv" in err and "pip install vllm" in err


# ---------------------------------------------------------------------------- check's options


def test_output_extend_select_jobs(repo: Path, fake_python: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "serve.sh").write_text(f"vllm serve m {FINDING}\n")
    code, out, err = _run(capsys, "--vllm-python", fake_python, "--output-format", "concise",
                          "--target-version", "0.32.0", "--select", "VL1",
                          "--extend-select", "VL203", "-j", "4", "--output",
                          "json:out.json", "serve.sh")
    assert code == 0, err
    document: dict[str, Any] = json.loads((repo / "out.json").read_text())
    (finding,) = document["findings"]
    assert finding["code"] == "VL203"
    # -j only affects linting: confirm still sees the invocation it lints.
    assert finding["confirmation"]["message"] != "not about one vLLM invocation"
    assert "VL203" in out


def test_stdin_filename(repo: Path, fake_python: str, monkeypatch: pytest.MonkeyPatch,
                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(f"vllm serve m {FINDING}\n"))
    code, out, err = _run(capsys, "--vllm-python", fake_python, "--output-format", "json",
                          "--target-version", "0.32.0", "--stdin-filename", "deploy/serve.sh",
                          "-")
    assert code == 0, err
    (finding,) = json.loads(out)["findings"]
    assert finding["path"] == "deploy/serve.sh" and finding["code"] == "VL203"
    assert finding["confirmation"] is not None


# ---------------------------------------------------------------------------- the filter stage
# vLLM's own findings (VL901-VL903) pass the filter stage as every other finding does: a
# regression test for confirm adding them after filtering, where neither --ignore nor a
# suppression comment reached them and the comment was reported as unused (VL001).


def _start_codes(capsys: pytest.CaptureFixture[str], fake_python: str, *args: str) -> list[str]:
    code, out, err = _run(capsys, "--vllm-python", fake_python, "--output-format", "json",
                          "--level", "start", "--target-version", "0.32.0", *args, "serve.sh")
    assert code == 0, err
    return [finding["code"] for finding in json.loads(out)["findings"]]


def test_vllm_refusing_to_start_is_vl901(repo: Path, fake_python: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "serve.sh").write_text("vllm serve good\nvllm serve bad\n")
    code, out, err = _run(capsys, "--vllm-python", fake_python, "--output-format", "json",
                          "--level", "start", "--target-version", "0.32.0", "serve.sh")
    assert code == 0, err
    (finding,) = json.loads(out)["findings"]
    assert (finding["code"], finding["line"], finding["invocation"]) == ("VL901", 2, 1)


def test_ignore_drops_vllms_own_findings(repo: Path, fake_python: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "serve.sh").write_text("vllm serve bad\n")
    assert _start_codes(capsys, fake_python, "--ignore", "VL901") == []
    assert _start_codes(capsys, fake_python, "--select", "VL1") == []


def test_a_comment_suppresses_vllms_own_finding_and_is_used(
        repo: Path, fake_python: str, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "serve.sh").write_text("vllm serve bad  # vlint: ignore[VL901] known: no weights\n")
    assert _start_codes(capsys, fake_python) == []
