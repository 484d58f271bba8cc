"""Everything vlint prints is escaped for its channel: hostile file names and values (terminal
escapes, workflow commands, non-UTF-8 bytes) go through every format and stream, under GitHub
Actions and outside it, and come out inert; messages never quote a secret VL503 masks."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests._support.run import vlint_main
from vlint.knowledge import catalog
from vlint.cli import main
from vlint.render import escape

SCHEMA = Path(__file__).resolve().parents[3] / "shared" / "schemas" / "sarif-schema-2.1.0.json"
OSC52 = "\x1b]52;c;cHduZWQ=\x07"
# The values: an OSC 52 clipboard write, a CSI colour, the 8-bit CSI, a workflow command after a
# newline, a legacy ``##[`` command; each is reported (VL201) or shown in a code frame.
SCRIPT = (
    "vllm serve m --max-model-len 16k --dtype 'a" + OSC52 + "b' \\\n"
    "  --max-num-seqs $'x\\n::warning::pwned' \\\n"
    "  --kv-cache-dtype '\x1b[31mred\x9b0m' --block-size '##[add-mask]b'  # \x1b]8;;http://x\x07\n"
)
NAMES = (
    b"::add-mask::x.sh",
    b"::stop-commands::tok.sh",
    b"a\n::warning file=x::pwned.sh",
    b"e\x1b[31mred.sh",
    b"o" + OSC52.encode() + b".sh",
    b"c\x9bm.sh",
    b"##[add-mask]l.sh",
    b"bad\xff\xfe.sh",
)
# vlint's own annotations: escaped properties (no raw ':' or ','), then '::' and the data.
ANNOTATION = re.compile(
    r"::(error|warning|notice) file=[^:,]*,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,"
    r"title=VL\d{3} [a-z0-9-]+::"
)
FORMATS = ("full", "concise", "json", "sarif", "github")


def _hostile_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "repo"
    folder.mkdir()
    for name in NAMES:
        with open(os.path.join(os.fsencode(folder), name), "wb") as handle:
            handle.write(SCRIPT.encode("utf-8"))
    # Skipped with a note that names the file.
    with open(os.path.join(os.fsencode(folder), b"::add-mask::\n::error::n\x1b]52;c;x\x07.sh"),
              "wb") as handle:
        handle.write(b"vllm serve m \xff\n")
    return folder


def _assert_inert(text: str, commands_allowed: bool) -> None:
    for bad in ("\x1b", "\x9b", "\x07", "##["):
        assert bad not in text, (bad, text)
    assert not re.search("[\ud800-\udfff]", text)
    for line in text.split("\n"):
        if line.lstrip().startswith("::"):
            assert commands_allowed and ANNOTATION.match(line), line


def _schema() -> dict[str, Any]:
    if not SCHEMA.exists():
        pytest.skip(f"{SCHEMA} is not here")
    schema: dict[str, Any] = json.loads(SCHEMA.read_text("utf-8"))
    return schema


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    return vlint_main(capsys, "--isolated", "--target-version", str(catalog.newest()), *argv)


@pytest.mark.parametrize("actions", [True, False], ids=["actions", "terminal"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_hostile_names_and_values_in_every_format(
    fmt: str, actions: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = _hostile_folder(tmp_path)
    monkeypatch.chdir(folder)  # paths are then relative: they start with '::'
    if actions:
        monkeypatch.setenv("GITHUB_ACTIONS", "true")
    else:
        monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    code, out, err = _run(capsys, "--output-format", fmt, "--unsafe-fixes", ".")
    assert code == 1, err
    _assert_inert(out, commands_allowed=fmt == "github")
    _assert_inert(err, commands_allowed=False)
    assert "skipped (not UTF-8)" in (out + err)
    assert "unsafe fix available" in (out + err)
    if fmt == "json":
        findings = json.loads(out)["findings"]
        assert {f["code"] for f in findings} >= {"VL201", "VL202"}
        assert len({f["path"] for f in findings}) == len(NAMES)
    if fmt == "sarif":
        document = json.loads(out)
        jsonschema.validate(document, _schema())
        uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                for r in document["runs"][0]["results"]}
        assert "bad%FF%FE.sh" in uris and len(uris) == len(NAMES)
    if fmt == "github":
        assert out.count("\n") == len(out.splitlines()) and ANNOTATION.match(out)


def test_output_files_are_valid_utf8_json(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _hostile_folder(tmp_path)
    monkeypatch.chdir(folder)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    code, _, err = _run(capsys, "--output-format", "concise", "--output",
                        f"sarif:{out_dir / 'v.sarif'}", "--output", f"json:{out_dir / 'v.json'}",
                        ".")
    assert code == 1, err
    for name in ("v.sarif", "v.json"):
        text = (out_dir / name).read_bytes().decode("utf-8")
        _assert_inert(text, commands_allowed=False)
        json.loads(text)


@pytest.mark.parametrize("actions", [True, False], ids=["actions", "terminal"])
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_show_escapes_names_and_values(
    fmt: str, actions: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = _hostile_folder(tmp_path)
    monkeypatch.chdir(folder)
    if actions:
        monkeypatch.setenv("GITHUB_ACTIONS", "true")
    else:
        monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    code = main(["show", "--target-version", str(catalog.newest()), "--format", fmt, "."])
    out, err = capsys.readouterr()
    assert code == 0, err
    _assert_inert(out, commands_allowed=False)
    _assert_inert(err, commands_allowed=False)
    if fmt == "json":
        assert len(json.loads(out)["invocations"]) >= len(NAMES)
    else:
        assert out.count(": vllm serve, model ") >= len(NAMES)


def test_terminal_escape_makes_every_control_visible() -> None:
    assert escape.terminal("a\x1b[31mb\x9bc\x07d\ne\tf\x7f") == "a\\x1b[31mb\\x9bc\\x07d\\ne\\tf\\x7f"
    assert escape.terminal("bad\udcff.sh") == "bad\\xff.sh"
    assert escape.terminal("\u202eevil") == "\\u202eevil"
    assert escape.terminal("plain é ✓") == "plain é ✓"


def test_plain_lines_are_never_workflow_commands() -> None:
    assert escape.plain_line("::add-mask::x") == "\\::add-mask::x"
    assert escape.plain_line("  ::warning::x") == "\\  ::warning::x"
    assert escape.plain_line("a ##[add-mask]x") == "a ##\\[add-mask]x"
    assert escape.plain_text("ok\n::error::x") == "ok\n\\::error::x"


def test_github_escaping_as_documented() -> None:
    assert escape.github_data("100% a\r\nb\x1b") == "100%25 a%0D%0Ab\\x1b"
    assert escape.github_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_json_text_is_valid_unicode() -> None:
    assert escape.json_text("bad\udcff") == "bad\ufffd"
    assert json.loads(escape.json_dumps({"a": "##[x\udcff"})) == {"a": "##[x\ufffd"}
    assert "##[" not in escape.json_dumps({"a": "##[x"})


# -- secrets: VL107, VL109 and VL201 quote values; a secret among them is masked as VL503 does --

KEY = "sk-proj-Abcdefghijklmnopqrstuvwx0123"
API_KEY = "s3cr3t-k3y-value-17"


@pytest.mark.parametrize(("code", "script", "secrets"), [
    ("VL107", f"vllm serve m {KEY}\n", [KEY]),
    ("VL109", f"vllm serve m --api-key {API_KEY} --api-key={API_KEY}x\n", [API_KEY]),
    ("VL109", f"vllm serve m --api-key {KEY} --api-key other-k3y-value-18\n",
     [KEY, "other-k3y-value-18"]),
    ("VL201", f"vllm serve m --max-num-seqs {KEY}\n", [KEY]),
], ids=["VL107-positional", "VL109-api-key", "VL109-pattern", "VL201-invalid-value"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_messages_mask_secrets(
    code: str, script: str, secrets: list[str], fmt: str, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "run.sh"
    path.write_text(script, "utf-8")
    # Without VL503, whose masks would otherwise cover the code frame.
    status, out, err = _run(capsys, "--output-format", fmt, "--select", code, str(path))
    assert status == 1 and code in out, err
    for secret in secrets:
        assert secret not in out + err
        assert secret[:12] not in out + err
    assert "(masked)" in out


def _span_text(path: Path, finding: dict[str, Any]) -> str:
    line: str = path.read_text("utf-8").split("\n")[finding["line"] - 1]
    assert finding["end_line"] == finding["line"]
    return line[finding["column"] - 1 : finding["end_column"] - 1]


@pytest.mark.parametrize(("name", "source"), [
    ("docker-compose.yml",
     'services:\n  vllm:\n    image: vllm/vllm-openai:v0.32.0\n'
     '    command: ["my-model", "--trust-remote-code"]\n'),
    ("launch.py", 'import subprocess\nsubprocess.run(["vllm", "serve", "m", "--trust-remote-code"])\n'),
    ("run.sh", "vllm serve m '--trust-remote-code'\n"),
])
def test_trust_remote_code_span_is_the_flag(
    name: str, source: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / name
    path.write_text(source, "utf-8")
    status, out, err = _run(capsys, "--output-format", "json", "--select", "VL502", str(path))
    findings = json.loads(out)["findings"]
    assert status == 1 and len(findings) == 1, err
    assert _span_text(path, findings[0]) == "--trust-remote-code"


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_show_reads_nothing_outside_the_linted_folder(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "outside.sh").write_text("vllm serve outside-model --max-num-seqs 7\n", "utf-8")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "run.sh").symlink_to(tmp_path / "outside.sh")
    os.mkfifo(repo / "fifo.sh")  # a FIFO would block an open() forever
    code = main(["show", "--target-version", str(catalog.newest()), "--format", fmt, str(repo)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "max_num_seqs" not in out and "run.sh" in out + err
