"""The subcommands' logic, each called by the thin command line in vlint.cli."""
