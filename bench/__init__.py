"""The benchmark: cost, latency and throughput per page and per pipeline stage, against the naive alternatives.

Run ``python -m bench`` (see ``bench/run.py`` for the options); results land in ``bench/results/``.
"""
