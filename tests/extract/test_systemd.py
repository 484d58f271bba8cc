from __future__ import annotations

import pytest

from vlint.discover import kind_of
from vlint.errors import Unparsable
from vlint.extract.systemd import extract
from vlint.model import Invocation, Pos, Span


def one(text: str) -> Invocation:
    found = extract("vllm.service", text)
    assert len(found) == 1, found
    return found[0]


def span(a: tuple[int, int], b: tuple[int, int]) -> Span:
    return Span(Pos(*a), Pos(*b))


def test_kind() -> None:
    assert kind_of("/etc/systemd/system/vllm.service", b"[Service]\n") == "systemd"


def test_exec_start_with_prefix_continuation_and_environment() -> None:
    text = (
        "[Service]\n"
        'Environment="VLLM_LOGGING_LEVEL=DEBUG" HF_HOME=/srv/hf\n'
        "ExecStart=-/opt/venv/bin/vllm serve m \\\n"
        "# dropped comment\n"
        "    --max-num-seqs 8\n"
    )
    invocation = one(text)
    assert invocation.kind == "systemd"
    assert [t.text for t in invocation.args] == ["m", "--max-num-seqs", "8"]
    assert invocation.anchor == span((3, 12), (3, 36))
    assert invocation.args[0].span == span((3, 37), (3, 38))
    assert invocation.args[1].span == span((5, 5), (5, 19))
    assert invocation.args[2].span == span((5, 20), (5, 21))
    level = invocation.env["VLLM_LOGGING_LEVEL"]
    assert level.text == "DEBUG"
    assert level.sub_span(0) == span((2, 33), (2, 38))
    assert invocation.env["HF_HOME"].span == span((2, 48), (2, 55))


def test_only_service_section_and_empty_assignment_resets() -> None:
    text = (
        "[Unit]\n"
        "ExecStart=vllm serve unit-section\n"
        "[Service]\n"
        "Environment=A=1\n"
        "Environment=\n"
        "ExecStart=vllm serve old\n"
        "ExecStart=\n"
        "ExecStart=vllm serve new\n"
    )
    invocation = one(text)
    assert [t.text for t in invocation.args] == ["new"]
    assert invocation.env == {}


def test_at_prefix_drops_argv0() -> None:
    text = "[Service]\nExecStart=@/usr/bin/vllm vllm-server serve m --port 1\n"
    invocation = one(text)
    assert [t.text for t in invocation.args] == ["m", "--port", "1"]
    assert invocation.args[0].span == span((2, 44), (2, 45))


def test_bash_lc_inside_exec_start() -> None:
    text = "[Service]\nExecStart=/bin/bash -lc 'exec vllm serve m --max-num-seqs 2'\n"
    invocation = one(text)
    assert [t.text for t in invocation.args] == ["m", "--max-num-seqs", "2"]
    assert invocation.args[1].span == span((2, 44), (2, 58))


def test_unterminated_quote_is_unparsable() -> None:
    with pytest.raises(Unparsable) as raised:
        extract("x.service", '[Service]\nExecStart=vllm serve "m --port 1\n')
    assert raised.value.where == Pos(2, 22)


def test_an_environment_file_leaves_the_environment_incomplete_and_its_values_unknown() -> None:
    text = ("[Service]\nEnvironment=VLLM_PORT=8000\nEnvironmentFile=-/etc/default/vllm\n"
            "ExecStart=/usr/bin/vllm serve m\n")
    (launch,) = extract("vllm.service", text)
    assert launch.env_unknown
    assert launch.env["VLLM_PORT"].text == "8000" and not launch.env["VLLM_PORT"].literal
    assert "VLLM_PORT" in launch.env_names
    (plain,) = extract("vllm.service", text.replace("EnvironmentFile=-/etc/default/vllm\n", ""))
    assert not plain.env_unknown and plain.env["VLLM_PORT"].literal
