"""The admin view: a projection of the source tables, kept by the sync, read by the pages.

Four rooms, imports one way (each room's docstring says what it may import): ``core`` (pure) at the bottom;
``tables`` (the view's and the sync's tables, and the batch reads and writes of view items) on it; ``reads`` on
those; ``repair`` on those and on ``reads``; ``sync`` on all of them. The management commands sit on top.
"""
