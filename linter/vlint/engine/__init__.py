"""The engine: one file linted into a result, a run over paths into a report."""
