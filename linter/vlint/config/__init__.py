"""Configuration files, presets and globs, resolved into Settings per file."""
