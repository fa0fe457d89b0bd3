"""Prefect flows; deploy by file path (see prefect.yaml)."""
