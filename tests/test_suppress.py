"""Inline suppressions: every form, prefixes, placement, file-level, Kubernetes annotations,
unused suppressions (VL001) and how they meet select / ignore."""

from __future__ import annotations

from pathlib import Path

import pytest

from vlint.engine.lint import lint
from vlint.settings import Settings
from vlint.model import Finding, Pos, Span
from vlint.filter.suppress import annotation_directives, apply, directives

ROOT = Path(__file__).parent.parent
# In vLLM 0.33.0: VL202 at column 39 ('16k'), VL101 at 43 ('--swap-are=1'), VL107 at 56 ('4').
LAUNCH = "vllm serve m --max-num-batched-tokens 16k --swap-are=1 4"


def _lint(tmp_path: Path, text: str, name: str = "run.sh", **options: object) -> list[str]:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    report = lint([str(path)], Settings(target="0.33.0", **options))  # type: ignore[arg-type]
    return [f"{f.span.start.line}:{f.span.start.column} {f.code}" for f in report.findings]


def test_same_line(tmp_path: Path) -> None:
    text = f"{LAUNCH}  # vlint: ignore[VL202] 16,000 is meant\n"
    assert _lint(tmp_path, text) == ["1:43 VL101", "1:56 VL107"]


def test_several_codes_and_a_prefix(tmp_path: Path) -> None:
    assert _lint(tmp_path, f"{LAUNCH}  # vlint: ignore[VL202, vl107]\n") == ["1:43 VL101"]
    assert _lint(tmp_path, f"{LAUNCH}  # vlint: ignore[VL1]\n") == ["1:39 VL202"]


def test_bare_ignore_covers_every_code(tmp_path: Path) -> None:
    assert _lint(tmp_path, f"{LAUNCH}  # vlint: ignore\n") == []


def test_line_above_when_alone_on_its_line(tmp_path: Path) -> None:
    text = f"  # vlint: ignore[VL1] reason\n{LAUNCH}\n{LAUNCH}\n"
    assert _lint(tmp_path, text) == ["2:39 VL202", "3:39 VL202", "3:43 VL101", "3:56 VL107"]


def test_a_trailing_comment_does_not_cover_the_next_line(tmp_path: Path) -> None:
    text = f"echo start  # vlint: ignore[VL202]\n{LAUNCH}\n"
    assert _lint(tmp_path, text) == [
        "1:29 VL001", "2:39 VL202", "2:43 VL101", "2:56 VL107"]


def test_a_multi_line_launch_is_covered_where_each_finding_starts(tmp_path: Path) -> None:
    text = (
        "# vlint: ignore[VL202]\n"
        "vllm serve m --max-num-batched-tokens 16k \\\n"
        "  --max-model-len 8k  # vlint: ignore[VL202]\n"
    )
    assert _lint(tmp_path, text) == []


@pytest.mark.parametrize(
    "directive",
    ["# vlint: ignore-file[VL2,VL107]", "<!-- vlint: ignore-file[VL2, VL107] -->"],
)
def test_file_level_anywhere_in_the_file(tmp_path: Path, directive: str) -> None:
    text = f"{LAUNCH}\necho\n{LAUNCH}\n{directive}\n"
    assert _lint(tmp_path, text) == ["1:43 VL101", "3:43 VL101"]


def test_python_comments(tmp_path: Path) -> None:
    text = (
        "from vllm import LLM\n"
        "llm = LLM(model='m', max_num_seqs='8')  # vlint: ignore[VL207]\n"
        "# vlint: ignore[VL106]\n"
        "other = LLM(model='m', max_num_sequences=8)\n"
    )
    assert _lint(tmp_path, text, "serve.py") == []


