"""The errors a run stops on, each reported with exit code 2."""

from __future__ import annotations

from vlint.model import Pos


class ConfigError(Exception):
    """A configuration file vlint cannot use; the message names the file and the remedy."""


class Unparsable(Exception):
    """Raised by an extractor for a file it cannot parse; reported as VL002 unparsable-file."""

    def __init__(self, message: str, where: Pos = Pos(1, 1)) -> None:
        super().__init__(message)
        self.message = message
        self.where = where
