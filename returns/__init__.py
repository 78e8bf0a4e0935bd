"""The returns service: its own table (``ShopReturns``), models, named reads and writes. The shop package does not
know it; it writes into the shop table only through the shop's own builders and audit trail."""
