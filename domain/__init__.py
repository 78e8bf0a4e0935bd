"""The bottom of the import order: what every package shares and that imports nothing of ours."""
