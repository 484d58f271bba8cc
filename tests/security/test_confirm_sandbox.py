"""``vlint confirm`` can never be turned against its user.

A fake "vLLM interpreter" (a venv outside the checkout whose ``vllm`` package records how it was
started: argv, working directory, environment, ``sys.path``) stands in for the real one.  Each
test builds a hostile checkout in tmp_path and runs ``vlint confirm`` the way a user does.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import venv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from vlint.cli import main
from vlint.confirm import VLLMPython, find_python

ROOT = Path(__file__).resolve().parents[2]
SECRETS = {"GITHUB_TOKEN": "ghp-SECRET-1", "AWS_SECRET_ACCESS_KEY": "aws-SECRET-2",
           "HF_TOKEN": "hf-SECRET-3", "VLLM_PLUGINS": "evil"}
# VL203 (1k is ambiguous) gives every invocation a finding whose confirmation can be read.
FINDING = "--max-num-seqs 1k"

VLLM_INIT = """
import json, os, sys
from importlib.metadata import entry_points
__version__ = "0.32.0"
with open({record!r}, "a") as out:
    out.write(json.dumps({{"argv": sys.argv, "cwd": os.getcwd(), "env": dict(os.environ),
                          "path": sys.path, "isolated": sys.flags.isolated}}) + "\\n")
for plugin in entry_points(group="vllm.general_plugins"):
    plugin.load()()
"""
SERVE_MAIN = """
import os, signal, subprocess, sys, time
CHILD = "import os, signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); " \\
        "open({pids!r} + '/child', 'w').write(str(os.getpid())); time.sleep(120)"
if __name__ == "__main__":
    if os.path.exists({hang!r}):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        subprocess.Popen([sys.executable, "-c", CHILD], start_new_session=True)
        open({pids!r} + "/server", "w").write(str(os.getpid()))
        time.sleep(120)
    print("ValueError: the fake vLLM refuses to start", file=sys.stderr)
    sys.exit(1)
"""


class FakeVLLM:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.record = home / "record.jsonl"
        self.pids = home / "pids"
        self.hang = home / "hang"
        venv.create(home / "venv", with_pip=False)
        self.python = str(home / "venv" / "bin" / "python")
        site = subprocess.run([self.python, "-c", "import sysconfig; "
                               "print(sysconfig.get_path('purelib'))"],
                              capture_output=True, text=True, check=True).stdout.strip()
        package = Path(site) / "vllm"
        (package / "entrypoints" / "cli").mkdir(parents=True)
        (package / "__init__.py").write_text(VLLM_INIT.format(record=str(self.record)))
        (package / "entrypoints" / "__init__.py").write_text("")
        (package / "entrypoints" / "cli" / "__init__.py").write_text("")
        (package / "entrypoints" / "cli" / "main.py").write_text(SERVE_MAIN.format(
            pids=str(self.pids), hang=str(self.hang)))

    def reset(self) -> None:
        self.record.unlink(missing_ok=True)
        self.hang.unlink(missing_ok=True)
        for pid in self.pids.glob("*"):
            pid.unlink()
        self.pids.mkdir(exist_ok=True)

    def runs(self) -> list[dict[str, Any]]:
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text().splitlines()]


@pytest.fixture(scope="module")
def fake_home(tmp_path_factory: pytest.TempPathFactory) -> FakeVLLM:
    return FakeVLLM(tmp_path_factory.mktemp("fakevllm"))


@pytest.fixture
def fake(fake_home: FakeVLLM, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeVLLM]:
    fake_home.reset()
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    yield fake_home
    _kill_recorded(fake_home)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A checkout (the working directory) whose PYTHONPATH entry points into itself."""
    checkout = tmp_path / "repo"
    (checkout / ".git").mkdir(parents=True)
    monkeypatch.chdir(checkout)
    monkeypatch.setenv("PYTHONPATH", str(checkout))
    monkeypatch.setenv("VLINT_VLLM_HOME", str(tmp_path / "no-cache"))
    monkeypatch.delenv("VLINT_VLLM_PYTHON", raising=False)
    return checkout


def _shadowing_vllm(checkout: Path, marker: Path) -> None:
    (checkout / "vllm").mkdir()
    (checkout / "vllm" / "__init__.py").write_text(
        f"open({str(marker)!r}, 'w').write('shadow vllm ran')\n")


