"""The shop's single table: the source of truth (AWS's "online shop" model plus our additions)."""
