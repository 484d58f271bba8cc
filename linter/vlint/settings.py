"""Settings: what one run (or one file of it) is linted with, fully resolved.

A leaf value type: the configuration layer builds it, the engine reads it, and neither the
engine nor anything below it imports the configuration layer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from vlint.model import Severity

if TYPE_CHECKING:
    from vlint.policy.policies import Policy

MAX_FILE_SIZE = 2 * 2**20  # bytes
STDIN_AS_SHELL = (
    "standard input linted as shell: its kind cannot be told from its first line "
    "(--stdin-filename NAME sets the kind, e.g. compose.yaml)"
)
# Seconds a liveness probe with no startup probe should leave vLLM to load its model (VL612;
# the ``liveness-budget`` key).
LIVENESS_BUDGET = 120
# Seconds of wall time one file may take (``Settings.time_budget`` overrides it): far more than
# any deployment file needs, and a crafted one cannot hold a CI run for long.
FILE_TIME_BUDGET = 10.0


@dataclass(frozen=True)
class Settings:
    target: str | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    stdin_text: str | None = None
    stdin_filename: str | None = None
    extend_select: tuple[str, ...] = ()
    # Globs (per-file-ignores, exclude) are relative to config_dir, the config file's folder.
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    severity: tuple[tuple[str, Severity], ...] = ()
    config_dir: str | None = None
    policies: tuple[Policy, ...] = ()
    warnings_as_errors: bool = False  # the strict preset; severity overrides still win
    # Worker processes for the files that launch vLLM; 0 chooses (see ``_workers``).  Workers
    # leave Report.launches empty: only ``vlint confirm`` reads it, and it lints in one process
    # (sending every token back would cost as much as a fifth of the linting).
    jobs: int = 1
    # Bigger files are skipped with a note: no deployment file comes near it, and parsing a
    # huge generated YAML or Markdown file would take minutes.
    max_file_size: int = MAX_FILE_SIZE
    fail_on: Severity = "warning"  # the exit-1 threshold of these settings' files
    # Past it a file is given up as VL003 (None: FILE_TIME_BUDGET).
    time_budget: float | None = None
    liveness_budget: int = LIVENESS_BUDGET
    # Each file's own settings (the command line over the file's nearest configuration, from
    # vlint.config.files); None: these settings are every file's.
    per_file: Callable[[str], Settings] | None = field(default=None, compare=False)