def _plugin_dist_info(checkout: Path, marker: Path) -> None:
    info = checkout / "evil-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[vllm.general_plugins]\nevil = evilplugin:run\n")
    (checkout / "evilplugin.py").write_text(
        f"def run():\n    open({str(marker)!r}, 'w').write('plugin ran')\n")


def _confirm(capsys: pytest.CaptureFixture[str], fake: FakeVLLM, *args: str,
             level: str = "start") -> list[dict[str, Any]]:
    capsys.readouterr()
    code = main(["confirm", "--level", level, "--vllm-python", fake.python, "--isolated",
                 "--output-format", "json", "--exit-zero", "--target-version", "0.32.0",
                 *args])
    out = capsys.readouterr().out
    assert code in (0, None), out
    findings: list[dict[str, Any]] = json.loads(out)["findings"]
    return findings


def _kill_recorded(fake: FakeVLLM) -> None:
    for pid_file in fake.pids.glob("*"):
        try:
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()[0] == b"Z"
    except FileNotFoundError:
        return True


def _wait_gone(pids: list[int], seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if all(_gone(p) for p in pids):
            return True
        time.sleep(0.1)
    return False


# ---------------------------------------------------------------------------- discovery


def test_discovery_never_imports_a_repository_vllm_py(repo: Path) -> None:
    marker = repo.parent / "discovery-marker"
    (repo / "vllm.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    with pytest.raises(Exception, match="no Python with vLLM"):
        find_python(None, None)
    assert not marker.exists()


def test_discovery_never_runs_a_repository_python3(repo: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    marker = repo.parent / "python3-marker"
    fake_python = repo / "python3"
    fake_python.write_text(f"#!/bin/sh\necho ran > {marker}\nexit 0\n")
    fake_python.chmod(0o755)
    monkeypatch.setenv("PATH", f".:{repo}:{os.environ['PATH']}")
    try:
        python = find_python(None, None)
    except Exception:
        python = None
    assert not marker.exists()
    assert python is None or not python.python.startswith(str(repo))


# ---------------------------------------------------------------------------- the started process


def test_start_cannot_import_the_checkouts_vllm(repo: Path, fake: FakeVLLM,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    marker = repo.parent / "shadow-marker"
    _shadowing_vllm(repo, marker)
    (repo / "serve.sh").write_text(f"vllm serve m {FINDING}\n")
    _confirm(capsys, fake, "serve.sh")
    assert not marker.exists()
    (run,) = fake.runs()  # the fake vLLM outside the checkout was the one started
    assert run["isolated"] == 1
    assert not any(str(repo) in entry or entry in ("", ".") for entry in run["path"])


def test_start_cannot_load_the_checkouts_plugins(repo: Path, fake: FakeVLLM,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    marker = repo.parent / "plugin-marker"
    _plugin_dist_info(repo, marker)
    (repo / "serve.sh").write_text(f"vllm serve m {FINDING}\n")
    _confirm(capsys, fake, "serve.sh")
    assert len(fake.runs()) == 1
    assert not marker.exists()


def test_probe_runs_isolated_outside_the_checkout(repo: Path, fake: FakeVLLM,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    marker = repo.parent / "plugin-marker"
    _plugin_dist_info(repo, marker)
    (repo / "serve.sh").write_text(f"vllm serve m {FINDING}\n")
    _confirm(capsys, fake, "serve.sh", level="parse")
    runs = fake.runs()
    assert runs, "the probe never imported the fake vLLM"
    for run in runs:
        assert run["isolated"] == 1
        assert not Path(run["cwd"]).resolve().is_relative_to(repo.resolve())
        assert not any(str(repo) in entry for entry in run["path"])
        assert not any(str(repo) in value for value in run["env"].values())
        assert not set(SECRETS) & set(run["env"])
    assert not marker.exists()


def test_no_secret_reaches_the_server(repo: Path, fake: FakeVLLM,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "serve.sh").write_text(f"vllm serve m {FINDING}\n")
    _confirm(capsys, fake, "serve.sh")
    (run,) = fake.runs()
    env = run["env"]
    assert not set(SECRETS) & set(env)
    assert not any("SECRET" in value for value in env.values())
    assert "PYTHONPATH" not in env and "VIRTUAL_ENV" not in env
    assert env["HOME"] != os.environ.get("HOME")
    assert not Path(run["cwd"]).resolve().is_relative_to(repo.resolve())


# ---------------------------------------------------------------------------- what is refused

CODE_OPTIONS = [
    "--trust-remote-code",
    "--trust_remote_code",
    "--trust-remote",
    "--worker-cls evil.Worker",
    "--worker-cls=evil.Worker",
    "--worker-extension-cls evil.Ext",
    "--tool-parser-plugin parser.py",
    "--logits-processors evil.Proc",
    "--middleware evil.app",
    "--compilation-config '{\"backend\":\"evil.compile\"}'",
    "-O '{\"backend\":\"evil.compile\"}'",
    "--compilation-config {backend:evil.compile}",
    "--kv-transfer-config '{\"kv_connector\":\"X\",\"kv_connector_module_path\":\"evil\"}'",
]


@pytest.mark.parametrize("option", CODE_OPTIONS)
def test_code_loading_option_is_refused_by_default(option: str, repo: Path, fake: FakeVLLM,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "serve.sh").write_text(f"vllm serve m {FINDING} {option}\n")
    findings = _confirm(capsys, fake, "serve.sh")
    assert fake.runs() == []
    vl203 = [f for f in findings if f["code"] == "VL203"]
    assert vl203, findings
    confirmation = vl203[0]["confirmation"]
    assert confirmation["state"] == "unverified"
    assert "--unsafe-allow-code" in confirmation["message"]
    assert option.split()[0].split("=")[0] in confirmation["message"]

    fake.reset()
    _confirm(capsys, fake, "--unsafe-allow-code", "serve.sh")
    assert len(fake.runs()) == 1


def test_local_model_folder_with_python_is_refused(repo: Path, fake: FakeVLLM,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    model = repo / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    (model / "configuration_evil.py").write_text("raise SystemExit('ran')\n")
    (repo / "serve.sh").write_text(f"vllm serve {model} {FINDING}\n")
    findings = _confirm(capsys, fake, "serve.sh")
    assert fake.runs() == []
    (vl203,) = [f for f in findings if f["code"] == "VL203"]
    assert "Python files" in vl203["confirmation"]["message"]


def test_code_naming_vllm_variable_is_refused(repo: Path, fake: FakeVLLM,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "serve.sh").write_text(f"VLLM_PLUGINS=evil vllm serve m {FINDING}\n")
    findings = _confirm(capsys, fake, "serve.sh")
    assert fake.runs() == []
    (vl203,) = [f for f in findings if f["code"] == "VL203"]
    assert "VLLM_PLUGINS" in vl203["confirmation"]["message"]


def test_trust_remote_code_refused_by_the_engine_configuration_probe(
        repo: Path, fake: FakeVLLM, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "serve.sh").write_text(f"vllm serve m {FINDING} --trust-remote-code\n")
    findings = _confirm(capsys, fake, "serve.sh", level="config")
    (vl203,) = [f for f in findings if f["code"] == "VL203"]
    assert "--unsafe-allow-code" in vl203["confirmation"]["message"]


def test_every_address_is_loopback(repo: Path, fake: FakeVLLM,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "serve.sh").write_text(
        f"vllm serve m {FINDING} --host 0.0.0.0 --data-parallel-address 0.0.0.0\n")
    _confirm(capsys, fake, "serve.sh")
    (run,) = fake.runs()
    argv = run["argv"]
    assert "0.0.0.0" not in " ".join(argv)
    at = argv.index("--data-parallel-address")
    assert argv[at + 1] == "127.0.0.1"
    assert argv[argv.index("--host") + 1] == "127.0.0.1"


# ---------------------------------------------------------------------------- stopping

STUBBORN = """
import os, signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = "import os, signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); " \\
        "os.setsid(); open(sys.argv[1] + '/child', 'w').write(str(os.getpid())); time.sleep(120)"
subprocess.Popen([sys.executable, "-c", "import sys\\n" + child, sys.argv[1]])
open(sys.argv[1] + "/server", "w").write(str(os.getpid()))
time.sleep(120)
"""


def _pids(folder: Path, names: tuple[str, ...] = ("server", "child"),
          seconds: float = 30.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if all((folder / n).exists() and (folder / n).read_text() for n in names):
            return [int((folder / n).read_text()) for n in names]
        time.sleep(0.1)
    raise AssertionError(f"no pid files in {folder}")


def test_stop_group_ends_a_stubborn_server_and_its_setsid_child(tmp_path: Path) -> None:
    from vlint.confirm.start import stop_group

    script = tmp_path / "stubborn.py"
    script.write_text(STUBBORN)
    proc = subprocess.Popen([sys.executable, str(script), str(tmp_path)],
                            start_new_session=True)
    pids = _pids(tmp_path)
    try:
        began = time.monotonic()
        assert stop_group(proc, grace=1.0) is True
        assert time.monotonic() - began < 15
        assert _wait_gone(pids)
    finally:
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


ZOMBIE = """
import ctypes, subprocess, sys, time
sys.path[0:0] = sys.argv[1:]
from vlint.confirm.start import stop_group
libc = ctypes.CDLL(None)
assert libc.prctl(36, 1, 0, 0, 0) == 0  # a subreaper, as vlint confirm is (and PID 1 is)
leader = ("import os, signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
          "os.fork() == 0 and os._exit(0); time.sleep(120)")
proc = subprocess.Popen([sys.executable, "-c", leader], start_new_session=True)
time.sleep(1.0)  # the grandchild has exited: a zombie in the group
began = time.monotonic()
stop_group(proc, grace=1.0)
print(f"stopped in {time.monotonic() - began:.1f}s")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux only")
def test_stop_group_is_bounded_with_a_zombie_in_the_group(tmp_path: Path) -> None:
    script = tmp_path / "zombie.py"
    script.write_text(ZOMBIE)
    done = subprocess.run([sys.executable, str(script), str(ROOT / "linter"),
                           str(ROOT / "rules")], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert "stopped in" in done.stdout


def test_sigterm_to_vlint_confirm_stops_the_server(repo: Path, fake: FakeVLLM) -> None:
    (repo / "serve.sh").write_text(f"vllm serve m {FINDING}\n")
    fake.hang.write_text("1")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "linter"), str(ROOT / "rules")])
    vlint = subprocess.Popen(
        [sys.executable, "-m", "vlint", "confirm", "--level", "start", "--vllm-python",
         fake.python, "--isolated", "serve.sh"], cwd=repo, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        pids = _pids(fake.pids)
        vlint.send_signal(signal.SIGTERM)
        _, err = vlint.communicate(timeout=30)
        assert vlint.returncode == 2, err
        assert b"interrupted" in err
        assert _wait_gone(pids), "a process of the server outlived vlint confirm"
    finally:
        if vlint.poll() is None:
            vlint.kill()
            vlint.wait()


def test_probe_sandbox_keeps_the_interface_of_the_cached_env(tmp_path: Path) -> None:
    """The cached venv's PYTHONPATH (outside the checkout) reaches the probe as ``--path``."""
    from vlint.confirm import Probe

    sources = tmp_path / "src"
    sources.mkdir()
    python = VLLMPython(sys.executable, {"PYTHONPATH": str(sources)}, "test")
    (sources / "marker_module.py").write_text("")
    with Probe(python, timeout=60) as probe:
        reply = probe.ask({"op": "ping"})
        argv = Path(f"/proc/{probe.pid}/cmdline").read_text().split("\0")
    assert reply["probe_failure"] is True
    assert argv[1] == "-I" and argv[argv.index("--path") + 1] == str(sources)


# ---------------------------------------------------------------------------- what it prints


def test_notes_and_errors_on_stderr_are_escaped(repo: Path, fake: FakeVLLM,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A note quotes the file's path, which the repository chose (an OSC 52 clipboard write
    here); so does the start's line about what happened to the invocation."""
    folder = repo / "d\x1b]52;c;cHduZWQ=\x07"
    folder.mkdir()
    (folder / "Dockerfile").write_text(
        'FROM vllm/vllm-openai:latest\nCMD ["--model", "m", "--max-num-seqs", "1k"]\n')
    capsys.readouterr()
    code = main(["confirm", "--level", "start", "--vllm-python", fake.python, "--isolated",
                 "--output-format", "concise", "--exit-zero", str(folder.name)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "\x1b" not in err and "\x07" not in err
    assert "the image tag means the latest" in err
    assert "exited with 1" in err
