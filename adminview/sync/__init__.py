"""The sync: stream records applied to the view. The Lambda entry (``handler``) and the local poller, the write
path (``apply``), checkpoints and dead letters, heartbeats, metrics, the on-failure queue and replays.

May import: ``adminview.core``, ``adminview.repair`` (``settle``: a partition that lost a race is repaired from
its source), ``adminview.reads`` (the heartbeats' layout and freshness), ``adminview.tables``, ``dynamo``,
``shop`` and ``returns``. Nothing else in the view imports it; the management commands and the pages do.
"""
