"""The returns service: returns and refunds, in a table of their own (``ShopReturns``) with its own stream."""
