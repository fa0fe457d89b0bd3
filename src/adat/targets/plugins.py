"""Agents under test shipped as plugins: the entry-point group ``adat.targets`` (target kind -> plugin).

The tester never imports an agent under test. A kind of target that is code rather than an
endpoint (adat's own ``reference`` and ``llm-agent``, in the ``adat_reference`` package of the same
distribution, or a third party's) registers an object under the kind's name::

    [project.entry-points."adat.targets"]
    reference = "adat_reference.target:REFERENCE"

:func:`target_plugin` loads it. Every plugin makes targets (:class:`TargetPlugin`); one whose
agents have seeded faults also lists them (:class:`FaultCatalog`), and a deterministic one the
evaluation may replay gives its ground truth (:class:`GroundTruth`: side log, rule passages, the
initial database's facts). Ground truth is for the evaluation only; the tester never reads it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from adat.errors import UserError
from adat.targets.base import SideLogged, Target

if TYPE_CHECKING:
    from adat.config import RunConfig, TargetConfig
    from adat.llm.client import LLMClient
    from adat.records import Side, TestCase

#: the entry-point group target plugins register in
GROUP = "adat.targets"


@runtime_checkable
class TargetPlugin(Protocol):
    """Makes the target a run config's ``target`` section describes."""

    def make_target(self, target_cfg: TargetConfig, cfg: RunConfig, client: LLMClient | None = None) -> Target:
        """The target; ``client`` is the LLM client an LLM-driven agent uses (the plugin builds one if None)."""
        ...


class SeededFault(Protocol):
    """What the evaluation reads of one seeded fault (its file format: docs/faults.md)."""

    id: str
    title: str
    description: str
    rule: str
    passage_before: str
    passage_after: str


@runtime_checkable
class FaultCatalog(Protocol):
    """A plugin whose agents come in seeded faulty variants (``target.fault``, ``adat faults``)."""

    def fault_ids(self) -> list[str]:
        """The ids of the seeded faults, sorted."""
        ...

    def load_fault(self, fault_id: str) -> SeededFault:
        """The fault ``fault_id``; an unknown id is a UserError listing the known ones."""
        ...

    def rewords_rule(self, fault_id: str) -> bool:
        """Whether the fault changes what the agent *says* at its rule, not only what it decides."""
        ...

    def policy_path(self) -> Path:
        """The agent's shipped policy document (an LLM auditor's artifact)."""
        ...


class CalledTool(Protocol):
    """One tool call a replayed session made."""

    turn: int
    name: str
    arguments: dict[str, Any]
    error: str | None


class ReplayAgent(Target, SideLogged, Protocol):
    """A deterministic agent whose sessions the evaluation replays and inspects."""

    def fault_activations(self, session_id: str) -> list[tuple[str, int]]: ...

    def session_db_hash(self, session_id: str) -> str: ...

    def tool_calls(self, session_id: str) -> Sequence[CalledTool]: ...


class FactCheck(Protocol):
    """Validity condition (a): the facts a test assumes hold in the initial database."""

    def problems(self, test: TestCase, expected_side: Side | None) -> list[str]: ...


@runtime_checkable
class GroundTruth(FaultCatalog, Protocol):
    """Evaluation-only knowledge of a deterministic, side-logged agent (the reference auditor's)."""

    @property
    def write_tools(self) -> frozenset[str]:
        """Names of the tools that change the database."""
        ...

    def load_database(self, database: str | None) -> object:
        """The initial database at ``database`` (None = the shipped one), opaque to the evaluation."""
        ...

    def replay_agent(self, db: object, variant: str) -> ReplayAgent:
        """A fresh agent on ``db``: 'original' or the faulty variant of a fault id."""
        ...

    def fact_checker(self, db: object) -> FactCheck: ...

    def rule_passage(self, rule_id: str) -> str | None:
        """The policy passage a rule enforces (None for an unknown rule)."""
        ...


@functools.cache
def target_plugin(kind: str) -> Any:
    """The plugin registered as ``kind`` in the ``adat.targets`` entry-point group (loaded once)."""
    found = entry_points(group=GROUP, name=kind)
    if not found:
        known = sorted(ep.name for ep in entry_points(group=GROUP))
        raise UserError(f"no target plugin {kind!r} is installed", field="target.type",
                        fix=f"use one of {', '.join(known) or '(none: reinstall adat, which ships reference)'}, "
                            "http, a2a or python")
    return next(iter(found)).load()


def fault_catalog(kind: str) -> FaultCatalog:
    """The seeded faults of the ``kind`` plugin; a UserError when it has none."""
    plugin = target_plugin(kind)
    if not isinstance(plugin, FaultCatalog):
        raise UserError(f"the {kind} target has no seeded faults", field="target.fault",
                        fix="drop the fault, or use a target kind that ships faults (reference, llm-agent)")
    return plugin


def ground_truth(kind: str) -> GroundTruth:
    """The evaluation-only ground truth of the ``kind`` plugin; a UserError when it gives none."""
    plugin = target_plugin(kind)
    if not isinstance(plugin, GroundTruth):
        raise UserError(f"the {kind} target cannot be audited from its side log", field="models.auditor",
                        fix="set models.auditor to an LLM (the LLM auditor reads the agent's artifacts)")
    return plugin
