"""The dashboard's pages, one module per area; ``common`` holds what they share."""
