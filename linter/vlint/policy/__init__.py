"""Policies: their model and loading, CEL compilation, evaluation over a resolved launch."""
