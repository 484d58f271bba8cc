"""The last stage for every finding: inline suppressions, selection, severities."""
