"""Rule documentation from the rule modules: summaries, help links, the text of ``vlint rule``
and ``vlint rules``, ``docs/rules.md`` and the README's rule table.

``python -m vlint.commands.docs`` writes the two generated files (``--check`` fails when they are
stale).
"""

from __future__ import annotations

import inspect
import os
import shutil
import sys
import textwrap
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from vlint.checks import all_rules, rule_module
from vlint.checks.base import RuleModule, Scope

if TYPE_CHECKING:
    from vlint.policy.policies import Policy

DOCS_URL = "https://github.com/vlint/vlint/blob/main/docs/rules.md"
REFRESH = "python -m vlint.commands.docs"


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


def sections(module: RuleModule) -> dict[str, str]:
    """The documentation's sections (``What it does`` ...) by title, bodies dedented."""
    found: dict[str, str] = {}
    for section in documentation(module).split("\n\n"):
        title, _, body = section.partition("\n")
        if title and not title[0].isspace() and body:
            found[title] = textwrap.dedent(body)
        elif found:
            last = next(reversed(found))
            found[last] += "\n\n" + textwrap.dedent(section)
    return found


def plain(text: str) -> str:
    """reST inline markup as plain text: ````code```` is code."""
    return text.replace("``", "")


# Sections shown line for line (commands, one reference per line), never rewrapped.
_VERBATIM = frozenset({"Example", "Use instead", "References"})


def _wrapped(title: str, body: str, width: int) -> list[str]:
    if title in _VERBATIM:
        return [f"    {plain(line)}" for line in body.splitlines()]
    out: list[str] = []
    for paragraph in body.split("\n\n"):
        words = " ".join(line.strip() for line in paragraph.splitlines())
        out += textwrap.wrap(plain(words), width, initial_indent="    ",
                             subsequent_indent="    ", break_on_hyphens=False) or [""]
        out.append("")
    return out[:-1]


def text_width() -> int:
    """Rewrapped text's width: ``COLUMNS`` where set, else the terminal's (88 when standard
    output is not a terminal), at most 88."""
    if not os.environ.get("COLUMNS", "").isdigit() and not sys.stdout.isatty():
        return 88
    return max(20, min(shutil.get_terminal_size((88, 24)).columns, 88))


def explain(code: str, width: int = 88) -> str:
    """What ``vlint rule CODE`` prints: the rule's header line and its documentation as plain
    text, each paragraph rewrapped to ``width``."""
    module = rule_module(code)
    rule = module.RULE
    header = f"{rule.code} {rule.name} ({rule.severity}; fix: {rule.fix}; since {rule.since})"
    out = [header]
    for title, body in sections(module).items():
        out += ["", title, *_wrapped(title, body, width)]
    return "\n".join(out) + "\n"


def explain_json(code: str) -> dict[str, object]:
    """``vlint rule CODE --output-format json``: the rule's metadata and plain sections."""
    module = rule_module(code)
    rule = module.RULE
    return {
        "code": rule.code, "name": rule.name, "severity": rule.severity, "fix": rule.fix,
        "since": rule.since, "help_uri": help_uri(rule.code),
        "sections": {title: plain(body) for title, body in sections(module).items()},
    }


def code_of(name_or_code: str) -> str | None:
    """The code of a rule given by its code (any case) or its name (``unknown-flag``)."""
    wanted = name_or_code.strip()
    for module in all_rules():
        if wanted.upper() == module.RULE.code or wanted.lower() == module.RULE.name:
            return module.RULE.code
    return None


def rows(policies: Sequence[Policy] = ()) -> list[dict[str, str]]:
    """``vlint rules`` as data: each rule, then each configured policy."""
    found = [
        {"code": m.RULE.code, "name": m.RULE.name, "severity": m.RULE.severity, "kind": "rule",
         "summary": summary(m), "fix": m.RULE.fix, "since": m.RULE.since}
        for m in all_rules()
    ]
    found += [
        {"code": p.id, "name": p.name, "severity": p.severity, "kind": "policy",
         "summary": p.message}
        for p in policies
    ]
    return found


def listing(policies: Sequence[Policy] = ()) -> str:
    """What ``vlint rules`` prints: one line per rule, then per configured policy."""
    table = rows(policies)
    code_width = max(len(row["code"]) for row in table)
    width = max(len(row["name"]) for row in table)
    lines = [
        f"{row['code']:<{code_width}}  {row['name']:<{width}}  {row['severity']:<7}  "
        f"{plain(row['summary'])}"
        for row in table
    ]
    return "\n".join(line.rstrip() for line in lines) + "\n"


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
        out.append(f"| [{r.code}](#{anchor(r.code)}) | {r.name} | {r.severity} | {r.fix} "
                   f"| {cell} |")
    out.append("")
    for m in modules:
        out += _rule_markdown(m)
    return "\n".join(out).rstrip("\n") + "\n"


# Who reports a rule of each scope, as the README's table says it.
REPORTED_BY: Mapping[Scope, str] = {
    "invocation": "its check, per launch",
    "file": "the engine, per file",
    "run": "the engine",
    "filter": "the filter stage",
    "confirm": "`vlint confirm`",
}
README_BEGIN = f"<!-- The rule table is generated from the registry by `{REFRESH}`. -->"
README_END = "<!-- End of the generated rule table. -->"


def readme_table() -> str:
    """The README's rule table, between its two marker lines (included)."""
    out = [README_BEGIN, "", "| code | name | severity | fix | reported by |", "|---|---|---|---|---|"]
    for m in all_rules():
        r = m.RULE
        out.append(f"| [{r.code}](docs/rules.md#{anchor(r.code)}) | {r.name} | {r.severity} "
                   f"| {r.fix} | {REPORTED_BY[r.scope]} |")
    return "\n".join([*out, "", README_END])


def with_readme_table(readme: str) -> str:
    """``readme`` with its generated rule table replaced by the registry's; ValueError when
    the markers are missing."""
    begin, end = readme.find(README_BEGIN), readme.find(README_END)
    if begin < 0 or end < begin:
        raise ValueError("the README has no generated rule table (its marker lines are missing)")
    return readme[:begin] + readme_table() + readme[end + len(README_END):]
