"""Regression on seeded faults (paper RQ4, DESIGN §7): which faults, which tests, which detect.

By default (``evaluation.regression_tests: valid``) a faulty variant runs every valid boundary
test of the suite; with ``mapped`` it runs, as in the paper, only the valid boundary tests with
an *explicit mapping on the changed passage*: for the reference agent, a mapping whose boundary
is the fault's rule; for other agents, a mapping one of whose passages overlaps the fault's
``passage_before``. docs/auditing.md says why the default differs. A test detects the fault when its execution on the original agent has a
pass verdict, its execution on the faulty agent a fail verdict, and the auditor labels the
faulty execution TP and attributes it to the fault (the count is SQL: sql/metrics).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from adat.config import RunConfig
from adat.errors import UserError
from adat.records import AuditLabel, BoundaryMapping

if TYPE_CHECKING:
    from adat.targets.plugins import SeededFault as Fault

_WORD = re.compile(r"[a-z0-9]+")
#: token overlap (Jaccard) above which a mapping passage counts as the fault's passage
PASSAGE_OVERLAP = 0.5


def fault_ids(cfg: RunConfig, requested: Sequence[str] | None = None) -> list[str]:
    """The faults to run: ``requested``, else ``evaluation.faults``, where 'all' = every shipped fault.

    Unknown ids are a :class:`UserError` listing the known ones.
    """
    from adat.targets.plugins import fault_catalog

    known = fault_catalog(cfg.target.type).fault_ids()
    chosen = list(requested) if requested is not None else cfg.evaluation.faults
    if chosen == "all":
        return known
    unknown = [f for f in chosen if f not in known]
    if unknown:
        raise UserError(f"unknown fault(s) {', '.join(unknown)}", field="evaluation.faults",
                        fix=f"use 'all' or some of: {', '.join(known) or '(none in catalogs/faults/retail)'}")
    return list(dict.fromkeys(chosen))


def on_fault(mapping: BoundaryMapping, fault: Fault) -> bool:
    """Whether an explicit mapping is on the fault's changed passage."""
    if not mapping.explicit:
        return False
    if mapping.boundary == fault.rule:
        return True
    return any(_overlaps(passage, fault.passage_before) for passage in mapping.passages)


def regression_test_ids(labels: Sequence[AuditLabel], fault: Fault, selection: str = "valid") -> list[str]:
    """Ids of the tests to run on ``fault``'s variant, in label order.

    ``selection='valid'``: every valid boundary test; ``'mapped'``: only those with an explicit
    mapping on the fault's passage (the paper's RQ4 selection).
    """
    valid = [a for a in labels if a.validity in ("explicit", "valid") and a.mappings]
    if selection == "mapped":
        valid = [a for a in valid if any(on_fault(m, fault) for m in a.mappings)]
    return [a.test_id for a in valid]


def _overlaps(passage: str, changed: str) -> bool:
    a, b = " ".join(passage.lower().split()), " ".join(changed.lower().split())
    if not a or not b:
        return False
    if a in b or b in a:
        return True
    wa, wb = set(_WORD.findall(a)), set(_WORD.findall(b))
    return bool(wa and wb) and len(wa & wb) / len(wa | wb) >= PASSAGE_OVERLAP
