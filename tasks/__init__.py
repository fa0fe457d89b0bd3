"""Prefect tasks: one per declared stage (made by ``tasks.stage_factory``), the run bookkeeping and the reports."""
