"""vlint's tests: a package, so that test modules and their shared helpers (``tests._support``)
are imported by their full names."""
