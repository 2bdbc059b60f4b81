"""drafter-lint: lint and repair speculative-decoding drafter checkpoints."""

__version__ = "0.1.0"
