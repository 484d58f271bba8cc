"""File trees for tests: written from and read back into ``{relative name: text}``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def write_tree(root: Path, files: Mapping[str, str]) -> Path:
    """Write each ``name: text`` under ``root`` (folders made as needed); return ``root``."""
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, "utf-8")
    return root


def read_tree(root: Path) -> dict[str, str]:
    """Every file under ``root`` as ``{relative name: text}``, in name order."""
    return {
        str(path.relative_to(root)): path.read_text("utf-8")
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }
