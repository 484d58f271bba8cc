"""Each launch as a release resolves it: argparse replay, vLLM's rewrites, values, bounds."""
