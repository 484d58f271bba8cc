"""Write the generated rule documentation: ``docs/rules.md`` and the README's rule table.

``python -m vlint.commands.docs`` rewrites both from the rule modules and the registry;
``python -m vlint.commands.docs --check`` changes nothing and fails when either is stale.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path

from vlint.checks.docs import REFRESH, markdown, with_readme_table
from vlint.fix.atomic import replace_file

ROOT = Path(__file__).resolve().parents[3]
RULES_MD = ROOT / "docs" / "rules.md"
README = ROOT / "README.md"


def _current(path: Path) -> str:
    return path.read_text("utf-8") if path.exists() else ""


def wanted() -> dict[Path, str]:
    """Each generated file's path and the text it must have."""
    return {RULES_MD: markdown(), README: with_readme_table(_current(README))}


def stale() -> list[Path]:
    return [path for path, text in wanted().items() if _current(path) != text]


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args not in ([], ["--check"]):
        print(f"usage: {REFRESH} [--check]", file=sys.stderr)
        return 2
    if args == ["--check"]:
        for path in stale():
            print(f"{path} is stale: run `{REFRESH}`", file=sys.stderr)
        return 1 if stale() else 0
    for path, text in wanted().items():
        if _current(path) != text:
            mode = stat.S_IMODE(os.stat(path).st_mode) if path.exists() else None
            replace_file(path, text.encode("utf-8"), mode)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
