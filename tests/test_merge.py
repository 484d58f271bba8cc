"""The release merge (``vlint.engine.merge``): findings that differ only by their release are
one, and the release placeholder a rule wrote names the releases together."""

from __future__ import annotations

from pathlib import Path

from vlint.checks import rule
from vlint.checks.base import RELEASES, TEXT_MAX, rule_finding
from vlint.engine.lint import lint
from vlint.engine.merge import merge
from vlint.model import Finding, Pos, Span
from vlint.settings import Settings

SPAN = Span(Pos(1, 5), Pos(1, 10))
OTHER = Span(Pos(2, 1), Pos(2, 4))


def _finding(release: str, message: str, help_text: str = "help", code: str = "VL101",
             span: Span = SPAN) -> Finding:
    return rule_finding(rule(code), "run.sh", span, message, help_text,
                        vllm_versions=(release,))


def test_one_finding_names_its_release() -> None:
    (merged,) = merge([_finding("0.32.0", f"unknown flag '--x' in vLLM {RELEASES}",
                                f"see vLLM {RELEASES}'s --help")])
    assert merged.message == "unknown flag '--x' in vLLM 0.32.0"
    assert merged.help == "see vLLM 0.32.0's --help"
    assert merged.vllm_versions == ("0.32.0",)


def test_releases_are_named_together_in_release_order() -> None:
    message = f"unknown flag '--x' in vLLM {RELEASES}"
    merged = merge([_finding(v, message) for v in ("0.33.0", "0.31.0", "0.32.0")])
    assert [(f.message, f.vllm_versions) for f in merged] == [
        ("unknown flag '--x' in vLLM 0.31.0 to 0.33.0", ("0.31.0", "0.32.0", "0.33.0"))]
    two = merge([_finding(v, message) for v in ("0.33.0", "0.31.0")])
    assert [f.message for f in two] == ["unknown flag '--x' in vLLM 0.31.0 and 0.33.0"]
    gap = merge([_finding(v, message) for v in ("0.30.0", "0.31.0", "0.33.0")])
    assert [f.message for f in gap] == ["unknown flag '--x' in vLLM 0.30.0, 0.31.0, 0.33.0"]


def test_different_problems_stay_apart_in_their_first_order() -> None:
    message = f"m in vLLM {RELEASES}"
    findings = [
        _finding("0.31.0", message, span=OTHER),
        _finding("0.31.0", message),
        _finding("0.32.0", message, span=OTHER),
        _finding("0.32.0", message, help_text="another help"),
        _finding("0.32.0", message, code="VL103"),
        _finding("0.32.0", "written without a release"),
        _finding("0.33.0", "written without a release"),
    ]
    merged = merge(findings)
    assert [(f.code, f.span, f.help, f.message, f.vllm_versions) for f in merged] == [
        ("VL101", OTHER, "help", "m in vLLM 0.31.0 and 0.32.0", ("0.31.0", "0.32.0")),
        ("VL101", SPAN, "help", "m in vLLM 0.31.0", ("0.31.0",)),
        ("VL101", SPAN, "another help", "m in vLLM 0.32.0", ("0.32.0",)),
        ("VL103", SPAN, "help", "m in vLLM 0.32.0", ("0.32.0",)),
        ("VL101", SPAN, "help", "written without a release", ("0.32.0", "0.33.0")),
    ]


def test_written_text_that_looks_like_a_release_is_left_alone(tmp_path: Path) -> None:
    # Regression: the merge replaced 'vLLM <release>' anywhere in the text, the quoted argument
    # included, so the two releases' findings differed and were reported twice
    # ("... 'vLLM 0.32.0': vLLM 0.32.0 takes ..." and "... 'vLLM 0.32.0': vLLM 0.33.0 takes ...").
    script = tmp_path / "run.sh"
    script.write_text('vllm serve facebook/opt-125m "vLLM 0.32.0"\n', "utf-8")
    report = lint([str(script)], Settings(target=">=0.32.0,<=0.33.0"))
    found = [(f.code, f.message, f.vllm_versions) for f in report.findings if f.code == "VL107"]
    assert found == [("VL107", "unexpected argument 'vLLM 0.32.0': vLLM 0.32.0 and 0.33.0 takes "
                      "one model", ("0.32.0", "0.33.0"))]


def test_an_elided_message_never_cuts_the_placeholder() -> None:
    for before in range(TEXT_MAX - 12, TEXT_MAX + 2):
        message = "x" * before + f" in vLLM {RELEASES} and more text after it"
        (merged,) = merge([_finding("0.32.0", message)])
        assert "\0" not in merged.message, before
        assert merged.message.endswith("…")
        assert len(merged.message) <= TEXT_MAX + len("0.32.0")
