"""The admin view: a projection of the source tables, kept by the sync, read by the pages. Four rooms, imports one
way (``docs/admin-view.md``; each room's docstring says what it may import); the management commands sit on top.
"""