def test_yaml_comments_in_compose(tmp_path: Path) -> None:
    text = (
        "services:\n"
        "  llm:\n"
        "    image: vllm/vllm-openai:v0.33.0\n"
        "    # vlint: ignore[VL202]\n"
        '    command: ["m", "--max-num-batched-tokens", "16k"]\n'
        '  other:\n'
        '    image: vllm/vllm-openai:v0.33.0\n'
        '    command: ["m", "--max-num-batched-tokens", "16k"]\n'
    )
    # (VL501 reports these containers' implicit public bind; not what this test is about.)
    found = [f for f in _lint(tmp_path, text, "compose.yaml") if not f.endswith("VL501")]
    assert found == ["8:49 VL202"]


def test_html_comment_form_by_line() -> None:
    text = "Run:\n<!-- vlint: ignore[VL202] example -->\nvllm serve m --max-model-len 16k\n"
    (directive,) = directives("README.md", text)
    assert (directive.first_line, directive.last_line) == (2, 3)
    assert [(e.code, e.span.start) for e in directive.entries] == [("VL202", Pos(2, 20))]


def test_codes_that_are_not_codes_are_unknown_codes(tmp_path: Path) -> None:
    # Every word in the brackets is an entry (a rule name as its code); apply() reports those
    # that name nothing as VL001, and they suppress nothing.
    (directive,) = directives("run.sh", "x  # vlint: ignore[E501, VL2, unknown-flag]\n")
    assert [e.code for e in directive.entries] == ["E501", "VL2", "VL101"]
    text = f"{LAUNCH}  # vlint: ignore[E501]\n"
    found = _lint(tmp_path, text)
    assert "1:43 VL101" in found and "1:75 VL001" in found
    (unknown,) = [f for f in lint([str(tmp_path / "run.sh")], Settings(target="0.33.0")).findings
                  if f.code == "VL001"]
    assert unknown.message == "unknown code 'E501' in a suppression"


def test_unused_suppression_points_at_the_code(tmp_path: Path) -> None:
    text = f"{LAUNCH}  # vlint: ignore[VL202,VL301] reason\n"
    assert _lint(tmp_path, text) == ["1:43 VL101", "1:56 VL107", "1:81 VL001"]
    path = tmp_path / "run.sh"
    (unused,) = [f for f in lint([str(path)], Settings(target="0.33.0")).findings
                 if f.code == "VL001"]
    assert (unused.name, unused.severity) == ("unused-suppression", "warning")
    assert unused.message == "unused suppression for 'VL301'"
    assert unused.span == Span(Pos(1, 81), Pos(1, 86))


def test_unused_in_a_file_without_findings(tmp_path: Path) -> None:
    text = "vllm serve m --max-num-seqs 8  # vlint: ignore\n"
    assert _lint(tmp_path, text) == ["1:41 VL001"]


def test_unused_only_for_selected_codes(tmp_path: Path) -> None:
    text = f"{LAUNCH}  # vlint: ignore[VL202,VL301]\n"
    assert _lint(tmp_path, text, ignore=("VL301",)) == ["1:43 VL101", "1:56 VL107"]
    assert _lint(tmp_path, text, select=("VL0", "VL1")) == ["1:43 VL101", "1:56 VL107"]
    assert _lint(tmp_path, text, per_file_ignores=(("*.sh", ("VL3",)),),
                 config_dir=str(tmp_path)) == ["1:43 VL101", "1:56 VL107"]


def test_vl001_is_silenced_only_by_ignore(tmp_path: Path) -> None:
    text = f"{LAUNCH}  # vlint: ignore[VL301]\n# vlint: ignore-file[VL001]\n"
    assert _lint(tmp_path, text, select=("VL0", "VL3")) == ["1:75 VL001", "2:22 VL001"]
    assert _lint(tmp_path, text, ignore=("VL001", "VL1", "VL2")) == []


def test_suppression_before_select(tmp_path: Path) -> None:
    text = f"{LAUNCH}  # vlint: ignore[VL202]\n"
    assert _lint(tmp_path, text, select=("VL2",)) == []
    assert _lint(tmp_path, text, select=("VL2", "VL0")) == []
    assert _lint(tmp_path, text, select=("VL1", "VL0")) == ["1:43 VL101", "1:56 VL107"]


