"""Parsers that keep exact positions and know nothing of vLLM."""
