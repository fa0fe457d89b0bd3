"""Prefect tasks: each wraps exactly one step function of ``adat.pipeline``."""