K8S = """\
apiVersion: v1
kind: Pod
metadata:
  name: a
  annotations:
    vlint.dev/ignore: "VL202, VL105"
spec:
  containers:
    - args: ["--max-num-batched-tokens", "16k"]
---
apiVersion: v1
kind: Pod
metadata:
  name: b
spec:
  containers:
    - args: ["--max-num-batched-tokens", "16k"]
---
metadata:
  annotations: {vlint.dev/ignore: VL3}
"""


def test_kubernetes_annotation_covers_its_document_only() -> None:
    first, last = annotation_directives(K8S)
    assert (first.first_line, first.last_line) == (1, 10)
    assert [(e.code, e.span.start) for e in first.entries] == [
        ("VL202", Pos(6, 24)), ("VL105", Pos(6, 31))]
    assert last.first_line == 19
    assert [(e.code, e.span.start) for e in last.entries] == [("VL3", Pos(20, 35))]


def _finding(line: int, code: str = "VL202", path: str = "pod.yaml") -> Finding:
    span = Span(Pos(line, 43), Pos(line, 46))
    return Finding(code, "n", "warning", "m", "h", path, span)


def test_kubernetes_annotation_applies_to_yaml_findings() -> None:
    kept = apply([_finding(9), _finding(17)], {"pod.yaml": K8S}, lambda path, code: True)
    assert [(f.code, f.span.start.line) for f in kept] == [
        ("VL202", 17), ("VL001", 6), ("VL001", 20)]
    assert apply([_finding(9)], {"pod.sh": K8S}, lambda path, code: True) == [
        _finding(9)]  # (a path that is not YAML: annotations are not read)


def test_invalid_yaml_has_no_annotation_directives() -> None:
    assert annotation_directives("metadata: [\nvlint.dev/ignore: VL2\n") == []


def test_the_readme_documents_suppressions_and_configuration() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    suppressions = readme.split("## Suppressions", 1)[1].split("\n## ", 1)[0]
    for syntax in ("# vlint: ignore[VL202]", "# vlint: ignore-file[", "<!-- vlint: ignore[...] -->",
                   "vlint.dev/ignore", "VL001", "unused-suppression", "alone"):
        assert syntax in suppressions
    configuration = readme.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    for key in ("target-version", "select", "extend-select", "ignore", "per-file-ignores",
                "exclude", "severity", "fail-on", "vlint.toml", ".vlint.toml", "[tool.vlint]",
                "--config", "--isolated", "invalid config:"):
        assert key in configuration


FENCED = "```bash\nvllm serve m \\\n  --max-num-batched-tokens 16k\n```\n"


def test_html_comment_right_above_a_markdown_fence_covers_the_block(tmp_path: Path) -> None:
    text = f"# Serve\n\n<!-- vlint: ignore[VL202] 16,000 is meant -->\n{FENCED}\n{FENCED}"
    # The first block (lines 4-7) is covered to its closing fence; the second (9-12) is not.
    assert _lint(tmp_path, text, "README.md") == ["11:28 VL202"]


def test_html_comment_above_a_fence_in_a_list_item(tmp_path: Path) -> None:
    indented = "".join(f"   {line}\n" for line in FENCED.splitlines())
    text = f"1. Start it:\n\n   <!-- vlint: ignore[VL202] -->\n{indented}"
    assert _lint(tmp_path, text, "README.md") == []


def test_html_comment_with_a_blank_line_before_the_fence_covers_only_the_next_line(
    tmp_path: Path,
) -> None:
    text = f"<!-- vlint: ignore[VL202] -->\n\n{FENCED}"
    assert _lint(tmp_path, text, "README.md") == ["1:20 VL001", "5:28 VL202"]


def test_a_fence_comment_that_covers_nothing_is_unused(tmp_path: Path) -> None:
    text = f"<!-- vlint: ignore[VL101] -->\n{FENCED}"
    assert _lint(tmp_path, text, "README.md") == ["1:20 VL001", "4:28 VL202"]
