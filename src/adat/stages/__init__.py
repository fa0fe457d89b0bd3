"""The AdaT2 pipeline stages as plain library functions over records (no Prefect, no file I/O).

Each stage takes the run config, the LLM client and/or the target and records, and returns
records from :mod:`adat.records`; the steps in :mod:`adat.adat2.adat2_steps` read and write them.
"""
