"""Package data: the JSON Schemas (Draft 2020-12) of each family's config.json."""
