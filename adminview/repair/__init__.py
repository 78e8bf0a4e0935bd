"""Rebuild, verify and one order's consistency and repair: walks over the source tables and the view, and the
rebuild's half of the anchors' protocol (``repair.plan_repair`` / ``commit_plans``, ``repair.settle``).

May import: ``adminview.core``, ``adminview.reads`` (how fresh the sync is, for a verdict), ``adminview.tables``,
``dynamo``, ``shop`` and ``returns``; never ``sync`` (which builds on this room's ``settle``).
"""
