"""Baselines of the comparison (paper §4.2): AgentEval (tests for the nodes and edges of a workflow
graph mined from the discovery traces) and direct generation (tests written straight from the
traces). The steps that run them, and the selector ablation, are in :mod:`adat.baselines.baseline_steps`.
"""
