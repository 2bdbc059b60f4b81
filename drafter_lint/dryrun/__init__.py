"""Scripts the gate runs in the runtime's own interpreter (never imported by drafter-lint)."""
