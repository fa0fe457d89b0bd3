"""Baselines of the comparison (paper §4.2): AgentEval (tests for the nodes and edges of a workflow
graph mined from the discovery traces) and direct generation (tests written straight from the
traces). The steps that run them, and the selector ablation, are in :mod:`adat.baselines.baseline_steps`.
"""

from adat.baselines.agenteval import (
    AgentEvalResult,
    agenteval_test_id,
    generate_agenteval_tests,
    graph_targets,
)
from adat.baselines.direct import DirectResult, direct_test_id, generate_direct_tests
from adat.baselines.workflow_graph import (
    START,
    WorkflowEdge,
    WorkflowGraph,
    WorkflowNode,
    cluster_labels,
    mine_workflow_graph,
)

__all__ = [
    "START", "AgentEvalResult", "DirectResult", "WorkflowEdge", "WorkflowGraph", "WorkflowNode",
    "agenteval_test_id", "cluster_labels", "direct_test_id", "generate_agenteval_tests",
    "generate_direct_tests", "graph_targets", "mine_workflow_graph",
]
