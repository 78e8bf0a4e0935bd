"""The view's reads, as the pages and the explorer make them: selectors, the numbers, activity, search, the
catalogue, returns, the named access patterns, and how fresh the sync has kept the view. A bounded number of
Queries and BatchGetItems a page, never a Scan.

May import: ``adminview.core``, ``adminview.tables``, ``dynamo``, ``shop`` and ``returns``; never ``sync`` or
``repair``.
"""
