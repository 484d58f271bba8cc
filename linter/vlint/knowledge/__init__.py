"""What vlint knows of vLLM: the generated catalog per release and the curated facts."""
