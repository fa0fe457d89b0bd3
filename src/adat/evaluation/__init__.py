"""Evaluation only (paper §4.3, DESIGN §7–8): auditing tests, labelling executions, grouping
boundary–side mappings and running the suite on seeded faults.

Nothing here is visible to the tester: the auditor reads the agent's artifacts (for the
reference agent, its side log and initial database). The decision procedures are written down
in docs/auditing.md; the figures are SQL in sql/metrics, printed by :mod:`adat.evaluation.evaluation_figures`.
"""
