"""Rule documentation from the rule modules: summaries, help links and ``docs/rules.md``.

``python -m vlint.docs`` rewrites ``docs/rules.md``; ``python -m vlint.docs --check`` fails when
the committed file differs from what the rule modules say.
"""

from __future__ import annotations

import inspect
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

from vlint.checks import all_rules
from vlint.checks.base import RuleModule

DOCS_URL = "https://github.com/vlint/vlint/blob/main/docs/rules.md"
RULES_MD = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
REFRESH = "python -m vlint.docs"


def documentation(module: RuleModule) -> str:
    """The rule's user documentation: its module docstring, dedented, without outer blanks."""
    return inspect.cleandoc(module.__doc__ or "")


def summary(module: RuleModule) -> str:
    """The body of the first section (``What it does``), on one line."""
    paragraphs = documentation(module).split("\n\n")
    body = paragraphs[0].splitlines()[1:] or paragraphs[0].splitlines()
    return " ".join(line.strip() for line in body)


def anchor(code: str) -> str:
    return code.lower()


def help_uri(code: str) -> str:
    return f"{DOCS_URL}#{anchor(code)}"


def explain(code: str) -> str:
    """What ``vlint rule CODE`` prints: the rule's header line and its documentation."""
    from vlint.checks import rule_module

    module = rule_module(code)
    rule = module.RULE
    header = f"{rule.code} {rule.name} ({rule.severity}; fix: {rule.fix}; since {rule.since})"
    return f"{header}\n\n{documentation(module)}\n"


def listing() -> str:
    """What ``vlint rules`` prints: one line per rule."""
    modules = all_rules()
    width = max(len(m.RULE.name) for m in modules)
    lines = [
        f"{m.RULE.code}  {m.RULE.name:<{width}}  {m.RULE.severity:<7}  {summary(m)}"
        for m in modules
    ]
    return "\n".join(lines) + "\n"


def _sections_markdown(module: RuleModule) -> list[str]:
    out: list[str] = []
    for section in documentation(module).split("\n\n"):
        title, _, body = section.partition("\n")
        if title and not title[0].isspace() and body:
            out += [f"**{title}**", "", textwrap.dedent(body), ""]
        else:
            out += [textwrap.dedent(section), ""]
    return out


def _rule_markdown(module: RuleModule) -> list[str]:
    rule = module.RULE
    meta = f"`{rule.name}` · {rule.severity} · fix: {rule.fix} · since vlint {rule.since}"
    return [f"## {rule.code}", "", meta, "", *_sections_markdown(module)]


def markdown() -> str:
    """The whole of ``docs/rules.md``."""
    modules = all_rules()
    out = [
        f"<!-- Generated from the rule modules by `{REFRESH}`; do not edit by hand. -->",
        "",
        "# vlint rules",
        "",
        "| code | name | severity | fix | what it does |",
        "|---|---|---|---|---|",
    ]
    for m in modules:
        r, cell = m.RULE, summary(m).replace("|", r"\|")
        out.append(f"| [{r.code}](#{anchor(r.code)}) | {r.name} | {r.severity} | {r.fix} | {cell} |")
    out.append("")
    for m in modules:
        out += _rule_markdown(m)
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    wanted = markdown()
    if args == ["--check"]:
        current = RULES_MD.read_text("utf-8") if RULES_MD.exists() else ""
        if current != wanted:
            print(f"{RULES_MD} is stale: run `{REFRESH}`", file=sys.stderr)
            return 1
        return 0
    from vlint.outputs import write_atomically

    write_atomically(RULES_MD, wanted)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
