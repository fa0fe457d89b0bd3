"""Spec evolution (TDAD, DESIGN §9): v2 compiles from the compiled v1 prompt, and the v1 tests
whose clauses v2 keeps are its invariant tests (SURS = their share still passing on v2).

A clause is kept when v2 has a policy or node of the same id and, for a policy, the same text
(a reworded policy is a changed requirement, not a kept one). Invariant tests are never inputs
of the v2 compilation: they are v1 tests, run only after it, on the compiled v2 prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def kept_clauses(v1: Any, v2: Any) -> set[str]:
    """Clause ids of ``v1`` that ``v2`` keeps."""
    v2_policies = {p.id: " ".join(p.text.split()) for p in v2.policies}
    kept = {p.id for p in v1.policies if v2_policies.get(p.id) == " ".join(p.text.split())}
    v2_nodes = {n.node_id for n in v2.decision_tree}
    return kept | {n.node_id for n in v1.decision_tree if n.node_id in v2_nodes}


def invariant_tests(v1_tests: Sequence[Any], v1: Any, v2: Any) -> list[Any]:
    """The v1 tests every spec clause of which (and the leaf) v2 keeps.

    Only policy and node ids count as clauses here; a test's other citations (the runner's
    ``response_contract`` check) are about the shape every version shares.
    """
    kept = kept_clauses(v1, v2)
    v1_nodes = {n.node_id for n in v1.decision_tree}
    ids = {p.id for p in v1.policies} | v1_nodes
    # a leaf a spec only names as a branch target (never declares) is kept when v2 still names it
    v2_ends = {n.node_id for n in v2.decision_tree} | {b.next for n in v2.decision_tree for b in n.branches}
    leaves = kept | {leaf for leaf in {t.leaf_id for t in v1_tests} if leaf not in v1_nodes and leaf in v2_ends}
    return [t for t in v1_tests if t.leaf_id in leaves and all(c in kept for c in t.clauses if c in ids)]
