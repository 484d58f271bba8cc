"""The README's rule table and docs/rules.md are generated from the registry
(``python -m vlint.commands.docs``), and are fresh."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vlint.checks import RULES
from vlint.checks.docs import REFRESH, README_BEGIN, README_END, readme_table, with_readme_table
from vlint.commands import docs as docs_command

ROOT = Path(__file__).resolve().parent.parent


def test_the_generated_files_are_the_repository_s() -> None:
    # Regression: after the move into vlint/checks/, docs/rules.md was looked for in linter/docs/.
    assert docs_command.RULES_MD == ROOT / "docs" / "rules.md"
    assert docs_command.README == ROOT / "README.md"
    assert docs_command.RULES_MD.is_file() and docs_command.README.is_file()


def test_the_readme_rule_table_is_fresh() -> None:
    readme = docs_command.README.read_text("utf-8")
    assert with_readme_table(readme) == readme, f"README.md is stale: run `{REFRESH}`"
    assert docs_command.stale() == []
    assert docs_command.main(["--check"]) == 0


def test_the_table_has_one_row_per_rule_in_code_order() -> None:
    rows = [line for line in readme_table().splitlines() if line.startswith("| [VL")]
    assert [row.split("]")[0].removeprefix("| [") for row in rows] == list(RULES)
    for row, module in zip(rows, RULES.values()):
        rule = module.RULE
        assert f"(docs/rules.md#{rule.code.lower()}) | {rule.name} | {rule.severity} | " in row
    assert "| VL001" not in readme_table()  # codes are links to their documentation
    unused, stage = rows[0], rows[-1]
    assert unused.endswith("| the filter stage |") and stage.endswith("| `vlint confirm` |")


def test_the_command_writes_what_check_asks_for(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    readme, rules_md = tmp_path / "README.md", tmp_path / "rules.md"
    readme.write_text(f"# x\n\n## Rules\n\n{README_BEGIN}\nstale row\n{README_END}\n\nafter\n",
                      "utf-8")
    monkeypatch.setattr(docs_command, "README", readme)
    monkeypatch.setattr(docs_command, "RULES_MD", rules_md)
    assert docs_command.main(["--check"]) == 1
    assert docs_command.main([]) == 0
    assert docs_command.main(["--check"]) == 0
    text = readme.read_text("utf-8")
    assert text.startswith("# x\n\n## Rules\n\n" + README_BEGIN) and text.endswith("after\n")
    assert "stale row" not in text and "| [VL504](docs/rules.md#vl504) |" in text
    assert rules_md.read_text("utf-8").startswith(
        "<!-- Generated from the rule modules by `python -m vlint.commands.docs`")
    readme.write_text(text.replace("| unknown-flag |", "| unknown-flags |"), "utf-8")
    assert docs_command.main(["--check"]) == 1
    assert docs_command.main(["--bogus"]) == 2


def test_a_readme_without_the_markers_is_refused() -> None:
    with pytest.raises(ValueError, match="marker"):
        with_readme_table("# no table here\n")


def test_every_file_contributing_names_exists() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text("utf-8")
    quoted = re.findall(r"`(?:python |\.venv/bin/python )?([^`\s]+/[^`\s]*)", text)
    named = {path for path in quoted if not set(path) & set("<*")}  # not a pattern
    assert len(named) > 40, named
    missing = sorted(path for path in named if not (ROOT / path).exists())
    assert missing == []
    for heading in ("## Adding a rule", "## Adding an input kind", "## Adding an output format",
                    "## Adding a vLLM release"):
        assert f"\n{heading}\n" in text
