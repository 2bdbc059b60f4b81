"""`drafter-lint fix`: `plan` turns the findings' edits into new config.json text,
`restyle` keeps the file's own layout around each edit, `write` writes it atomically under a
lock (its `atomic_write` also serves the settings, caches and downloads), and `apply` runs
the plan, the write and the read-back that verifies it."""
