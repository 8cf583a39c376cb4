"""Experiments: the sweeps and simulations that regenerate the files under ``data/``.

Each sweep runs as ``python -m semvar.experiments.NAME`` and writes its small result
file where :func:`semvar.data.result_path` says; the chapters and the claims read it
back from there.

Imports run one way: experiments import the core modules of :mod:`semvar` and the
published values of :mod:`semvar.papers`, never :mod:`semvar.claims`; the core never
imports them.
"""
