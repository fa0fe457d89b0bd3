"""Replays of user messages on the reference agent, for the auditor (evaluation only).

The reference agent is deterministic, so sending an execution's user messages again to a fresh
session reproduces what the agent did, and sending them to the *original* agent shows what a
compliant agent does with the same requests. A replay keeps everything the auditor may read and
the tester never sees: the rule side log, the fault activations, the write-tool calls and the
database end state.
"""

from __future__ import annotations

import functools
import json
import os
import pickle
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from adat import conversation
from adat.conversation import ScriptedUser
from adat.records import Execution, Side, TestCase
from adat.targets.plugins import GroundTruth, ReplayAgent, ground_truth

Event = tuple[str, str, int]  # (rule_id, side, user-turn index)
#: sessions one replay agent serves before it is replaced (see Replayer._agent)
SESSIONS_PER_AGENT = 32


@dataclass(frozen=True)
class Replay:
    """What one session of the reference agent did with a list of user messages."""

    variant: str
    messages: tuple[str, ...]
    replies: tuple[str, ...]
    events: tuple[Event, ...]
    activations: tuple[tuple[str, int], ...] = ()
    writes: tuple[tuple[int, str, str], ...] = ()  # (turn, tool, arguments as sorted JSON) of successful writes
    db_hash: str = ""
    error: str | None = None

    def evaluated(self, rule_ids: set[str]) -> bool:
        """Whether any of ``rule_ids`` was evaluated in the session."""
        return any(rule in rule_ids for rule, _side, _turn in self.events)


@dataclass
class Replayer:
    """Builds one fresh reference agent per replay (no session state survives a replay).

    ``truth`` is the agent's ground truth (its ``adat.targets`` plugin); ``db`` the initial
    database every session starts from (the run config's, or the shipped one); replays of the
    same messages on the same variant are memoised.
    """

    truth: GroundTruth
    db: object
    _memo: dict[tuple[str, tuple[str, ...]], Replay] = field(default_factory=dict, repr=False)
    _agents: dict[str, tuple[ReplayAgent, int]] = field(default_factory=dict, repr=False)

    @classmethod
    def for_database(cls, database: str | None, kind: str = "reference") -> Replayer:
        """A replayer of the ``kind`` agent over ``database`` (None = the shipped database)."""
        truth = ground_truth(kind)
        return cls(truth, truth.load_database(database))

    def remember(self, replays: Sequence[Replay]) -> None:
        """Seed the memo with replays made elsewhere (the original agent's, made once per suite)."""
        for r in replays:
            self._memo[(r.variant, tuple(r.messages))] = r

    def replay(self, messages: Sequence[str], variant: str = "original") -> Replay:
        """Send ``messages`` in order to a fresh session of ``variant`` ('original' or a fault id)."""
        key = (variant, tuple(messages))
        if key in self._memo:
            return self._memo[key]
        agent = self._agent(variant)
        conv = conversation.converse(agent, ScriptedUser(list(messages)), turn_limit=len(messages))
        session, replies, error = conv.session_id, conv.replies(), conv.error
        writes = tuple((c.turn, c.name, json.dumps(c.arguments, sort_keys=True, default=str))
                       for c in agent.tool_calls(session) if c.name in self.truth.write_tools and c.error is None)
        result = Replay(variant=variant, messages=tuple(messages), replies=tuple(replies),
                        events=tuple((r, s, t) for r, s, t in agent.side_log(session)),
                        activations=tuple(agent.fault_activations(session)), writes=writes,
                        db_hash=agent.session_db_hash(session), error=error)
        self._memo[key] = result
        return result

    def _agent(self, variant: str) -> ReplayAgent:
        """An agent of ``variant``, replaced after SESSIONS_PER_AGENT sessions.

        Loading the rule table costs far more than a replay, but an agent keeps every session's
        database copy; renewing it bounds the memory a long labelling run holds.
        """
        agent, used = self._agents.get(variant, (None, SESSIONS_PER_AGENT))
        if agent is None or used >= SESSIONS_PER_AGENT:
            agent, used = self.truth.replay_agent(self.db, variant), 0
        self._agents[variant] = (agent, used + 1)
        return agent


def save_replays(path: Path, replays: Sequence[Replay]) -> Path:
    """Write ``replays`` to ``path`` (atomically: a reader sees the whole file or none)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(pickle.dumps(tuple(replays), protocol=pickle.HIGHEST_PROTOCOL))
    os.replace(tmp, path)
    return path


@functools.lru_cache(maxsize=4)
def load_replays(path: str) -> tuple[Replay, ...]:
    """The replays :func:`save_replays` wrote to ``path``, read once per process (the file name
    carries their digest, so it never changes); () when the file is gone (the labeller then
    replays the original agent itself, with the same result)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return ()
    return tuple(pickle.loads(data))  # noqa: S301  (written by save_replays into the run's own cache)


def user_messages(execution: Execution) -> list[str]:
    """The user messages the runner actually sent in ``execution``, in order."""
    return [t.text for t in execution.turns if t.role == "user"]


def agent_replies(execution: Execution) -> list[str]:
    return [t.text for t in execution.turns if t.role == "agent"]


def hint_messages(test: TestCase) -> list[str]:
    """The messages the runner would send for ``test`` (step hints up to the turn limit)."""
    return list(test.step_hints[: test.turn_limit])


@dataclass(frozen=True)
class CheckedSituation:
    """Where a test's checked behaviour happens: a user turn and the rule evaluations it maps to."""

    turn: int
    events: tuple[tuple[str, Side], ...]

    @property
    def side(self) -> Side:
        return self.events[0][1]

    @property
    def rules(self) -> set[str]:
        return {rule for rule, _side in self.events}


def checked_situation(events: tuple[Event, ...] | list[Event]) -> CheckedSituation | None:
    """The rule evaluations the test's behaviour depends on, or None when no rule was evaluated.

    The checked turn is the last user turn that triggered any rule evaluation (the tester's last
    request the agent decided on). If a rule was denied there, the reply states the denial, so
    the mapped evaluations are the denied ones; if every rule passed, the agent went ahead
    because all of them passed, so each is mapped on its allowed side.
    """
    if not events:
        return None
    turn = max(t for _rule, _side, t in events)
    at = [(rule, side) for rule, side, t in events if t == turn]
    denied = [(rule, side) for rule, side in at if side == "denied"]
    return CheckedSituation(turn=turn, events=tuple(dict.fromkeys(denied or at)))  # type: ignore[arg-type]
