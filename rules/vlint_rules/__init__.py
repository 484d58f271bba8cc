"""vLLM knowledge for vlint: generated per-release data and curated facts (see rules/README.md)."""
