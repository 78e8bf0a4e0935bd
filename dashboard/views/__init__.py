"""The dashboard's pages, one module per area; what list pages share is ``dashboard.lists``."""
