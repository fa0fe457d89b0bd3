"""Evaluation only (paper §4.3, DESIGN §7–8): auditing tests, labelling executions, grouping
boundary–side mappings and running the suite on seeded faults.

Nothing here is visible to the tester: the auditor reads the agent's artifacts (for the
reference agent, its side log and initial database). The decision procedures are written down
in docs/auditing.md; the figures are SQL in sql/metrics, printed by :func:`print_evaluation`.
"""

from adat.evaluation.evaluation_figures import evaluation_metrics, print_evaluation
from adat.evaluation.groupings import llm_groupings, reference_groupings
from adat.evaluation.labels import Compliance, paper_label, reference_compliance
from adat.evaluation.llm_auditor import LLMAuditor, load_artifacts, require_llm_auditor
from adat.evaluation.reference_auditor import ReferenceAuditor, checked_situation, criteria_side
from adat.evaluation.regression import fault_ids, on_fault, regression_test_ids
from adat.evaluation.replay import Replay, Replayer

__all__ = [
    "Compliance",
    "LLMAuditor",
    "ReferenceAuditor",
    "Replay",
    "Replayer",
    "checked_situation",
    "criteria_side",
    "evaluation_metrics",
    "fault_ids",
    "llm_groupings",
    "load_artifacts",
    "on_fault",
    "paper_label",
    "print_evaluation",
    "reference_compliance",
    "reference_groupings",
    "require_llm_auditor",
    "regression_test_ids",
]
