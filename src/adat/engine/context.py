"""What every pipeline step needs for one run: config, run id, warehouse, LLM client, target."""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

import adat
from adat.config import RunConfig, cache_dir
from adat.errors import StageFailed, UserError
from adat.records import Execution, Record, RuleEvent, Run, StageRun, Trace
from adat.targets.base import SideLogged, Target
from adat.warehouse.parquet import partition_dir, read_records, write_records

if TYPE_CHECKING:
    from adat.llm.client import LLMClient


class StepResult(BaseModel):
    """What a step hands to the next one: where its rows are, and how many (never the rows)."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    step: str
    digest: str = ""
    paths: dict[str, str] = {}
    tables: dict[str, int] = {}
    counts: dict[str, float] = {}
    data: dict[str, Any] = {}


def new_run_id(now: datetime | None = None, token: str | None = None) -> str:
    """Sortable, unique, safe as a Hive partition value: ``20261130-040512-3fa2`` (``token``: the
    last part, e.g. from the flow run's id; default random)."""
    now = now or datetime.now(UTC)
    return f"{now:%Y%m%d-%H%M%S}-{token or secrets.token_hex(2)}"


def end_run_row(root: Path, run_id: str, status: str, error: str) -> Run | None:
    """Rewrite run ``run_id``'s row as ended with ``status`` and ``error`` if it still says
    ``running`` (an interrupted or abandoned run: no config at hand, nothing else touched);
    None when it had ended already. :meth:`RunContext.record_run` writes every other row."""
    runs = [r for r in read_records(root, "runs", run_id=run_id) if isinstance(r, Run)]
    if not runs or runs[-1].status != "running":
        return None
    ended = runs[-1].model_copy(update={"status": status, "error": error, "finished_at": datetime.now(UTC)})
    write_records(root, "runs", [ended], run_id=run_id, replace=True)
    return ended
#: what a step reports progress to: ``(done, total)``
Progress = Callable[[int, int], None]


class UndeclaredWrite(RuntimeError):
    """A stage wrote a table its declaration (:mod:`adat.engine.stage_registry`) does not name: a bug."""


PHASE_OWNER = "execution"


def phase_owner(kind: str, variant: str) -> str:
    """The owner of an execution phase's parts (executions, verdicts, rule_events): one per kind and agent variant."""
    return f"{PHASE_OWNER}.{kind}.{variant}"


@dataclass
class RunContext:
    """One run's handles. Built for each step (:func:`adat.engine.stage_runner.run_stage`), so
    steps stay independent Prefect tasks.

    ``stage`` and ``writes``: the stage this context runs and the tables it declares; a write to
    any other table (``llm_calls`` aside: append-only, shared) raises :class:`UndeclaredWrite`.
    ``writes=None`` (run bookkeeping: the runs table, the instruction snapshot) is unchecked.
    ``key``: the stage's cache key, for a step that resumes under it. ``progress_bar``: makes a
    progress callback from a label (the task's UI and terminal bar); none without one.
    """

    cfg: RunConfig
    run_id: str
    stage: str = ""
    writes: Collection[str] | None = None
    key: str | None = None
    progress_bar: Callable[[str], Progress] | None = field(default=None, repr=False)
    _client: LLMClient | None = field(default=None, repr=False)
    _digest: Any = field(default_factory=hashlib.sha256, repr=False)
    _paths: dict[str, str] = field(default_factory=dict, repr=False)
    _rows: Counter[str] = field(default_factory=Counter, repr=False)
    _client_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def root(self) -> Path:
        return self.cfg.data_path()

    # --- warehouse -----------------------------------------------------------------------
    def write(self, table: str, records: Sequence[Record], *, replace: bool = True, owner: str = "") -> int:
        """Write ``records`` as the run's part(s) of ``table`` owned by ``owner`` (see warehouse.parquet).

        ``replace`` replaces that owner's earlier parts (all parts for owner '', a table with one writer).
        """
        if self.writes is not None and table != "llm_calls" and table not in self.writes:
            raise UndeclaredWrite(f"stage {self.stage or '?'} wrote table {table!r}, which it does not declare "
                                  f"(declared: {', '.join(self.writes) or 'none'}; adat.engine.stage_registry)")
        write_records(self.root, table, records, run_id=self.run_id, replace=replace, owner=owner)
        self._paths[table] = str(partition_dir(self.root, table, self.run_id))
        if table != "llm_calls":  # call rows carry latencies; they must not change the digest
            self._rows[table] += len(records)
            self._digest.update(f"{table}/{owner}".encode())
            for record in records:
                self._digest.update(record.model_dump_json().encode())
        return len(records)

    @property
    def paths(self) -> dict[str, str]:
        """Table -> the run's Parquet partition this context wrote (what a task hands on)."""
        return dict(self._paths)

    @property
    def rows(self) -> dict[str, int]:
        """Table -> rows this context wrote (``llm_calls`` aside)."""
        return dict(self._rows)

    def progress(self, label: str) -> Progress | None:
        """A progress callback labelled ``label``, when the step runs with a progress bar."""
        return self.progress_bar(label) if self.progress_bar else None

    @property
    def digest(self) -> str:
        """Hash of everything this context wrote: downstream cache keys change when it does."""
        return self._digest.hexdigest()[:16]

    def read(self, table: str, run_id: str | None = None, owner: str | None = None) -> list[Any]:
        return read_records(self.root, table, run_id=run_id or self.run_id, owner=owner)

    def read_variants(self, table: str, variants: Collection[str]) -> list[Any]:
        """The rows of an execution-phase table (executions, verdicts, rule_events) that belong to
        the agent ``variants``. An execution phase's parts (``execution.<kind>.<variant>``) of any
        other variant are not opened, so a fault's regression never reads, or races with, the
        parts another fault's regression is replacing; other owners' parts (transformation,
        discovery) are read and filtered by row."""
        wanted = set(variants)

        def accept(owner: str) -> bool:
            prefix, _, rest = owner.partition(".")
            return rest.partition(".")[2] in wanted if prefix == PHASE_OWNER and "." in rest else True

        rows = read_records(self.root, table, run_id=self.run_id, owner=accept)
        # verdicts carry no variant: the execution they judge does (callers join on execution_id)
        return [r for r in rows if getattr(r, "agent_variant", None) in wanted or not hasattr(r, "agent_variant")]

    def variant(self, fault: str | None = None) -> str:
        """The agent variant a step talks to: ``fault``, else the config's ``target.fault``, else 'original'."""
        return self.cfg.agent_variant(fault)

    # --- stage state ---------------------------------------------------------------------
    def resumable(self, stage: str, key: str) -> bool:
        """True when ``stage`` of this run last started with ``key`` and did not complete."""
        rows = [r for r in self.read("stage_runs") if r.stage == stage]
        return bool(rows) and rows[-1].key == key and rows[-1].status == "running"

    def mark_stage(self, stage: str, key: str, status: str) -> None:
        """Record that ``stage`` started (``running``) or finished (``completed``) with ``key``."""
        self.write("stage_runs", [StageRun(run_id=self.run_id, stage=stage, key=key, status=status,  # type: ignore[arg-type]
                                           ts=datetime.now(UTC))], replace=False, owner=stage)

    # --- LLM -----------------------------------------------------------------------------
    @property
    def client(self) -> LLMClient:
        # Steps first touch it from worker threads (a spec suite's reruns): two clients made at once
        # would each keep calls, and only one is drained -- the other's rows were lost (journal-fold
        # pending rows for calls that had answers). One client per context, made under a lock.
        with self._client_lock:
            if self._client is None:
                from adat.llm.call_journal import CallJournal
                from adat.llm.client import LLMClient

                self._client = LLMClient(self.cfg, self.run_id, cache_dir=cache_dir(self.cfg), budget=self._budget(),
                                         sink=self.flush_calls, journal=CallJournal(self.root, self.run_id))
            return self._client

    def _budget(self) -> Any:
        """The run's budget meter, counting what the run's ``llm_calls`` rows spent already; None = unlimited."""
        from adat.llm.budget import BudgetMeter, current_phase

        budget = self.cfg.budget
        limited = [budget, *budget.phases.values()]
        if all(b.max_calls is None and b.max_tokens is None and b.max_usd is None for b in limited):
            return None
        return BudgetMeter(budget, current_phase(), self.read("llm_calls"))

    def flush_calls(self) -> int:
        """Append the LLM calls made since the last flush to the llm_calls table."""
        if self._client is None:
            return 0
        calls = self._client.drain_calls()
        if calls:
            self.write("llm_calls", calls, replace=False)
        return len(calls)

    def check_models(self, stage: str = "") -> None:
        """Raise :class:`~adat.errors.StageFailed` when this step's calls of a tester role failed beyond
        ``llm.max_failed_share`` (an answer invalid after its repair is a failed call). The agent under
        test's own calls (role ``agent``) are its behaviour, recorded on the executions, not the tester's."""
        client = self._client
        if client is None:
            return
        share = self.cfg.llm.max_failed_share
        for role, made in sorted(client.role_calls.items()):
            failed = client.role_failures[role]
            if role != "agent" and made and failed > share * made:
                last = str(client.last_error.get(role, "")).splitlines()[0][:300]
                raise StageFailed(stage or self.stage, f"{failed} of {made} {role} calls failed, more than llm.max_failed_share "
                                  f"{share:g} (last: {last})", role=role)

    def require(self, what: str, count: int, source: str = "", hint: str = "") -> None:
        """Raise :class:`~adat.errors.StageFailed` when this stage produced no ``what`` (the next stage
        needs them), saying from what (``source``) and what may be why (``hint``); its LLM calls are
        recorded first."""
        if count == 0:
            self.flush_calls()
            self.check_models()  # a failing role is the better reason, when there is one
            invalid = {r: n for r, n in (self._client.role_invalid.items() if self._client else []) if n}
            why = f"; invalid answers: {', '.join(f'{r} {n}' for r, n in sorted(invalid.items()))}" if invalid else ""
            made = f"produced 0 {what}" + (f" from {source}" if source else "")
            raise StageFailed(self.stage, f"{made}; nothing is left to test{why}" + (f"; {hint}" if hint else ""))

    # --- target --------------------------------------------------------------------------
    def target(self, *, fault: str | None = None, scope: str = "t") -> Target:
        """The run's target (or its faulty variant), with session ids unique within the run."""
        from adat.targets.session_scope import ScopedSessions
        from adat.targets.target_factory import build_target

        target_cfg = self.cfg.target
        if fault is not None:
            if not hasattr(target_cfg, "fault"):
                raise UserError("seeded faults need a reference or llm-agent target",
                                field="target.type", fix="use target type reference or llm-agent")
            target_cfg = target_cfg.model_copy(update={"fault": fault})
        return ScopedSessions(build_target(target_cfg, self.cfg, client=self.client), scope)  # type: ignore[return-value]

    def rule_events(self, target: Target, sessions: Sequence[Trace | Execution], variant: str) -> list[RuleEvent]:
        """The evaluation-only side log of a reference target for these sessions (empty otherwise)."""
        if not isinstance(target, SideLogged):
            return []
        decisions = getattr(target, "decisions", None)
        events: list[RuleEvent] = []
        for item in sessions:
            if not item.session_id:
                continue
            logged = target.side_log(item.session_id)
            taken = [d[1] for d in decisions(item.session_id)] if callable(decisions) else [None] * len(logged)
            for (rule_id, side, turn), decision in zip(logged, taken, strict=True):
                events.append(RuleEvent(run_id=self.run_id, session_id=item.session_id, agent_variant=variant,
                                        rule_id=rule_id, side=side, turn=turn,  # type: ignore[arg-type]
                                        decision=decision))  # type: ignore[arg-type]
        return events

    # --- runs table ----------------------------------------------------------------------
    def record_run(self, flow: str, status: str, stopped_in: str = "", error: str = "",
                   suite_run_id: str | None = None) -> Run:
        from adat.llm.call_journal import fold_journal

        # A run starts or ends: no call is in flight, so every journaled request without a row
        # (a killed earlier attempt, a lost buffer) becomes a pending llm_calls row now.
        fold_journal(self.root, self.run_id)
        earlier = [r for r in self.read("runs") if isinstance(r, Run)]
        started = earlier[0].started_at if earlier else datetime.now(UTC)
        # the run's finish rewrites its row: it keeps the suite the start recorded
        suite = suite_run_id if suite_run_id is not None else (earlier[-1].suite_run_id if earlier else "")
        run = Run(run_id=self.run_id, flow=flow, started_at=started,
                  finished_at=datetime.now(UTC) if status != "running" else None,
                  status=status,  # type: ignore[arg-type]
                  target=self.cfg.target.type, agent_variant=self.variant(),
                  models_json=json.dumps(self.cfg.models.model_dump(), sort_keys=True),
                  # the config holds the *name* of the key's env var, never the key
                  config_json=json.dumps(self.cfg.model_dump(mode="json"), sort_keys=True),
                  selector=self.cfg.selector.name,
                  adat_version=adat.__version__, stopped_in=stopped_in, error=error, suite_run_id=suite)
        self.write("runs", [run])
        return run
