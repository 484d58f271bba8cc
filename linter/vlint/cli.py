"""The command line: a thin click shell over the commands (:mod:`vlint.commands`)."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

import click

from vlint import __version__
from vlint.commands.check import check_command
from vlint.errors import ConfigError
from vlint.render.escape import plain_text

# The commands besides check, by name: their modules are imported only when one is named (or
# help lists them), so that a lint run (a pre-commit hook on one file) builds only check.
LAZY_COMMANDS = {
    "rule": ("vlint.commands.explain", "rule_command"),
    "rules": ("vlint.commands.explain", "rules_command"),
    "show": ("vlint.commands.explain", "show_command"),
    "confirm": ("vlint.commands.confirm", "confirm_command"),
    "flags": ("vlint.commands.flags", "flags_command"),
}


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in LAZY_COMMANDS:
            module, name = LAZY_COMMANDS[cmd_name]
            self.add_command(getattr(importlib.import_module(module), name), cmd_name)
        return super().get_command(ctx, cmd_name)


@click.group(cls=_LazyGroup, invoke_without_command=True,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="vlint")
@click.pass_context
def _group(ctx: click.Context) -> None:
    """vlint: lint vLLM launch commands and configs against the vLLM release you deploy.

    `vlint PATHS` means `vlint check PATHS`: with no command, the arguments are check's.
    """


_group.add_command(check_command)


def main(argv: Sequence[str] | None = None) -> int:
    """Run vlint; ``vlint PATHS`` and ``vlint check PATHS`` are the same command."""
    args = list(sys.argv[1:] if argv is None else argv)
    commands = {"check", *LAZY_COMMANDS}
    if not args or (args[0] not in commands and args[0] not in ("--version", "-h", "--help")):
        args = ["check", *args]
    try:
        _group.main(args=args, prog_name="vlint", standalone_mode=False)
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.ClickException as error:
        error.show()
        return 2
    except ConfigError as error:
        click.echo(plain_text(str(error)), err=True)
        return 2
    except click.Abort:
        return 2
    except SystemExit as done:
        return int(done.code or 0)
    return 0


def run() -> NoReturn:
    """The ``vlint`` program: ``main``, then an exit that skips the interpreter's teardown.

    Once ``main`` has returned, every file vlint wrote is closed and every child process is
    gone; what is left is freeing the objects of the run (a tenth of a one-file run).  Output
    still buffered is flushed first; if that fails (a closed pipe), the normal exit reports it.
    """
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(code)
    os._exit(code)
