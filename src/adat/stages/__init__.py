"""The AdaT2 pipeline's stages, one module a stage (or a few stages of one record).

A module holds its stage's step (``fn(ctx, **params) -> Outcome``, declared in
:mod:`adat.engine.stage_registry`), which reads and writes the run's tables through ``ctx``, and
the stage itself as plain functions over records (the run config, the LLM client and/or the
target in, records of :mod:`adat.records` out; no Prefect, no file I/O).
"""
