"""Groupings of boundary–side mappings into distinct boundaries and sides (paper §4.3).

U (distinct explicit boundaries) and P (their distinct sides) are medians over several
groupings (``evaluation.groupings``, default 3), computed in SQL from the ``groupings`` table.
For the reference agent a boundary is a rule id, so the grouping is deterministic; it is still
written once per grouping number so the same SQL serves every agent. For other agents the
auditor groups the mappings of the valid boundary tests, once per grouping.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from adat.contracts.auditor_roles import (
    PROMPT_AUDITOR_GROUPING,
    GroupingInput,
    GroupingMappingView,
    GroupingOutput,
)
from adat.llm.types import LLMError, TesterLLM
from adat.records import AuditLabel, Grouping

log = logging.getLogger(__name__)


def _valid(labels: Sequence[AuditLabel]) -> list[AuditLabel]:
    return [a for a in labels if a.validity in ("explicit", "valid")]


def side_key(boundary: str, side: str) -> str:
    """The canonical boundary+side of a group (what P counts)."""
    return f"{boundary}|{side}"


def reference_groupings(labels: Sequence[AuditLabel], run_id: str, count: int) -> list[Grouping]:
    """Each mapping is its own rule's boundary and side, ``count`` times over."""
    rows: list[Grouping] = []
    for number in range(1, count + 1):
        for label in _valid(labels):
            for m in label.mappings:
                rows.append(Grouping(run_id=run_id, grouping_no=number, test_id=label.test_id, boundary=m.boundary,
                                     side=m.side, group_boundary=m.boundary, group_side=side_key(m.boundary, m.side)))
    return rows


def llm_groupings(client: TesterLLM, labels: Sequence[AuditLabel], run_id: str, count: int) -> list[Grouping]:
    """``count`` independent groupings by the auditor role (each a separately cached call).

    A mapping the answer leaves out, or a failed call, keeps the mapping as its own group, so
    every mapping is in every grouping exactly once.
    """
    members = [(label.test_id, m) for label in _valid(labels) for m in label.mappings]
    if not members:
        return []
    views = [GroupingMappingView(index=i, boundary=m.boundary, side=m.side, passages=m.passages)
             for i, (_test, m) in enumerate(members)]
    rows: list[Grouping] = []
    for number in range(1, count + 1):
        request = GroupingInput(grouping_no=number, mappings=views)
        try:
            out = client.structured("auditor", PROMPT_AUDITOR_GROUPING, request.model_dump(), GroupingOutput,
                                    cache_tag=f"grouping-{number}")
        except LLMError as exc:
            log.warning("grouping %d failed, each mapping is its own group: %s", number, exc)
            out = GroupingOutput(groups=[])
        assigned: dict[int, tuple[str, str]] = {}
        for group in out.groups:
            name = " ".join(group.boundary.split()).lower()
            for index in group.members:
                if 0 <= index < len(members) and index not in assigned:
                    assigned[index] = (name, group.side)
        for index, (test_id, m) in enumerate(members):
            name, side = assigned.get(index, (" ".join(m.boundary.split()).lower(), m.side))
            rows.append(Grouping(run_id=run_id, grouping_no=number, test_id=test_id, boundary=m.boundary, side=m.side,
                                 group_boundary=name, group_side=side_key(name, side)))
    return rows
