"""Fixes as pure text edits, and the one safe writer."""
